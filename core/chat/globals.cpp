// The globals a chat template sees: jinja2's range (sandboxed), namespace and
// dict, and transformers' raise_exception and strftime_now.
#include <ctime>

#include "chat/py_ops.hpp"
#include "chat/renderer.hpp"
#include "chat/template_error.hpp"

namespace algenta::chat {

Value Renderer::global(const std::string& name, SourcePos pos) {
  if (name == "range") {
    return Value::make_native("range", [](Renderer& r, const CallArgs& a) {
      if (a.positional.empty() || a.positional.size() > 3 || !a.keywords.empty())
        fail(ErrorKind::runtime, "TypeError: range expected 1 to 3 integer arguments", a.pos);
      std::int64_t v[3] = {0, 0, 1};
      for (std::size_t k = 0; k < a.positional.size(); ++k) {
        const Value& x = a.positional[k];
        if (x.kind != Kind::integer && x.kind != Kind::boolean) {
          if (x.is_undefined()) fail_undefined(x);
          fail(ErrorKind::runtime, std::string("TypeError: '") + type_name(x) + "' object cannot be interpreted as an integer", a.pos);
        }
        v[k] = x.kind == Kind::integer ? x.i : x.b;
      }
      std::int64_t start = a.positional.size() == 1 ? 0 : v[0];
      std::int64_t stop = a.positional.size() == 1 ? v[0] : v[1];
      std::int64_t step = a.positional.size() == 3 ? v[2] : 1;
      if (step == 0) fail(ErrorKind::runtime, "ValueError: range() arg 3 must not be zero", a.pos);
      __int128 count = step > 0 ? (stop > start ? (static_cast<__int128>(stop) - start + step - 1) / step : 0)
                                : (start > stop ? (static_cast<__int128>(start) - stop - step - 1) / -step : 0);
      if (count > static_cast<__int128>(r.options().limits.max_range))
        fail(ErrorKind::runtime, "OverflowError: Range too big. The sandbox blocks ranges larger than MAX_RANGE (" +
                                     std::to_string(r.options().limits.max_range) + ").", a.pos);
      ValueList out;
      for (__int128 k = 0; k < count; ++k) out.push_back(Value::integer(static_cast<std::int64_t>(start + k * step)));
      Value list = Value::make_list(std::move(out));
      list.opaque = true;  // a range object prints as range(a, b)
      return list;
    });
  }
  if (name == "namespace") {
    return Value::make_native("namespace", [](Renderer& r, const CallArgs& a) {
      Value v;
      v.kind = Kind::ns;
      v.ns = std::make_shared<NamespaceData>();
      r.keep_namespace(v.ns);
      for (const auto& p : a.positional) {
        if (p.kind != Kind::dict) fail(ErrorKind::unsupported, "namespace() with a positional argument other than a dict", a.pos);
        for (const auto& [k, val] : p.dict->items) {
          if (k.kind != Kind::string) fail(ErrorKind::unsupported, "namespace() from a dict with non-string keys", a.pos);
          v.ns->assign(k.str(), val);
        }
      }
      for (const auto& [k, val] : a.keywords) v.ns->assign(k, val);
      return v;
    });
  }
  if (name == "dict") {
    return Value::make_native("dict", [](Renderer&, const CallArgs& a) {
      if (!a.positional.empty()) fail(ErrorKind::unsupported, "dict() with positional arguments", a.pos);
      DictData d;
      for (const auto& [k, val] : a.keywords) d.items.emplace_back(Value::string(k), val);
      return Value::make_dict(std::move(d));
    });
  }
  if (name == "raise_exception") {
    return Value::make_native("raise_exception", [](Renderer&, const CallArgs& a) -> Value {
      a.check_signature("raise_exception", {"message"});
      const Value* m = a.get(0, "message");
      if (!m) fail(ErrorKind::runtime, "TypeError: raise_exception() missing 1 required positional argument: 'message'", a.pos);
      if (m->kind != Kind::string) fail(ErrorKind::unsupported, "raise_exception() with a non-string message", a.pos);
      throw TemplateError(ErrorKind::raised, m->str(), a.pos);
    });
  }
  if (name == "strftime_now") {
    return Value::make_native("strftime_now", [](Renderer& r, const CallArgs& a) {
      a.check_signature("strftime_now", {"format"});
      const Value* f = a.get(0, "format");
      if (!f) fail(ErrorKind::runtime, "TypeError: strftime_now() missing 1 required positional argument: 'format'", a.pos);
      if (f->kind != Kind::string) fail(ErrorKind::runtime, "TypeError: strftime() argument 1 must be str", a.pos);
      std::time_t now = r.options().frozen_now ? *r.options().frozen_now : std::time(nullptr);
      std::tm tm{};
      if (r.options().frozen_now)
        gmtime_r(&now, &tm);
      else
        localtime_r(&now, &tm);
      for (std::size_t k = 0; k + 1 < f->str().size(); ++k) {
        if (f->str()[k] != '%') continue;
        char c = f->str()[k + 1];
        static const std::string allowed = "aAbBdHIjmMpSUwWyY%eFTDRrC";
        if (allowed.find(c) == std::string::npos)
          fail(ErrorKind::unsupported, std::string("strftime directive %") + c, a.pos);
        ++k;
      }
      char buf[512];
      std::size_t n = std::strftime(buf, sizeof buf, f->str().c_str(), &tm);
      if (n == 0 && !f->str().empty()) fail(ErrorKind::unsupported, "strftime_now() result longer than 511 bytes", a.pos);
      return Value::string(std::string(buf, n));
    });
  }
  if (name == "lipsum" || name == "cycler" || name == "joiner")
    fail(ErrorKind::unsupported, "the global '" + name + "' is outside the supported subset", pos);
  return Value::undefined("'" + name + "' is undefined");
}

}  // namespace algenta::chat
