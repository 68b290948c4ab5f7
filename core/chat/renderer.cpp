#include "chat/renderer.hpp"

#include <optional>

#include "chat/py_ops.hpp"
#include "chat/template_error.hpp"

namespace algenta::chat {

namespace {
struct NotConstant {};  // jinja2's nodes.Impossible: the expression needs the context
}  // namespace

const Value* Frame::find(const std::string& name) const {
  for (const auto& [k, v] : vars)
    if (k == name) return &v;
  return nullptr;
}

void Frame::set(const std::string& name, Value v) {
  for (auto& [k, old] : vars)
    if (k == name) {
      old = std::move(v);
      return;
    }
  vars.emplace_back(name, std::move(v));
}

const Value* CallArgs::get(std::size_t index, const std::string& name) const {
  if (index < positional.size()) return &positional[index];
  for (const auto& [k, v] : keywords)
    if (k == name) return &v;
  return nullptr;
}

void CallArgs::check_signature(const std::string& function, const std::vector<std::string>& names) const {
  if (positional.size() > names.size())
    fail(ErrorKind::runtime, "TypeError: " + function + "() takes at most " + std::to_string(names.size()) +
                                 " arguments (" + std::to_string(positional.size()) + " given)", pos);
  for (const auto& [k, v] : keywords) {
    bool known = false;
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == k) {
        known = true;
        if (i < positional.size())
          fail(ErrorKind::runtime, "TypeError: " + function + "() got multiple values for argument '" + k + "'", pos);
      }
    if (!known) fail(ErrorKind::runtime, "TypeError: " + function + "() got an unexpected keyword argument '" + k + "'", pos);
  }
}

Renderer::Renderer(const RenderOptions& options, Value context) : options_(options), context_(std::move(context)) {}

Renderer::~Renderer() {
  for (auto& f : macro_frames_) f->vars.clear();
  for (auto& ns : namespaces_) ns->attrs.clear();
}

void Renderer::check_output(const std::string& out, SourcePos pos) const {
  if (out.size() > options_.limits.max_output_bytes)
    fail(ErrorKind::bound, "rendered text exceeds the output limit of " + std::to_string(options_.limits.max_output_bytes) + " bytes", pos);
}

static void start_undefined(Frame& frame, const std::vector<std::string>& names) {
  for (const auto& n : names) frame.set(n, Value::undefined("'" + n + "' is undefined"));
}

std::string Renderer::render(const ParsedTemplate& tmpl) {
  auto root = std::make_shared<Frame>();
  start_undefined(*root, tmpl.undefined_at_entry);
  std::string out;
  exec(tmpl.body, root, out);
  return out;
}

Renderer::Flow Renderer::exec(const Body& body, const FramePtr& frame, std::string& out) {
  for (const auto& sp : body) {
    const Stmt& s = *sp;
    switch (s.kind) {
      case StmtKind::text:
        out += s.text;
        check_output(out, s.pos);
        break;
      case StmtKind::output: {
        // jinja2 writes an output whose expression folds to a constant as text,
        // whatever the constant (an Undefined prints as "").
        std::optional<Value> folded = try_fold(*s.expr, frame);
        Value v = folded ? *folded : eval(*s.expr, frame);
        try {
          out += py_str(v);
        } catch (const TemplateError& e) {
          if (e.where().line) throw;
          throw TemplateError(e.kind(), e.bare_message(), s.pos);
        }
        check_output(out, s.pos);
        break;
      }
      case StmtKind::if_: {
        bool done = false;
        for (const auto& [test, branch] : s.branches) {
          if (truthy(eval(*test, frame))) {
            Flow f = exec(branch, frame, out);
            if (f != Flow::normal) return f;
            done = true;
            break;
          }
        }
        if (!done) {
          Flow f = exec(s.else_body, frame, out);
          if (f != Flow::normal) return f;
        }
        break;
      }
      case StmtKind::for_: {
        Flow f = exec_for(s, frame, out);
        if (f != Flow::normal) return f;
        break;
      }
      case StmtKind::set: assign(s.target, eval(*s.expr, frame), frame, s.pos); break;
      case StmtKind::set_block: {
        std::string text;
        exec(s.body, scope_frame(frame, s.body_undefined_at_entry), text);
        assign(s.target, Value::string(std::move(text)), frame, s.pos);
        break;
      }
      case StmtKind::macro: {
        Value m;
        m.kind = Kind::macro;
        m.macro = std::make_shared<const MacroValue>(MacroValue{s.macro, frame});
        frame->set(s.macro->name, m);
        macro_frames_.push_back(frame);
        break;
      }
      case StmtKind::break_: return Flow::break_;
      case StmtKind::continue_: return Flow::continue_;
      case StmtKind::filter_block: {
        std::string text;
        exec(s.body, scope_frame(frame, s.body_undefined_at_entry), text);
        Value v = Value::string(std::move(text));
        for (const auto& f : s.filters) v = apply_filter(f->name, v, eval_args(*f, frame));
        out += py_str(v);
        check_output(out, s.pos);
        break;
      }
      case StmtKind::generation: {
        Flow f = exec(s.body, scope_frame(frame, s.body_undefined_at_entry), out);
        if (f != Flow::normal) return f;
        break;
      }
    }
  }
  return Flow::normal;
}

void Renderer::assign(const Target& target, const Value& v, const FramePtr& frame, SourcePos pos) {
  if (!target.attribute.empty()) {
    Value obj = lookup(target.names[0], frame, pos);
    if (obj.kind != Kind::ns)
      fail(ErrorKind::runtime, "TemplateRuntimeError: cannot assign attribute on non-namespace object", pos);
    obj.ns->assign(target.attribute, v);
    return;
  }
  if (!target.tuple) {
    frame->set(target.names[0], v);
    return;
  }
  ValueList items = py_iterate(v);
  if (items.size() != target.names.size())
    fail(ErrorKind::runtime,
         items.size() > target.names.size()
             ? "ValueError: too many values to unpack (expected " + std::to_string(target.names.size()) + ")"
             : "ValueError: not enough values to unpack (expected " + std::to_string(target.names.size()) + ", got " +
                   std::to_string(items.size()) + ")",
         pos);
  for (std::size_t k = 0; k < items.size(); ++k) frame->set(target.names[k], items[k]);
}

FramePtr Renderer::scope_frame(const FramePtr& parent, const std::vector<std::string>& undefined_at_entry) {
  auto f = std::make_shared<Frame>();
  f->parent = parent;
  start_undefined(*f, undefined_at_entry);
  return f;
}

Renderer::Flow Renderer::exec_for(const Stmt& s, const FramePtr& frame, std::string& out) {
  Value seq = eval(*s.expr, frame);
  ValueList all;
  try {
    all = py_iterate(seq);
  } catch (const TemplateError& e) {
    if (e.where().line) throw;
    throw TemplateError(e.kind(), e.bare_message(), s.expr->pos);
  }
  if (s.loop_filter) {
    ValueList kept;
    for (auto& item : all) {
      auto probe = std::make_shared<Frame>();
      probe->parent = frame;
      assign(s.target, item, probe, s.pos);
      if (truthy(eval(*s.loop_filter, probe))) kept.push_back(std::move(item));
    }
    all = std::move(kept);
  }
  auto items = std::make_shared<const ValueList>(std::move(all));
  for (std::size_t k = 0; k < items->size(); ++k) {
    if (++iterations_ > options_.limits.max_loop_iterations)
      fail(ErrorKind::bound, "for loops ran more than " + std::to_string(options_.limits.max_loop_iterations) +
                                 " iterations in one rendering", s.pos);
    auto body_frame = scope_frame(frame, s.body_undefined_at_entry);
    assign(s.target, (*items)[k], body_frame, s.pos);
    Value loop;
    loop.kind = Kind::loop;
    loop.loop = std::make_shared<const LoopState>(LoopState{items, k});
    body_frame->set("loop", loop);
    Flow f = exec(s.body, body_frame, out);
    if (f == Flow::break_) break;
  }
  if (items->empty()) return exec(s.else_body, scope_frame(frame, s.else_undefined_at_entry), out);
  return Flow::normal;
}

Value Renderer::lookup(const std::string& name, const FramePtr& frame, SourcePos pos) {
  for (const Frame* f = frame.get(); f; f = f->parent.get())
    if (const Value* v = f->find(name)) return *v;
  if (context_.kind == Kind::dict)
    if (const Value* v = context_.dict->find(name)) return *v;
  if (name == "varargs" || name == "kwargs" || name == "caller") {
    for (const Frame* f = frame.get(); f; f = f->parent.get())
      if (f->macro_scope) fail(ErrorKind::unsupported, "'" + name + "' inside a macro", pos);
  }
  return global(name, pos);
}

CallArgs Renderer::eval_args(const Expr& e, const FramePtr& frame) {
  CallArgs a;
  a.pos = e.pos;
  for (const auto& item : e.items) a.positional.push_back(eval(*item, frame));
  for (const auto& kw : e.keywords) a.keywords.emplace_back(kw.name, eval(*kw.value, frame));
  return a;
}

Value Renderer::call_macro(const MacroValue& m, const CallArgs& args) {
  const MacroDef& def = *m.def;
  if (++call_depth_ > options_.limits.max_call_depth)
    fail(ErrorKind::bound, "macro calls nested deeper than " + std::to_string(options_.limits.max_call_depth) +
                               " (in '" + def.name + "')", args.pos);
  struct Leave {
    std::size_t& d;
    ~Leave() { --d; }
  } leave{call_depth_};
  if (args.positional.size() > def.params.size())
    fail(ErrorKind::unsupported, "macro '" + def.name + "' called with more positional arguments than it declares (varargs)", args.pos);
  auto frame = scope_frame(m.closure, def.undefined_at_entry);
  frame->macro_scope = true;
  for (const auto& [k, v] : args.keywords) {
    bool known = false;
    for (const auto& p : def.params) known = known || p == k;
    if (!known) fail(ErrorKind::unsupported, "macro '" + def.name + "' called with unknown keyword argument '" + k + "' (kwargs)", args.pos);
  }
  std::size_t first_default = def.params.size() - def.defaults.size();
  for (std::size_t k = 0; k < def.params.size(); ++k) {
    const Value* given = args.get(k, def.params[k]);
    if (given) {
      frame->set(def.params[k], *given);
    } else if (k >= first_default) {
      frame->set(def.params[k], eval(*def.defaults[k - first_default], frame));
    } else {
      frame->set(def.params[k], Value::undefined("parameter '" + def.params[k] + "' was not provided"));
    }
  }
  std::string out;
  exec(def.body, frame, out);
  return Value::string(std::move(out));
}

Value Renderer::call(const Value& callee, const CallArgs& args) {
  switch (callee.kind) {
    case Kind::native: return callee.native->call(*this, args);
    case Kind::macro: return call_macro(*callee.macro, args);
    case Kind::undefined: fail_undefined(callee);
    default:
      fail(ErrorKind::runtime, std::string("TypeError: '") + type_name(callee) + "' object is not callable", args.pos);
  }
}

static Value slice_value(const Value& obj, const Value* bounds[3], SourcePos pos) {
  std::int64_t idx[3] = {0, 0, 1};
  bool given[3] = {false, false, false};
  for (int k = 0; k < 3; ++k) {
    if (!bounds[k] || bounds[k]->is_none()) continue;
    const Value& b = *bounds[k];
    if (b.kind != Kind::integer && b.kind != Kind::boolean) {
      if (b.is_undefined()) fail_undefined(b);
      fail(ErrorKind::runtime, "TypeError: slice indices must be integers or None or have an __index__ method", pos);
    }
    idx[k] = b.kind == Kind::integer ? b.i : b.b;
    given[k] = true;
  }
  std::int64_t step = given[2] ? idx[2] : 1;
  if (step == 0) fail(ErrorKind::runtime, "ValueError: slice step cannot be zero", pos);
  ValueList items = obj.kind == Kind::string ? py_iterate(obj) : *obj.list;
  auto n = static_cast<std::int64_t>(items.size());
  auto clamp = [&](std::int64_t v, bool is_given, std::int64_t dflt) {
    if (!is_given) return dflt;
    if (v < 0) v += n;
    if (step > 0) return v < 0 ? 0 : (v > n ? n : v);
    return v < 0 ? -1 : (v >= n ? n - 1 : v);
  };
  std::int64_t start = clamp(idx[0], given[0], step > 0 ? 0 : n - 1);
  std::int64_t stop = clamp(idx[1], given[1], step > 0 ? n : -1);
  ValueList out;
  if (step > 0)
    for (std::int64_t k = start; k < stop; k += step) out.push_back(items[static_cast<std::size_t>(k)]);
  else
    for (std::int64_t k = start; k > stop; k += step) out.push_back(items[static_cast<std::size_t>(k)]);
  if (obj.kind == Kind::string) {
    std::string s;
    for (const auto& c : out) s += c.str();
    return Value::string(std::move(s));
  }
  return obj.kind == Kind::list ? Value::make_list(std::move(out)) : Value::make_tuple(std::move(out));
}

Value Renderer::eval_compare(const Expr& e, const FramePtr& frame) {
  Value left = eval(*e.operand, frame);
  for (std::size_t k = 0; k < e.ops.size(); ++k) {
    Value right = eval(*e.items[k], frame);
    const std::string& op = e.ops[k];
    bool ok;
    try {
      if (op == "==") ok = py_equal(left, right);
      else if (op == "!=") ok = !py_equal(left, right);
      else if (op == "in") ok = py_contains(right, left);
      else if (op == "notin") ok = !py_contains(right, left);
      else ok = py_compare(op == "<" ? "lt" : op == "<=" ? "le" : op == ">" ? "gt" : "ge", left, right);
    } catch (const TemplateError& err) {
      if (err.where().line) throw;
      throw TemplateError(err.kind(), err.bare_message(), e.pos);
    }
    if (!ok) return Value::boolean(false);
    left = std::move(right);
  }
  return Value::boolean(true);
}

Value Renderer::apply_filter(const std::string& name, const Value& v, const CallArgs& args) {
  try {
    return run_filter(*this, name, v, args);
  } catch (const TemplateError& e) {
    if (e.where().line || e.kind() == ErrorKind::raised) throw;
    throw TemplateError(e.kind(), e.bare_message() + " (in filter '" + name + "')", args.pos);
  }
}

bool Renderer::apply_test(const std::string& name, const Value& v, const CallArgs& args) {
  try {
    return run_test(*this, name, v, args);
  } catch (const TemplateError& e) {
    if (e.where().line || e.kind() == ErrorKind::raised) throw;
    throw TemplateError(e.kind(), e.bare_message() + " (in test '" + name + "')", args.pos);
  }
}

// Values built by operators, filters and calls may not outgrow the output limit
// (a namespace can otherwise double a string in every loop iteration).
static const Value& bounded(const Value& v, const RenderLimits& limits, SourcePos pos) {
  if (v.kind == Kind::string && v.s->size() > limits.max_output_bytes)
    fail(ErrorKind::bound, "a str of " + std::to_string(v.s->size()) + " bytes exceeds the output limit of " +
                               std::to_string(limits.max_output_bytes), pos);
  if (v.is_sequence_like() && v.list->size() > limits.max_loop_iterations)
    fail(ErrorKind::bound, std::string("a ") + type_name(v) + " of " + std::to_string(v.list->size()) +
                               " items exceeds the loop iteration limit of " + std::to_string(limits.max_loop_iterations), pos);
  return v;
}

// jinja2's has_safe_repr: what its optimizer may turn into a constant.
static bool has_safe_repr(const Value& v) {
  if (v.opaque) return false;
  switch (v.kind) {
    case Kind::none:
    case Kind::boolean:
    case Kind::integer:
    case Kind::floating:
    case Kind::string: return true;
    case Kind::list:
    case Kind::tuple:
      for (const auto& i : *v.list)
        if (!has_safe_repr(i)) return false;
      return true;
    case Kind::dict:
      for (const auto& [k, i] : v.dict->items)
        if (!has_safe_repr(k) || !has_safe_repr(i)) return false;
      return true;
    default: return false;
  }
}


std::optional<Value> Renderer::try_fold(const Expr& e, const FramePtr& frame) {
  if (folding_) return std::nullopt;
  folding_ = true;
  std::optional<Value> folded;
  try {
    folded = eval_unbounded(e, frame);
  } catch (const TemplateError&) {
  } catch (const NotConstant&) {
  }
  folding_ = false;
  return folded;
}

Value Renderer::eval(const Expr& e, const FramePtr& frame) {
  bool short_circuit = (e.kind == ExprKind::binary && (e.name == "and" || e.name == "or")) ||
                       e.kind == ExprKind::conditional;
  if ((e.constant || short_circuit) && !folding_) {
    // What jinja2's optimizer does at compile time: evaluate the constant
    // expression with environment.getitem semantics and keep the result when
    // it has a safe repr; otherwise the expression runs as compiled.
    auto folded = try_fold(e, frame);
    if (folded && has_safe_repr(*folded)) return *folded;
  }
  Value v = eval_unbounded(e, frame);
  if (e.kind == ExprKind::binary || e.kind == ExprKind::filter || e.kind == ExprKind::call) bounded(v, options_.limits, e.pos);
  return v;
}

Value Renderer::eval_unbounded(const Expr& e, const FramePtr& frame) {
  try {
    switch (e.kind) {
      case ExprKind::literal: return e.value;
      case ExprKind::name:
        if (folding_) throw NotConstant{};
        return lookup(e.name, frame, e.pos);
      case ExprKind::list:
      case ExprKind::tuple: {
        ValueList items;
        for (const auto& i : e.items) items.push_back(eval(*i, frame));
        return e.kind == ExprKind::list ? Value::make_list(std::move(items)) : Value::make_tuple(std::move(items));
      }
      case ExprKind::dict: {
        DictData d;
        for (std::size_t k = 0; k + 1 < e.items.size(); k += 2) {
          Value key = eval(*e.items[k], frame);
          Value val = eval(*e.items[k + 1], frame);
          if (key.kind == Kind::list || key.kind == Kind::dict || key.is_undefined())
            fail(ErrorKind::runtime, std::string("TypeError: unhashable type: '") + type_name(key) + "'", e.items[k]->pos);
          bool replaced = false;
          for (auto& [ok, ov] : d.items)
            if (py_equal(ok, key)) {
              ov = val;
              replaced = true;
            }
          if (!replaced) d.items.emplace_back(std::move(key), std::move(val));
        }
        return Value::make_dict(std::move(d));
      }
      case ExprKind::getattr: return getattr(eval(*e.operand, frame), e.name, e.pos);
      case ExprKind::getitem: return getitem(eval(*e.operand, frame), eval(*e.items[0], frame), e.pos);
      case ExprKind::slice: {
        Value obj = eval(*e.operand, frame);
        Value b[3];
        const Value* bp[3] = {nullptr, nullptr, nullptr};
        for (int k = 0; k < 3; ++k)
          if (e.items[k]) {
            b[k] = eval(*e.items[k], frame);
            bp[k] = &b[k];
          }
        require_defined(obj);
        if (obj.opaque) fail(ErrorKind::unsupported, "slice of a range, view or iterator object", e.pos);
        // jinja2 compiles a slice as a plain Python subscript (no environment.getitem).
        if (obj.kind != Kind::string && !obj.is_sequence_like() && folding_)
          return Value::undefined(std::string("'") + type_name(obj) + " object' has no attribute 'slice'");
        if (obj.kind != Kind::string && !obj.is_sequence_like())
          fail(ErrorKind::runtime, std::string("TypeError: '") + type_name(obj) + "' object is not subscriptable", e.pos);
        if (obj.markup) fail(ErrorKind::unsupported, "slice of a Markup string", e.pos);
        return slice_value(obj, bp, e.pos);
      }
      case ExprKind::call: {
        if (folding_) throw NotConstant{};
        Value callee = eval(*e.operand, frame);
        return call(callee, eval_args(e, frame));
      }
      case ExprKind::filter: {
        if (folding_ && (e.name == "select" || e.name == "reject" || e.name == "selectattr" ||
                         e.name == "rejectattr" || e.name == "map"))
          throw NotConstant{};  // pass_context filters are never folded
        Value v = eval(*e.operand, frame);
        return apply_filter(e.name, v, eval_args(e, frame));
      }
      case ExprKind::test: {
        Value v = eval(*e.operand, frame);
        bool r = apply_test(e.name, v, eval_args(e, frame));
        return Value::boolean(e.negated ? !r : r);
      }
      case ExprKind::unary: {
        Value v = eval(*e.operand, frame);
        if (e.name == "not") return Value::boolean(!truthy(v));
        return py_negate(v, e.name == "-");
      }
      case ExprKind::binary: {
        if (e.name == "and") {
          Value l = eval(*e.items[0], frame);
          return truthy(l) ? eval(*e.items[1], frame) : l;
        }
        if (e.name == "or") {
          Value l = eval(*e.items[0], frame);
          return truthy(l) ? l : eval(*e.items[1], frame);
        }
        Value l = eval(*e.items[0], frame);
        Value r = eval(*e.items[1], frame);
        if (e.name == "~") {
          return Value::string(py_str(l) + py_str(r));
        }
        if ((l.markup || r.markup) && e.name == "+") {
          // Markup.__add__/__radd__: the plain side is HTML-escaped.
          require_defined(l);
          require_defined(r);
          if (l.kind != Kind::string || r.kind != Kind::string)
            fail(ErrorKind::runtime, std::string("TypeError: unsupported operand type(s) for +: '") + type_name(l) + "' and '" + type_name(r) + "'", e.pos);
          Value m = Value::string((l.markup ? l.str() : html_escape(l.str())) + (r.markup ? r.str() : html_escape(r.str())));
          m.markup = true;
          return m;
        }
        if ((l.markup || r.markup) && (e.name == "%" || e.name == "*"))
          fail(ErrorKind::unsupported, "arithmetic on a Markup string (|safe or |escape)", e.pos);
        return py_arith(e.name, l, r);
      }
      case ExprKind::compare: return eval_compare(e, frame);
      case ExprKind::conditional: {
        if (truthy(eval(*e.items[1], frame))) return eval(*e.items[0], frame);
        if (e.items[2]) return eval(*e.items[2], frame);
        if (folding_) throw NotConstant{};
        return Value::undefined("the inline if-expression evaluated to false and no else section was defined.");
      }
    }
  } catch (const TemplateError& err) {
    if (err.where().line || err.kind() == ErrorKind::raised) throw;
    throw TemplateError(err.kind(), err.bare_message(), e.pos);
  }
  fail(ErrorKind::unsupported, "expression", e.pos);
}

}  // namespace algenta::chat
