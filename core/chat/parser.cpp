#include "chat/parser.hpp"

#include <set>

#include "chat/lexer.hpp"
#include "chat/scope_analysis.hpp"

namespace algenta::chat {
namespace {

// jinja2's own built-in names: a template using one of these outside the
// subset is "unsupported"; any other name is an error in jinja2 as well.
const std::set<std::string> kJinjaFilters = {
    "abs", "attr", "batch", "capitalize", "center", "count", "d", "default", "dictsort", "e", "escape",
    "filesizeformat", "first", "float", "forceescape", "format", "groupby", "indent", "int", "items", "join",
    "last", "length", "list", "lower", "map", "max", "min", "pprint", "random", "reject", "rejectattr",
    "replace", "reverse", "round", "safe", "select", "selectattr", "slice", "sort", "string", "striptags",
    "sum", "title", "tojson", "trim", "truncate", "unique", "upper", "urlencode", "urlize", "wordcount",
    "wordwrap", "xmlattr"};
const std::set<std::string> kJinjaTests = {
    "boolean", "callable", "defined", "divisibleby", "eq", "equalto", "escaped", "even", "false", "filter",
    "float", "ge", "gt", "greaterthan", "in", "integer", "iterable", "le", "lower", "lessthan", "lt",
    "mapping", "ne", "none", "number", "odd", "sameas", "sequence", "string", "test", "true", "undefined",
    "upper", "==", "!=", "<", "<=", ">", ">="};

const std::set<std::string> kFilters = {
    "abs", "capitalize", "count", "d", "default", "dictsort", "e", "escape", "first", "float", "indent", "int",
    "items", "join", "last", "length", "list", "lower", "map", "reject", "rejectattr", "replace",
    "reverse", "round", "safe", "select", "selectattr", "sort", "string", "title", "tojson", "trim",
    "unique", "upper", "wordcount"};
const std::set<std::string> kTests = {
    "boolean", "callable", "defined", "divisibleby", "eq", "equalto", "even", "false", "float", "ge", "gt",
    "greaterthan", "in", "integer", "iterable", "le", "lower", "lessthan", "lt", "mapping", "ne", "none",
    "number", "odd", "sameas", "sequence", "string", "true", "undefined", "upper", "==", "!=", "<", "<=",
    ">", ">="};

const std::set<std::string> kJinjaTags = {"block", "extends", "include", "import", "from", "call",
                                          "with", "autoescape", "print", "endblock", "endcall",
                                          "endwith", "endautoescape"};

class Parser {
 public:
  Parser(std::vector<Token> tokens, const ParseLimits& limits) : toks_(std::move(tokens)), limits_(limits) {}

  ParsedTemplate run() {
    ParsedTemplate t;
    t.body = subparse({});
    if (cur().type != Tok::eof) fail_here(ErrorKind::syntax, "unexpected tag");
    for (auto& s : t.body) mark_statement(*s);
    return t;
  }

  static void mark_expression(Expr* e) {
    if (!e) return;
    mark_expression(e->operand.get());
    for (auto& i : e->items) mark_expression(i.get());
    for (auto& k : e->keywords) mark_expression(k.value.get());
    mark_constant(*e);
  }

  static void mark_statement(Stmt& s) {
    mark_expression(s.expr.get());
    mark_expression(s.loop_filter.get());
    for (auto& [test, body] : s.branches) {
      mark_expression(test.get());
      for (auto& b : body) mark_statement(*b);
    }
    for (auto& b : s.body) mark_statement(*b);
    for (auto& b : s.else_body) mark_statement(*b);
    for (auto& f : s.filters) mark_expression(f.get());
    if (s.macro) {
      auto& def = const_cast<MacroDef&>(*s.macro);
      for (auto& d : def.defaults) mark_expression(d.get());
      for (auto& b : def.body) mark_statement(*b);
    }
  }

 private:
  std::vector<Token> toks_;
  std::size_t p_ = 0;
  ParseLimits limits_;
  std::size_t depth_ = 0;
  // jinja2 compiles an if-branch in a "soft" frame, where an unknown filter or
  // test fails only when that code runs; loops, macros and the top level fail
  // at compile time.
  bool soft_ = false;
  struct SoftScope {
    Parser& parser;
    bool saved;
    SoftScope(Parser& p, bool soft) : parser(p), saved(p.soft_) { p.soft_ = soft; }
    ~SoftScope() { parser.soft_ = saved; }
  };

  struct DepthGuard {
    Parser& parser;
    explicit DepthGuard(Parser& p) : parser(p) {
      if (++parser.depth_ > parser.limits_.max_nesting)
        fail(ErrorKind::bound, "template nesting deeper than " + std::to_string(parser.limits_.max_nesting) + " levels",
             parser.cur().pos);
    }
    ~DepthGuard() { --parser.depth_; }
  };

  const Token& cur() const { return toks_[p_]; }
  const Token& peek(std::size_t k = 1) const { return toks_[std::min(p_ + k, toks_.size() - 1)]; }
  void advance() {
    if (p_ + 1 < toks_.size()) ++p_;
  }
  bool is_op(const char* op) const { return cur().type == Tok::op && cur().text == op; }
  bool is_name(const char* name) const { return cur().type == Tok::name && cur().text == name; }
  [[noreturn]] void fail_here(ErrorKind kind, const std::string& message) const { fail(kind, message, cur().pos); }

  std::string describe(const Token& t) const {
    switch (t.type) {
      case Tok::eof: return "end of template";
      case Tok::block_end: return "end of statement block";
      case Tok::var_end: return "end of print statement";
      case Tok::name: return "'" + t.text + "'";
      case Tok::op: return "'" + t.text + "'";
      case Tok::string: return "string literal";
      case Tok::integer:
      case Tok::floating: return "number";
      default: return "token";
    }
  }

  void expect_op(const char* op) {
    if (!is_op(op)) fail_here(ErrorKind::syntax, std::string("expected '") + op + "', got " + describe(cur()));
    advance();
  }
  std::string expect_name() {
    if (cur().type != Tok::name) fail_here(ErrorKind::syntax, "expected name, got " + describe(cur()));
    std::string n = cur().text;
    advance();
    return n;
  }
  void expect_block_end() {
    if (cur().type != Tok::block_end)
      fail_here(ErrorKind::syntax, "expected end of statement block, got " + describe(cur()));
    advance();
  }

  // Statements until a block whose first name is in `ends`; leaves the parser on that name.
  Body subparse(const std::set<std::string>& ends) {
    DepthGuard guard(*this);
    Body body;
    while (true) {
      const Token& t = cur();
      if (t.type == Tok::eof) {
        if (!ends.empty()) {
          std::string want;
          for (const auto& e : ends) want += (want.empty() ? "'" : " or '") + e + "'";
          fail_here(ErrorKind::syntax, "unexpected end of template, expected " + want);
        }
        return body;
      }
      if (t.type == Tok::data) {
        auto s = std::make_unique<Stmt>();
        s->kind = StmtKind::text;
        s->pos = t.pos;
        s->text = t.text;
        body.push_back(std::move(s));
        advance();
      } else if (t.type == Tok::var_begin) {
        auto s = std::make_unique<Stmt>();
        s->kind = StmtKind::output;
        s->pos = t.pos;
        advance();
        s->expr = parse_tuple(true, {});
        if (cur().type != Tok::var_end)
          fail_here(ErrorKind::syntax, "expected end of print statement, got " + describe(cur()));
        advance();
        body.push_back(std::move(s));
      } else if (t.type == Tok::block_begin) {
        advance();
        if (cur().type == Tok::name && ends.count(cur().text)) return body;
        body.push_back(statement());
      } else {
        fail_here(ErrorKind::syntax, "unexpected " + describe(t));
      }
    }
  }

  StmtPtr statement() {
    const Token& t = cur();
    if (t.type != Tok::name) fail_here(ErrorKind::syntax, "tag name expected");
    const std::string tag = t.text;
    auto s = std::make_unique<Stmt>();
    s->pos = t.pos;
    advance();
    if (tag == "if") return parse_if(std::move(s));
    if (tag == "for") return parse_for(std::move(s));
    if (tag == "set") return parse_set(std::move(s));
    if (tag == "macro") return parse_macro(std::move(s));
    if (tag == "break" || tag == "continue") {
      s->kind = tag == "break" ? StmtKind::break_ : StmtKind::continue_;
      expect_block_end();
      return s;
    }
    if (tag == "generation") {
      s->kind = StmtKind::generation;
      expect_block_end();
      s->body = subparse({"endgeneration"});
      advance();
      expect_block_end();
      return s;
    }
    if (tag == "filter") {
      s->kind = StmtKind::filter_block;
      do {
        if (is_op("|")) advance();
        s->filters.push_back(parse_filter_call(nullptr));
      } while (is_op("|"));
      expect_block_end();
      s->body = subparse({"endfilter"});
      advance();
      expect_block_end();
      return s;
    }
    if (kJinjaTags.count(tag)) fail(ErrorKind::unsupported, "the '" + tag + "' tag is outside the supported subset", s->pos);
    fail(ErrorKind::syntax, "Encountered unknown tag '" + tag + "'", s->pos);
  }

  StmtPtr parse_if(StmtPtr s) {
    s->kind = StmtKind::if_;
    while (true) {
      ExprPtr test = parse_tuple(false, {});
      expect_block_end();
      SoftScope soft(*this, true);
      Body body = subparse({"elif", "else", "endif"});
      s->branches.emplace_back(std::move(test), std::move(body));
      std::string which = cur().text;
      advance();
      if (which == "elif") continue;
      if (which == "else") {
        expect_block_end();
        SoftScope soft(*this, true);
        s->else_body = subparse({"endif"});
        advance();
      }
      expect_block_end();
      return s;
    }
  }

  Target parse_target(bool allow_namespace) {
    Target target;
    SourcePos pos = cur().pos;
    bool paren = is_op("(");
    if (paren) advance();
    std::string first = expect_name();
    if (allow_namespace && !paren && is_op(".")) {
      advance();
      target.names.push_back(first);
      target.attribute = expect_name();
      return target;
    }
    target.names.push_back(first);
    while (is_op(",")) {
      target.tuple = true;
      advance();
      if (cur().type != Tok::name) break;
      target.names.push_back(expect_name());
    }
    if (paren) expect_op(")");
    if (paren && target.names.size() == 1 && !target.tuple) target.tuple = false;
    for (const auto& n : target.names)
      if (n == "true" || n == "false" || n == "none" || n == "True" || n == "False" || n == "None")
        fail(ErrorKind::syntax, "can't assign to '" + n + "'", pos);
    return target;
  }

  StmtPtr parse_for(StmtPtr s) {
    s->kind = StmtKind::for_;
    s->target = parse_target(false);
    if (!is_name("in")) fail_here(ErrorKind::syntax, "expected 'in', got " + describe(cur()));
    advance();
    s->expr = parse_tuple(false, {"recursive"});
    if (is_name("if")) {
      advance();
      s->loop_filter = parse_expression(true);
    }
    if (is_name("recursive")) fail_here(ErrorKind::unsupported, "recursive for loops are outside the supported subset");
    expect_block_end();
    SoftScope hard(*this, false);
    s->body = subparse({"endfor", "else"});
    std::string which = cur().text;
    advance();
    if (which == "else") {
      expect_block_end();
      s->else_body = subparse({"endfor"});
      advance();
    }
    expect_block_end();
    return s;
  }

  StmtPtr parse_set(StmtPtr s) {
    s->target = parse_target(true);
    if (is_op("=")) {
      advance();
      s->kind = StmtKind::set;
      s->expr = parse_tuple(true, {});
      expect_block_end();
      return s;
    }
    if (is_op("|")) fail_here(ErrorKind::unsupported, "filtered block set ({% set x | filter %}) is outside the supported subset");
    s->kind = StmtKind::set_block;
    if (s->target.tuple || !s->target.attribute.empty())
      fail_here(ErrorKind::unsupported, "block set of a tuple or attribute target");
    expect_block_end();
    s->body = subparse({"endset"});
    advance();
    expect_block_end();
    return s;
  }

  StmtPtr parse_macro(StmtPtr s) {
    s->kind = StmtKind::macro;
    auto def = std::make_shared<MacroDef>();
    def->pos = s->pos;
    def->name = expect_name();
    expect_op("(");
    while (!is_op(")")) {
      if (!def->params.empty()) expect_op(",");
      if (is_op(")")) break;
      std::string param = expect_name();
      def->params.push_back(param);
      if (is_op("=")) {
        advance();
        def->defaults.push_back(parse_expression(true));
      } else if (!def->defaults.empty()) {
        fail_here(ErrorKind::syntax, "non-default argument follows default argument");
      }
    }
    advance();
    expect_block_end();
    SoftScope hard(*this, false);
    def->body = subparse({"endmacro"});
    advance();
    if (cur().type == Tok::name) advance();  // {% endmacro name %}
    expect_block_end();
    s->macro = def;
    return s;
  }

  // ---- expressions -------------------------------------------------------

  ExprPtr node(ExprKind kind, SourcePos pos) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->pos = pos;
    return e;
  }

  bool is_tuple_end(const std::set<std::string>& extra_end) const {
    if (cur().type == Tok::var_end || cur().type == Tok::block_end || is_op(")")) return true;
    return cur().type == Tok::name && extra_end.count(cur().text);
  }

  ExprPtr parse_tuple(bool with_condexpr, const std::set<std::string>& extra_end, bool explicit_parens = false) {
    SourcePos pos = cur().pos;
    std::vector<ExprPtr> args;
    bool is_tuple = false;
    while (true) {
      if (!args.empty()) expect_op(",");
      if (is_tuple_end(extra_end)) break;
      args.push_back(parse_expression(with_condexpr));
      if (is_op(","))
        is_tuple = true;
      else
        break;
    }
    if (!is_tuple) {
      if (!args.empty()) return std::move(args[0]);
      if (!explicit_parens) fail_here(ErrorKind::syntax, "Expected an expression, got " + describe(cur()));
    }
    auto t = node(ExprKind::tuple, pos);
    t->items = std::move(args);
    return t;
  }

  ExprPtr parse_expression(bool with_condexpr) {
    DepthGuard guard(*this);
    return with_condexpr ? parse_condexpr() : parse_or();
  }

  // Conservative: every part constant (jinja2 may fold a little more, e.g. an
  // untaken branch that is not constant).
  static bool all_constant(const Expr& e) {
    if (e.operand && !e.operand->constant) return false;
    for (const auto& i : e.items)
      if (i && !i->constant) return false;
    for (const auto& k : e.keywords)
      if (!k.value->constant) return false;
    return true;
  }

  static void mark_constant(Expr& e) {
    switch (e.kind) {
      case ExprKind::literal: e.constant = true; break;
      case ExprKind::name:
      case ExprKind::call: e.constant = false; break;
      case ExprKind::filter:
        e.constant = all_constant(e) && e.name != "select" && e.name != "reject" && e.name != "selectattr" &&
                     e.name != "rejectattr" && e.name != "map";
        break;
      case ExprKind::conditional: e.constant = all_constant(e) && e.items[2] != nullptr; break;
      default: e.constant = all_constant(e);
    }
  }

  ExprPtr parse_condexpr() {
    ExprPtr expr1 = parse_or();
    while (is_name("if")) {
      SourcePos pos = cur().pos;
      advance();
      ExprPtr expr2 = parse_or();
      ExprPtr expr3;
      if (is_name("else")) {
        advance();
        expr3 = parse_condexpr();
      }
      auto c = node(ExprKind::conditional, pos);
      c->items.push_back(std::move(expr1));
      c->items.push_back(std::move(expr2));
      c->items.push_back(std::move(expr3));
      expr1 = std::move(c);
    }
    return expr1;
  }

  ExprPtr binary(const std::string& op, ExprPtr left, ExprPtr right, SourcePos pos) {
    auto b = node(ExprKind::binary, pos);
    b->name = op;
    b->items.push_back(std::move(left));
    b->items.push_back(std::move(right));
    return b;
  }

  ExprPtr parse_or() {
    ExprPtr left = parse_and();
    while (is_name("or")) {
      SourcePos pos = cur().pos;
      advance();
      left = binary("or", std::move(left), parse_and(), pos);
    }
    return left;
  }

  ExprPtr parse_and() {
    ExprPtr left = parse_not();
    while (is_name("and")) {
      SourcePos pos = cur().pos;
      advance();
      left = binary("and", std::move(left), parse_not(), pos);
    }
    return left;
  }

  ExprPtr parse_not() {
    if (is_name("not")) {
      DepthGuard guard(*this);
      auto n = node(ExprKind::unary, cur().pos);
      advance();
      n->name = "not";
      n->operand = parse_not();
      return n;
    }
    return parse_compare();
  }

  ExprPtr parse_compare() {
    SourcePos pos = cur().pos;
    ExprPtr expr = parse_math1();
    std::vector<std::string> ops;
    std::vector<ExprPtr> operands;
    while (true) {
      std::string op;
      if (cur().type == Tok::op &&
          (cur().text == "==" || cur().text == "!=" || cur().text == "<" || cur().text == "<=" ||
           cur().text == ">" || cur().text == ">=")) {
        op = cur().text;
        advance();
      } else if (is_name("in")) {
        op = "in";
        advance();
      } else if (is_name("not") && peek().type == Tok::name && peek().text == "in") {
        op = "notin";
        advance();
        advance();
      } else {
        break;
      }
      ops.push_back(op);
      operands.push_back(parse_math1());
    }
    if (ops.empty()) return expr;
    auto c = node(ExprKind::compare, pos);
    c->operand = std::move(expr);
    c->ops = std::move(ops);
    c->items = std::move(operands);
    return c;
  }

  ExprPtr parse_math1() {
    ExprPtr left = parse_concat();
    while (is_op("+") || is_op("-")) {
      SourcePos pos = cur().pos;
      std::string op = cur().text;
      advance();
      left = binary(op, std::move(left), parse_concat(), pos);
    }
    return left;
  }

  ExprPtr parse_concat() {
    ExprPtr left = parse_math2();
    while (is_op("~")) {
      SourcePos pos = cur().pos;
      advance();
      left = binary("~", std::move(left), parse_math2(), pos);
    }
    return left;
  }

  ExprPtr parse_math2() {
    ExprPtr left = parse_pow();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      SourcePos pos = cur().pos;
      std::string op = cur().text;
      advance();
      left = binary(op, std::move(left), parse_pow(), pos);
    }
    return left;
  }

  ExprPtr parse_pow() {
    ExprPtr left = parse_unary(true);
    while (is_op("**")) {
      SourcePos pos = cur().pos;
      advance();
      left = binary("**", std::move(left), parse_unary(true), pos);
    }
    return left;
  }

  ExprPtr parse_unary(bool with_filter) {
    DepthGuard guard(*this);
    ExprPtr n;
    if (is_op("-") || is_op("+")) {
      n = node(ExprKind::unary, cur().pos);
      n->name = cur().text;
      advance();
      n->operand = parse_unary(false);
    } else {
      n = parse_primary();
    }
    n = parse_postfix(std::move(n));
    if (with_filter) n = parse_filter_expr(std::move(n));
    return n;
  }

  ExprPtr literal(Value v, SourcePos pos) {
    auto e = node(ExprKind::literal, pos);
    e->value = std::move(v);
    return e;
  }

  ExprPtr parse_primary() {
    const Token& t = cur();
    SourcePos pos = t.pos;
    switch (t.type) {
      case Tok::name: {
        std::string n = t.text;
        advance();
        if (n == "true" || n == "True") return literal(Value::boolean(true), pos);
        if (n == "false" || n == "False") return literal(Value::boolean(false), pos);
        if (n == "none" || n == "None") return literal(Value::none(), pos);
        auto e = node(ExprKind::name, pos);
        e->name = n;
        return e;
      }
      case Tok::string: {
        std::string s;
        while (cur().type == Tok::string) {
          s += cur().text;
          advance();
        }
        return literal(Value::string(std::move(s)), pos);
      }
      case Tok::integer: {
        auto v = Value::integer(t.integer);
        advance();
        return literal(v, pos);
      }
      case Tok::floating: {
        auto v = Value::floating(t.floating);
        advance();
        return literal(v, pos);
      }
      case Tok::op:
        if (t.text == "(") {
          advance();
          ExprPtr e = parse_tuple(true, {}, true);
          expect_op(")");
          return e;
        }
        if (t.text == "[") {
          advance();
          auto l = node(ExprKind::list, pos);
          while (!is_op("]")) {
            if (!l->items.empty()) expect_op(",");
            if (is_op("]")) break;
            l->items.push_back(parse_expression(true));
          }
          advance();
          return l;
        }
        if (t.text == "{") {
          advance();
          auto d = node(ExprKind::dict, pos);
          while (!is_op("}")) {
            if (!d->items.empty()) expect_op(",");
            if (is_op("}")) break;
            d->items.push_back(parse_expression(true));
            expect_op(":");
            d->items.push_back(parse_expression(true));
          }
          advance();
          return d;
        }
        [[fallthrough]];
      default: fail_here(ErrorKind::syntax, "unexpected " + describe(t));
    }
  }

  ExprPtr parse_postfix(ExprPtr n) {
    while (true) {
      if (is_op(".")) {
        SourcePos pos = cur().pos;
        advance();
        if (cur().type == Tok::name) {
          auto g = node(ExprKind::getattr, pos);
          g->operand = std::move(n);
          g->name = cur().text;
          advance();
          n = std::move(g);
        } else if (cur().type == Tok::integer) {
          auto g = node(ExprKind::getitem, pos);
          g->operand = std::move(n);
          g->items.push_back(literal(Value::integer(cur().integer), cur().pos));
          advance();
          n = std::move(g);
        } else {
          fail_here(ErrorKind::syntax, "expected name or number");
        }
      } else if (is_op("[")) {
        n = parse_subscript(std::move(n));
      } else if (is_op("(")) {
        n = parse_call(std::move(n), ExprKind::call);
      } else {
        return n;
      }
    }
  }

  ExprPtr parse_subscript(ExprPtr n) {
    SourcePos pos = cur().pos;
    advance();
    std::vector<ExprPtr> parts;
    bool is_slice = false;
    ExprPtr parts3[3];
    auto subscribed = [&]() -> ExprPtr {
      // One index expression or a start:stop:step slice.
      ExprPtr start;
      if (!is_op(":")) {
        start = parse_expression(true);
        if (!is_op(":")) return start;
      }
      is_slice = true;
      advance();
      ExprPtr stop, step;
      if (!is_op("]") && !is_op(",") && !is_op(":")) stop = parse_expression(true);
      if (is_op(":")) {
        advance();
        if (!is_op("]") && !is_op(",")) step = parse_expression(true);
      }
      auto s = node(ExprKind::slice, pos);
      s->items.push_back(std::move(start));
      s->items.push_back(std::move(stop));
      s->items.push_back(std::move(step));
      return s;
    };
    parts.push_back(subscribed());
    while (is_op(",")) {
      advance();
      if (is_op("]")) break;
      parts.push_back(subscribed());
    }
    expect_op("]");
    ExprPtr part;
    if (parts.size() == 1) {
      part = std::move(parts[0]);
    } else {  // a[x, y] subscripts with the tuple (x, y)
      for (const auto& p : parts)
        if (p->kind == ExprKind::slice) fail(ErrorKind::unsupported, "a slice inside a tuple subscript", pos);
      part = node(ExprKind::tuple, pos);
      part->items = std::move(parts);
      is_slice = false;
    }
    if (is_slice && part->kind == ExprKind::slice) {
      part->operand = std::move(n);
      return part;
    }
    auto g = node(ExprKind::getitem, pos);
    g->operand = std::move(n);
    g->items.push_back(std::move(part));
    return g;
  }

  void parse_call_args(Expr& e) {
    expect_op("(");
    while (!is_op(")")) {
      if (!e.items.empty() || !e.keywords.empty()) expect_op(",");
      if (is_op(")")) break;
      if (is_op("*") || is_op("**")) fail_here(ErrorKind::unsupported, "*args/**kwargs in calls");
      if (cur().type == Tok::name && peek().type == Tok::op && peek().text == "=") {
        std::string key = cur().text;
        advance();
        advance();
        e.keywords.push_back({key, parse_expression(true)});
      } else {
        if (!e.keywords.empty()) fail_here(ErrorKind::syntax, "invalid syntax for function call expression");
        e.items.push_back(parse_expression(true));
      }
    }
    advance();
  }

  ExprPtr parse_call(ExprPtr n, ExprKind kind) {
    auto c = node(kind, cur().pos);
    c->operand = std::move(n);
    parse_call_args(*c);
    return c;
  }

  std::string dotted_name() {
    std::string n = expect_name();
    while (is_op(".")) {
      advance();
      n += "." + expect_name();
    }
    return n;
  }

  // name[(args)] after a '|' (or after `filter` in a filter block).
  ExprPtr parse_filter_call(ExprPtr operand) {
    SourcePos pos = cur().pos;
    auto f = node(ExprKind::filter, pos);
    f->name = dotted_name();
    if (!kFilters.count(f->name)) {
      if (kJinjaFilters.count(f->name))
        fail(ErrorKind::unsupported, "the '" + f->name + "' filter is outside the supported subset", pos);
      if (!soft_) fail(ErrorKind::syntax, "No filter named '" + f->name + "'.", pos);
    }
    f->operand = std::move(operand);
    if (is_op("(")) parse_call_args(*f);
    return f;
  }

  ExprPtr parse_filter_expr(ExprPtr n) {
    while (true) {
      if (is_op("|")) {
        advance();
        n = parse_filter_call(std::move(n));
      } else if (is_name("is")) {
        advance();
        auto t = node(ExprKind::test, cur().pos);
        if (is_name("not")) {
          t->negated = true;
          advance();
        }
        SourcePos pos = cur().pos;
        t->name = dotted_name();
        if (!kTests.count(t->name)) {
          if (kJinjaTests.count(t->name))
            fail(ErrorKind::unsupported, "the '" + t->name + "' test is outside the supported subset", pos);
          if (!soft_) fail(ErrorKind::syntax, "No test named '" + t->name + "'.", pos);
        }
        t->operand = std::move(n);
        if (is_op("(")) {
          parse_call_args(*t);
        } else if ((cur().type == Tok::name || cur().type == Tok::string || cur().type == Tok::integer ||
                    cur().type == Tok::floating || is_op("(") || is_op("[") || is_op("{")) &&
                   !is_name("else") && !is_name("or") && !is_name("and")) {
          if (is_name("is")) fail_here(ErrorKind::syntax, "You cannot chain multiple tests with is");
          ExprPtr arg = parse_primary();
          t->items.push_back(parse_postfix(std::move(arg)));
        }
        n = std::move(t);
      } else if (is_op("(")) {
        n = parse_call(std::move(n), ExprKind::call);
      } else {
        return n;
      }
    }
  }
};

}  // namespace

bool is_supported_filter(const std::string& name) { return kFilters.count(name) != 0; }
bool is_supported_test(const std::string& name) { return kTests.count(name) != 0; }

ParsedTemplate parse_template(std::string_view source, const ParseLimits& limits) {
  ParsedTemplate t = Parser(tokenize(source), limits).run();
  analyze_scopes(t);
  return t;
}

}  // namespace algenta::chat
