// Python methods of str, dict, list and tuple values, bound to their receiver.
#include <set>

#include "chat/py_ops.hpp"
#include "chat/renderer.hpp"
#include "chat/template_error.hpp"
#include "chat/text_ops.hpp"
#include "chat/utf8.hpp"

namespace algenta::chat {
namespace {

const std::set<std::string> kStrAttributes = {
    "capitalize", "casefold", "center", "count", "encode", "endswith", "expandtabs", "find", "format",
    "format_map", "index", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower",
    "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust", "lower", "lstrip", "maketrans",
    "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex", "rjust", "rpartition", "rsplit",
    "rstrip", "split", "splitlines", "startswith", "strip", "swapcase", "title", "translate", "upper", "zfill"};
const std::set<std::string> kDictAttributes = {"clear", "copy", "fromkeys", "get", "items", "keys",
                                               "pop", "popitem", "setdefault", "update", "values"};
const std::set<std::string> kDictMutators = {"clear", "pop", "popitem", "setdefault", "update"};
const std::set<std::string> kListAttributes = {"append", "clear", "copy", "count", "extend", "index",
                                               "insert", "pop", "remove", "reverse", "sort"};
const std::set<std::string> kListMutators = {"append", "clear", "extend", "insert", "pop", "remove", "reverse", "sort"};

const std::string& str_arg(const CallArgs& a, std::size_t i, const std::string& name, const std::string& fn) {
  const Value* v = a.get(i, name);
  if (!v) fail(ErrorKind::runtime, "TypeError: " + fn + "() missing required argument '" + name + "'", a.pos);
  if (v->kind != Kind::string) {
    if (v->is_undefined()) fail_undefined(*v);
    fail(ErrorKind::runtime, "TypeError: " + fn + "() argument must be str, not " + type_name(*v), a.pos);
  }
  if (v->markup) fail(ErrorKind::unsupported, "a Markup string as a str method argument", a.pos);
  return v->str();
}

std::optional<std::string> optional_str(const CallArgs& a, std::size_t i, const std::string& name, const std::string& fn) {
  const Value* v = a.get(i, name);
  if (!v || v->is_none()) return std::nullopt;
  return str_arg(a, i, name, fn);
}

long long int_arg(const CallArgs& a, std::size_t i, const std::string& name, long long dflt) {
  const Value* v = a.get(i, name);
  if (!v) return dflt;
  if (v->kind == Kind::integer) return v->i;
  if (v->kind == Kind::boolean) return v->b;
  if (v->is_undefined()) fail_undefined(*v);
  fail(ErrorKind::runtime, std::string("TypeError: '") + type_name(*v) + "' object cannot be interpreted as an integer", a.pos);
}

Value string_list(const std::vector<std::string>& parts) {
  ValueList out;
  for (const auto& p : parts) out.push_back(Value::string(p));
  return Value::make_list(std::move(out));
}

Value bind_method(const Value& obj, const std::string& name, std::function<Value(const Value&, const CallArgs&)> fn) {
  std::string full = std::string(type_name(obj)) + "." + name;
  return Value::make_native(full, [obj, fn, full](Renderer&, const CallArgs& a) {
    try {
      return fn(obj, a);
    } catch (const TemplateError& e) {
      if (e.where().line) throw;
      throw TemplateError(e.kind(), e.bare_message() + " (in " + full + "())", a.pos);
    }
  });
}

bool prefix_match(const Value& self, const CallArgs& a, bool suffix) {
  const std::string fn = suffix ? "endswith" : "startswith";
  a.check_signature(fn, {"prefix"});
  const Value* p = a.get(0, "prefix");
  if (!p) fail(ErrorKind::runtime, "TypeError: " + fn + "() takes at least 1 argument (0 given)", a.pos);
  auto one = [&](const Value& v) {
    if (v.kind != Kind::string)
      fail(ErrorKind::runtime, "TypeError: " + fn + " first arg must be str or a tuple of str, not " + type_name(v), a.pos);
    const std::string& s = self.str();
    const std::string& x = v.str();
    if (x.size() > s.size()) return false;
    return suffix ? s.compare(s.size() - x.size(), x.size(), x) == 0 : s.compare(0, x.size(), x) == 0;
  };
  if (p->kind == Kind::tuple) {
    for (const auto& v : *p->list)
      if (one(v)) return true;
    return false;
  }
  return one(*p);
}

Value str_method(const Value& obj, const std::string& name, bool& found) {
  found = kStrAttributes.count(name) != 0;
  if (!found) return Value::undefined();
  if (name == "startswith" || name == "endswith") {
    bool suffix = name == "endswith";
    return bind_method(obj, name, [suffix](const Value& s, const CallArgs& a) { return Value::boolean(prefix_match(s, a, suffix)); });
  }
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    bool left = name != "rstrip", right = name != "lstrip";
    return bind_method(obj, name, [left, right, name](const Value& s, const CallArgs& a) {
      a.check_signature(name, {"chars"});
      auto chars = optional_str(a, 0, "chars", name);
      return Value::string(chars ? py_strip_chars(s.str(), *chars, left, right) : py_strip(s.str(), left, right));
    });
  }
  if (name == "split" || name == "rsplit") {
    bool right = name == "rsplit";
    return bind_method(obj, name, [right, name](const Value& s, const CallArgs& a) {
      a.check_signature(name, {"sep", "maxsplit"});
      return string_list(py_split(s.str(), optional_str(a, 0, "sep", name), int_arg(a, 1, "maxsplit", -1), right));
    });
  }
  if (name == "replace") {
    return bind_method(obj, name, [](const Value& s, const CallArgs& a) {
      a.check_signature("replace", {"old", "new", "count"});
      return Value::string(py_replace(s.str(), str_arg(a, 0, "old", "replace"), str_arg(a, 1, "new", "replace"),
                                      int_arg(a, 2, "count", -1)));
    });
  }
  if (name == "upper" || name == "lower" || name == "title" || name == "capitalize") {
    return bind_method(obj, name, [name](const Value& s, const CallArgs& a) {
      a.check_signature(name, {});
      if (name == "upper") return Value::string(py_upper(s.str()));
      if (name == "lower") return Value::string(py_lower(s.str()));
      if (name == "title") return Value::string(py_title(s.str()));
      return Value::string(py_capitalize(s.str()));
    });
  }
  if (name == "find" || name == "rfind" || name == "index" || name == "rindex") {
    bool right = name[0] == 'r';
    bool raises = name.find("index") != std::string::npos;
    return bind_method(obj, name, [right, raises, name](const Value& s, const CallArgs& a) {
      a.check_signature(name, {"sub"});
      long long at = py_find(s.str(), str_arg(a, 0, "sub", name), right);
      if (at < 0 && raises) fail(ErrorKind::runtime, "ValueError: substring not found", a.pos);
      return Value::integer(at);
    });
  }
  if (name == "count") {
    return bind_method(obj, name, [](const Value& s, const CallArgs& a) {
      a.check_signature("count", {"sub"});
      return Value::integer(py_count(s.str(), str_arg(a, 0, "sub", "count")));
    });
  }
  if (name == "join") {
    return bind_method(obj, name, [](const Value& s, const CallArgs& a) {
      a.check_signature("join", {"iterable"});
      const Value* it = a.get(0, "iterable");
      if (!it) fail(ErrorKind::runtime, "TypeError: str.join() takes exactly one argument (0 given)", a.pos);
      std::string out;
      std::size_t k = 0;
      for (const auto& v : py_iterate(*it)) {
        if (v.kind != Kind::string)
          fail(ErrorKind::runtime, "TypeError: sequence item " + std::to_string(k) + ": expected str instance, " +
                                       type_name(v) + " found", a.pos);
        if (k++) out += s.str();
        out += v.str();
      }
      return Value::string(std::move(out));
    });
  }
  if (name == "splitlines") {
    return bind_method(obj, name, [](const Value& s, const CallArgs& a) {
      a.check_signature("splitlines", {"keepends"});
      const Value* k = a.get(0, "keepends");
      return string_list(py_splitlines(s.str(), k && truthy(*k)));
    });
  }
  if (name == "removeprefix" || name == "removesuffix") {
    bool suffix = name == "removesuffix";
    return bind_method(obj, name, [suffix, name](const Value& s, const CallArgs& a) {
      a.check_signature(name, {"fix"});
      const std::string& x = str_arg(a, 0, "fix", name);
      const std::string& t = s.str();
      if (x.empty() || x.size() > t.size()) return s;
      if (!suffix && t.compare(0, x.size(), x) == 0) return Value::string(t.substr(x.size()));
      if (suffix && t.compare(t.size() - x.size(), x.size(), x) == 0) return Value::string(t.substr(0, t.size() - x.size()));
      return s;
    });
  }
  if (name == "isspace") {
    return bind_method(obj, name, [](const Value& s, const CallArgs& a) {
      a.check_signature("isspace", {});
      auto cps = decode_utf8(s.str());
      bool all = !cps.empty();
      for (char32_t c : cps) all = all && is_py_space(c);
      return Value::boolean(all);
    });
  }
  if (name == "isdigit" || name == "isalpha" || name == "isalnum" || name == "isupper" || name == "islower") {
    return bind_method(obj, name, [name](const Value& s, const CallArgs& a) {
      a.check_signature(name, {});
      const std::string& t = s.str();
      if (!is_ascii(t)) fail(ErrorKind::unsupported, "str." + name + "() of text with non-ASCII characters", a.pos);
      auto digit = [](char c) { return c >= '0' && c <= '9'; };
      auto up = [](char c) { return c >= 'A' && c <= 'Z'; };
      auto low = [](char c) { return c >= 'a' && c <= 'z'; };
      if (name == "isupper" || name == "islower") {
        bool cased = false, ok = true;
        for (char c : t) {
          if (up(c) || low(c)) cased = true;
          if (name == "isupper" ? low(c) : up(c)) ok = false;
        }
        return Value::boolean(cased && ok);
      }
      bool all = !t.empty();
      for (char c : t) {
        bool alpha = up(c) || low(c);
        all = all && (name == "isdigit" ? digit(c) : name == "isalpha" ? alpha : (alpha || digit(c)));
      }
      return Value::boolean(all);
    });
  }
  return Value::undefined();  // a Python str method outside the subset
}

Value dict_method(const Value& obj, const std::string& name, bool& found) {
  found = kDictAttributes.count(name) != 0;
  if (!found) return Value::undefined();
  if (kDictMutators.count(name)) return Value::undefined("access to attribute '" + name + "' of 'dict' object is unsafe.", true);
  if (name == "get") {
    return bind_method(obj, name, [](const Value& d, const CallArgs& a) {
      a.check_signature("get", {"key", "default"});
      const Value* k = a.get(0, "key");
      if (!k) fail(ErrorKind::runtime, "TypeError: get expected at least 1 argument, got 0", a.pos);
      if (k->kind == Kind::list || k->kind == Kind::dict)
        fail(ErrorKind::runtime, std::string("TypeError: unhashable type: '") + type_name(*k) + "'", a.pos);
      if (const Value* v = d.dict->find(*k)) return *v;
      const Value* dflt = a.get(1, "default");
      return dflt ? *dflt : Value::none();
    });
  }
  if (name == "items" || name == "keys" || name == "values") {
    return bind_method(obj, name, [name](const Value& d, const CallArgs& a) {
      a.check_signature(name, {});
      ValueList out;
      for (const auto& [k, v] : d.dict->items) {
        if (name == "items") out.push_back(Value::make_tuple({k, v}));
        else out.push_back(name == "keys" ? k : v);
      }
      Value view = Value::make_list(std::move(out));
      view.opaque = true;  // dict_items([...]) prints differently from a list
      return view;
    });
  }
  return Value::undefined();
}

Value list_method(const Value& obj, const std::string& name, bool& found) {
  bool is_list = obj.kind == Kind::list;
  found = is_list ? kListAttributes.count(name) != 0 : (name == "count" || name == "index");
  if (!found) return Value::undefined();
  if (kListMutators.count(name)) return Value::undefined("access to attribute '" + name + "' of 'list' object is unsafe.", true);
  if (name == "count" || name == "index") {
    return bind_method(obj, name, [name](const Value& l, const CallArgs& a) {
      a.check_signature(name, {"value"});
      const Value* x = a.get(0, "value");
      if (!x) fail(ErrorKind::runtime, "TypeError: " + name + "() takes exactly one argument (0 given)", a.pos);
      std::int64_t n = 0;
      for (std::size_t k = 0; k < l.list->size(); ++k) {
        if (!py_equal((*l.list)[k], *x)) continue;
        if (name == "index") return Value::integer(static_cast<std::int64_t>(k));
        ++n;
      }
      if (name == "index") fail(ErrorKind::runtime, "ValueError: value is not in list", a.pos);
      return Value::integer(n);
    });
  }
  return Value::undefined();
}

}  // namespace

Value find_method(const Value& obj, const std::string& name, bool& found) {
  found = false;
  if (obj.opaque) {
    found = true;  // views and iterators carry methods of their own types
    return Value::undefined();
  }
  switch (obj.kind) {
    case Kind::string: return str_method(obj, name, found);
    case Kind::dict: return dict_method(obj, name, found);
    case Kind::list:
    case Kind::tuple: return list_method(obj, name, found);
    default: return Value::undefined();
  }
}

}  // namespace algenta::chat
