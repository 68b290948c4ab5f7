// jinja2's tests (`x is defined`, `x is string`, ...), with Python semantics.
#include <unicode/uchar.h>

#include "chat/py_ops.hpp"
#include "chat/renderer.hpp"
#include "chat/template_error.hpp"
#include "chat/text_ops.hpp"
#include "chat/utf8.hpp"

namespace algenta::chat {

static const Value& test_arg(const CallArgs& a, const std::string& test) {
  if (a.positional.size() != 1 || !a.keywords.empty())
    fail(ErrorKind::runtime, "TypeError: test '" + test + "' takes exactly one argument", a.pos);
  return a.positional[0];
}

static bool is_odd_even(const Value& v, bool odd) {
  Value r = py_arith("%", v, Value::integer(2));
  return py_equal(r, Value::integer(odd ? 1 : 0));
}

bool run_test(Renderer&, const std::string& name, const Value& v, const CallArgs& a) {
  auto no_args = [&]() {
    if (!a.positional.empty() || !a.keywords.empty())
      fail(ErrorKind::runtime, "TypeError: test '" + name + "' takes no arguments", a.pos);
  };
  if (name == "defined") return no_args(), !v.is_undefined();
  if (name == "undefined") return no_args(), v.is_undefined();
  if (name == "none") return no_args(), v.is_none();
  if (name == "boolean") return no_args(), v.kind == Kind::boolean;
  if (name == "true") return no_args(), v.kind == Kind::boolean && v.b;
  if (name == "false") return no_args(), v.kind == Kind::boolean && !v.b;
  if (name == "integer") return no_args(), v.kind == Kind::integer;
  if (name == "float") return no_args(), v.kind == Kind::floating;
  if (name == "number") return no_args(), v.is_number();
  if (name == "string") return no_args(), v.kind == Kind::string;
  if (name == "mapping") return no_args(), v.kind == Kind::dict && !v.opaque;
  if (name == "callable") return no_args(), v.kind == Kind::macro || v.kind == Kind::native;
  if (name == "iterable") {
    no_args();
    return v.kind == Kind::undefined || v.kind == Kind::string || v.kind == Kind::list || v.kind == Kind::tuple ||
           v.kind == Kind::dict;
  }
  if (name == "sequence") {
    no_args();
    if (v.consumed) return false;
    if (v.opaque) fail(ErrorKind::unsupported, "'sequence' test of a range or view object", a.pos);
    return v.kind == Kind::undefined || v.kind == Kind::string || v.kind == Kind::list || v.kind == Kind::tuple ||
           v.kind == Kind::dict;
  }
  if (name == "odd" || name == "even") return no_args(), is_odd_even(v, name == "odd");
  if (name == "divisibleby") {
    const Value& n = test_arg(a, name);
    return py_equal(py_arith("%", v, n), Value::integer(0));
  }
  if (name == "lower" || name == "upper") {
    // CPython's str.islower/isupper: no character of the other case or
    // titlecase, and at least one of the asked case.
    no_args();
    bool want_lower = name == "lower", seen = false;
    for (char32_t cp : decode_utf8(py_str(v))) {
      auto c = static_cast<UChar32>(cp);
      UVersionInfo age;
      u_charAge(c, age);
      if (age[0] > 14) fail(ErrorKind::unsupported, "'" + name + "' test of a character newer than Unicode 14.0", a.pos);
      bool lower = u_isULowercase(c), upper = u_isUUppercase(c), title = u_istitle(c);
      if (title || (want_lower ? upper : lower)) return false;
      seen = seen || (want_lower ? lower : upper);
    }
    return seen;
  }
  if (name == "eq" || name == "equalto" || name == "==") return py_equal(v, test_arg(a, name));
  if (name == "ne" || name == "!=") return !py_equal(v, test_arg(a, name));
  if (name == "lt" || name == "<" || name == "lessthan") return py_compare("lt", v, test_arg(a, name));
  if (name == "le" || name == "<=") return py_compare("le", v, test_arg(a, name));
  if (name == "gt" || name == ">" || name == "greaterthan") return py_compare("gt", v, test_arg(a, name));
  if (name == "ge" || name == ">=") return py_compare("ge", v, test_arg(a, name));
  if (name == "in") return py_contains(test_arg(a, name), v);
  if (name == "sameas") {
    const Value& other = test_arg(a, name);
    if (v.kind == Kind::none || other.kind == Kind::none) return v.kind == other.kind;
    if (v.kind == Kind::boolean && other.kind == Kind::boolean) return v.b == other.b;
    if (v.kind == Kind::boolean || other.kind == Kind::boolean) return false;
    fail(ErrorKind::unsupported, "'sameas' on values other than None, True and False (object identity)", a.pos);
  }
  // Only an unknown name in an if-branch gets here (jinja2 fails it when it runs).
  fail(ErrorKind::runtime, "TemplateRuntimeError: No test named '" + name + "' found.", a.pos);
}

}  // namespace algenta::chat
