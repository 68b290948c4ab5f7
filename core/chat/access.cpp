// Attribute and item access as jinja2's sandbox does it: a Python attribute
// (method) first, then the item; refused mutators; Undefined where Python
// would raise a lookup or type error.
#include "chat/py_ops.hpp"
#include "chat/renderer.hpp"
#include "chat/template_error.hpp"

namespace algenta::chat {

static bool is_known_python_attribute(const Value& obj, const std::string& name) {
  static const std::vector<std::string> number_attrs = {"real", "imag", "conjugate", "numerator", "denominator",
                                                        "bit_length", "bit_count", "to_bytes", "from_bytes",
                                                        "as_integer_ratio", "is_integer", "hex", "fromhex"};
  if (obj.kind == Kind::integer || obj.kind == Kind::floating || obj.kind == Kind::boolean)
    for (const auto& a : number_attrs)
      if (a == name) return true;
  return false;
}

Value Renderer::getattr(const Value& obj, const std::string& name, SourcePos pos) {
  if (obj.is_undefined()) {
    try {
      fail_undefined(obj);
    } catch (const TemplateError& e) {
      throw TemplateError(e.kind(), e.bare_message(), pos);
    }
  }
  if (name.size() >= 2 && name[0] == '_' && name[1] == '_')
    fail(ErrorKind::unsupported, "dunder attribute '" + name + "'", pos);
  if (obj.markup) fail(ErrorKind::unsupported, "attribute of a Markup string (|safe or |escape)", pos);
  switch (obj.kind) {
    case Kind::loop: {
      const LoopState& l = *obj.loop;
      std::size_t n = l.items->size();
      if (name == "index") return Value::integer(static_cast<std::int64_t>(l.index0 + 1));
      if (name == "index0") return Value::integer(static_cast<std::int64_t>(l.index0));
      if (name == "revindex") return Value::integer(static_cast<std::int64_t>(n - l.index0));
      if (name == "revindex0") return Value::integer(static_cast<std::int64_t>(n - l.index0 - 1));
      if (name == "first") return Value::boolean(l.index0 == 0);
      if (name == "last") return Value::boolean(l.index0 + 1 == n);
      if (name == "length") return Value::integer(static_cast<std::int64_t>(n));
      if (name == "depth") return Value::integer(1);
      if (name == "depth0") return Value::integer(0);
      if (name == "previtem")
        return l.index0 > 0 ? (*l.items)[l.index0 - 1] : Value::undefined("there is no previous item");
      if (name == "nextitem")
        return l.index0 + 1 < n ? (*l.items)[l.index0 + 1] : Value::undefined("there is no next item");
      if (name == "cycle") {
        auto state = obj.loop;
        return Value::make_native("loop.cycle", [state](Renderer&, const CallArgs& a) {
          if (a.positional.empty()) fail(ErrorKind::runtime, "TypeError: no items for cycling given", a.pos);
          return a.positional[state->index0 % a.positional.size()];
        });
      }
      if (name == "changed") fail(ErrorKind::unsupported, "loop.changed()", pos);
      return Value::undefined("'LoopContext' object has no attribute '" + name + "'");
    }
    case Kind::ns: {
      if (const Value* v = obj.ns->find(name)) return *v;
      return Value::undefined("'Namespace' object has no attribute '" + name + "'");
    }
    case Kind::string:
    case Kind::list:
    case Kind::tuple:
    case Kind::dict: {
      bool found = false;
      Value m = find_method(obj, name, found);
      if (found) {
        if (m.is_undefined() && !m.unsafe) fail(ErrorKind::unsupported, std::string(type_name(obj)) + "." + name + "()", pos);
        return m;
      }
      if (obj.kind == Kind::dict) {
        if (const Value* v = obj.dict->find(name)) return *v;
        return Value::undefined("'dict object' has no attribute '" + name + "'");
      }
      return Value::undefined(std::string("'") + type_name(obj) + " object' has no attribute '" + name + "'");
    }
    default:
      if (is_known_python_attribute(obj, name)) fail(ErrorKind::unsupported, std::string(type_name(obj)) + "." + name, pos);
      return Value::undefined(std::string("'") + py_str(obj) + "' has no attribute '" + name + "'");
  }
}

Value Renderer::getitem(const Value& obj, const Value& key, SourcePos pos) {
  if (obj.is_undefined()) {
    try {
      fail_undefined(obj);
    } catch (const TemplateError& e) {
      throw TemplateError(e.kind(), e.bare_message(), pos);
    }
  }
  if (obj.markup) fail(ErrorKind::unsupported, "subscript of a Markup string (|safe or |escape)", pos);
  auto fallback = [&]() -> Value {
    if (key.kind == Kind::string) {
      if (obj.kind == Kind::ns || obj.kind == Kind::loop || obj.kind == Kind::string || obj.kind == Kind::list ||
          obj.kind == Kind::tuple || obj.kind == Kind::dict)
        return getattr(obj, key.str(), pos);
      if (is_known_python_attribute(obj, key.str())) fail(ErrorKind::unsupported, std::string(type_name(obj)) + "." + key.str(), pos);
    }
    return Value::undefined(std::string("'") + type_name(obj) + " object' has no attribute '" + py_str(key) + "'");
  };
  if (obj.opaque) fail(ErrorKind::unsupported, "subscript of a range, view or iterator object", pos);
  switch (obj.kind) {
    case Kind::dict: {
      if (key.kind == Kind::list || key.kind == Kind::dict) return fallback();
      if (const Value* v = obj.dict->find(key)) return *v;
      return fallback();
    }
    case Kind::list:
    case Kind::tuple:
    case Kind::string: {
      if (key.kind != Kind::integer && key.kind != Kind::boolean) return fallback();
      std::int64_t i = key.kind == Kind::integer ? key.i : key.b;
      std::int64_t n = static_cast<std::int64_t>(py_len(obj));
      if (i < 0) i += n;
      if (i < 0 || i >= n) return Value::undefined(std::string("'") + type_name(obj) + " object' has no element " + py_str(key));
      if (obj.kind != Kind::string) return (*obj.list)[static_cast<std::size_t>(i)];
      ValueList chars = py_iterate(obj);
      return chars[static_cast<std::size_t>(i)];
    }
    default: return fallback();
  }
}

}  // namespace algenta::chat
