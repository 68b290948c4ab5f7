#pragma once
// The parsed template: expressions and statements of the supported subset.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chat/template_error.hpp"
#include "chat/value.hpp"

namespace algenta::chat {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Keyword {
  std::string name;
  ExprPtr value;
};

enum class ExprKind {
  literal,     // value
  name,        // name
  list,        // items
  tuple,       // items
  dict,        // items as key,value pairs (even/odd)
  getattr,     // operand.name
  getitem,     // operand[items[0]]
  slice,       // operand[items[0]:items[1]:items[2]] (null = omitted)
  call,        // operand(items..., keywords...)
  filter,      // operand|name(items..., keywords...)
  test,        // operand is [not] name(items...)
  unary,       // op in {"-", "+", "not"}
  binary,      // op in {"+","-","*","/","//","%","**","~","and","or"}
  compare,     // operand (ops[k] items[k])...
  conditional  // items[0] if items[1] else items[2] (else may be null)
};

struct Expr {
  ExprKind kind;
  SourcePos pos;
  Value value;
  std::string name;  // name, attribute, filter/test name, unary/binary operator
  ExprPtr operand;
  std::vector<ExprPtr> items;
  std::vector<Keyword> keywords;
  std::vector<std::string> ops;  // comparison operators
  bool negated = false;          // `is not`
  // jinja2's optimizer folds constant expressions at compile time, through
  // environment.getitem: a constant slice of a non-sequence is then Undefined
  // instead of the TypeError a plain subscript raises.
  bool constant = false;
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

// Where a `set` or `for` stores: a name, a tuple of names, or namespace.attr.
struct Target {
  std::vector<std::string> names;  // one name, or several for tuple unpacking
  bool tuple = false;
  std::string attribute;  // non-empty: names[0].attribute (namespace assignment)
};

struct MacroDef {
  std::string name;
  std::vector<std::string> params;
  std::vector<ExprPtr> defaults;  // aligned to the last params
  Body body;
  SourcePos pos;
  std::vector<std::string> undefined_at_entry;  // see scope_analysis.hpp
};

enum class StmtKind { text, output, if_, for_, set, set_block, macro, break_, continue_, generation, filter_block };

struct Stmt {
  StmtKind kind;
  SourcePos pos;
  std::string text;                                     // text
  ExprPtr expr;                                         // output, set value, for iterable
  std::vector<std::pair<ExprPtr, Body>> branches;       // if / elif
  Body body;                                            // for body, set block body, generation
  Body else_body;                                       // if else, for else
  Target target;                                        // set, for
  ExprPtr loop_filter;                                  // for ... if cond
  std::shared_ptr<const MacroDef> macro;                // macro
  std::vector<ExprPtr> filters;                         // filter block: filter nodes without operand
  // Names jinja2 starts as undefined when the body's scope (for body, for
  // else, set block, filter block, generation) is entered; see scope_analysis.hpp.
  std::vector<std::string> body_undefined_at_entry;
  std::vector<std::string> else_undefined_at_entry;
};

struct ParsedTemplate {
  Body body;
  std::vector<std::string> undefined_at_entry;
};

}  // namespace algenta::chat
