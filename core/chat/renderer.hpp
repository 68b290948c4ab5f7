#pragma once
// Walks the parsed template over a context and writes the text, with
// jinja2's scoping (a loop body is its own scope; if is not), Undefined
// semantics and the immutable sandbox's attribute rules.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "chat/ast.hpp"
#include "chat/render_options.hpp"
#include "chat/value.hpp"

namespace algenta::chat {

struct Frame {
  std::shared_ptr<Frame> parent;
  std::vector<std::pair<std::string, Value>> vars;
  bool macro_scope = false;
  const Value* find(const std::string& name) const;
  void set(const std::string& name, Value v);
};
using FramePtr = std::shared_ptr<Frame>;

struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keywords;
  SourcePos pos;
  // The argument at `index` or named `name`, or null when not passed.
  const Value* get(std::size_t index, const std::string& name) const;
  // Refuses arguments beyond the `names` a Python function of that signature takes.
  void check_signature(const std::string& function, const std::vector<std::string>& names) const;
};

struct LoopState {
  std::shared_ptr<const ValueList> items;
  std::size_t index0 = 0;
};

class Renderer {
 public:
  Renderer(const RenderOptions& options, Value context);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;
  std::string render(const ParsedTemplate& tmpl);

  Value eval(const Expr& e, const FramePtr& frame);
  Value call(const Value& callee, const CallArgs& args);
  Value getattr(const Value& obj, const std::string& name, SourcePos pos);
  Value getitem(const Value& obj, const Value& key, SourcePos pos);
  Value apply_filter(const std::string& name, const Value& v, const CallArgs& args);
  bool apply_test(const std::string& name, const Value& v, const CallArgs& args);
  const RenderOptions& options() const { return options_; }
  void check_output(const std::string& out, SourcePos pos) const;
  // A namespace() made while rendering: its attributes are cleared at the
  // end, since one may hold the namespace itself (a cycle no owner frees).
  void keep_namespace(std::shared_ptr<NamespaceData> ns) { namespaces_.push_back(std::move(ns)); }

 private:
  enum class Flow { normal, break_, continue_ };
  Value eval_unbounded(const Expr& e, const FramePtr& frame);
  std::optional<Value> try_fold(const Expr& e, const FramePtr& frame);
  Flow exec(const Body& body, const FramePtr& frame, std::string& out);
  FramePtr scope_frame(const FramePtr& parent, const std::vector<std::string>& undefined_at_entry);
  Flow exec_for(const Stmt& s, const FramePtr& frame, std::string& out);
  void assign(const Target& target, const Value& v, const FramePtr& frame, SourcePos pos);
  Value lookup(const std::string& name, const FramePtr& frame, SourcePos pos);
  Value eval_compare(const Expr& e, const FramePtr& frame);
  Value call_macro(const MacroValue& m, const CallArgs& args);
  CallArgs eval_args(const Expr& e, const FramePtr& frame);
  Value global(const std::string& name, SourcePos pos);

  RenderOptions options_;
  Value context_;
  std::size_t iterations_ = 0;
  std::size_t call_depth_ = 0;
  bool folding_ = false;  // evaluating a constant expression as jinja2's optimizer would
  // Frames that hold a macro, which holds the frame back: cleared at the end to break the cycle.
  std::vector<FramePtr> macro_frames_;
  std::vector<std::shared_ptr<NamespaceData>> namespaces_;
};

std::string html_escape(const std::string& s);  // markupsafe.escape

// Filters, tests and methods live beside the renderer, one file each.
Value run_filter(Renderer& r, const std::string& name, const Value& v, const CallArgs& args);
bool run_test(Renderer& r, const std::string& name, const Value& v, const CallArgs& args);
// A Python method of a str/dict/list value, or undefined (found=false) when Python has no such attribute.
Value find_method(const Value& obj, const std::string& name, bool& found);

}  // namespace algenta::chat
