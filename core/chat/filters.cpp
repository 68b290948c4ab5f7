// jinja2's filters as jinja2 3.1 defines them (autoescape off), with
// transformers' own tojson.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "chat/json_dump.hpp"
#include "chat/parser.hpp"
#include "chat/py_ops.hpp"
#include "chat/renderer.hpp"
#include "chat/template_error.hpp"
#include "chat/text_ops.hpp"
#include "chat/utf8.hpp"

namespace algenta::chat {
namespace {

// jinja2's soft_str: str() of anything, Undefined -> "".
std::string soft_str(const Value& v) {
  return py_str(v);
}

Value generator(ValueList items) {
  Value v = Value::make_list(std::move(items));
  v.opaque = true;
  v.consumed = std::make_shared<std::size_t>(0);
  return v;
}

// jinja2's make_attrgetter: "a.b.0" looked up item by item.
Value attribute_of(Renderer& r, const Value& item, const Value& attribute, SourcePos pos) {
  if (attribute.kind == Kind::integer) return r.getitem(item, attribute, pos);
  if (attribute.kind != Kind::string) fail(ErrorKind::unsupported, "attribute argument that is not a string or integer", pos);
  Value cur = item;
  std::size_t start = 0;
  const std::string& path = attribute.str();
  while (true) {
    std::size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    bool numeric = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    cur = r.getitem(cur, numeric ? Value::integer(std::atoll(part.c_str())) : Value::string(part), pos);
    if (dot == std::string::npos) return cur;
    start = dot + 1;
  }
}

// select/reject/selectattr/rejectattr: (attribute?) test-name args...
Value select_like(Renderer& r, const Value& seq, const CallArgs& a, bool with_attr, bool keep_when) {
  if (!truthy(seq)) return generator({});  // jinja2 only looks at a true value
  std::size_t next = 0;
  Value attribute;
  if (with_attr) {
    if (a.positional.empty()) fail(ErrorKind::runtime, "TypeError: missing attribute argument", a.pos);
    attribute = a.positional[next++];
  }
  if (!a.keywords.empty()) fail(ErrorKind::unsupported, "keyword arguments to select/reject filters", a.pos);
  std::string test;
  CallArgs test_args;
  test_args.pos = a.pos;
  if (next < a.positional.size()) {
    const Value& t = a.positional[next++];
    if (t.kind != Kind::string) fail(ErrorKind::runtime, "TypeError: test name must be a string", a.pos);
    test = t.str();
    if (!is_supported_test(test)) fail(ErrorKind::unsupported, "the '" + test + "' test (in a select filter)", a.pos);
    for (; next < a.positional.size(); ++next) test_args.positional.push_back(a.positional[next]);
  }
  ValueList out;
  for (const auto& item : py_iterate(seq)) {
    Value probe = with_attr ? attribute_of(r, item, attribute, a.pos) : item;
    bool hit = test.empty() ? truthy(probe) : r.apply_test(test, probe, test_args);
    if (hit == keep_when) out.push_back(item);
  }
  return generator(std::move(out));
}

Value do_map(Renderer& r, const Value& seq, const CallArgs& a) {
  if (!truthy(seq)) return generator({});  // jinja2 only looks at a true value
  ValueList out;
  if (a.positional.empty()) {
    const Value* attribute = nullptr;
    const Value* dflt = nullptr;
    for (const auto& [k, v] : a.keywords) {
      if (k == "attribute") attribute = &v;
      else if (k == "default") dflt = &v;
      else fail(ErrorKind::unsupported, "map() keyword '" + k + "'", a.pos);
    }
    if (!attribute) fail(ErrorKind::runtime, "FilterArgumentError: map requires a filter argument", a.pos);
    for (const auto& item : py_iterate(seq)) {
      Value v = attribute_of(r, item, *attribute, a.pos);
      if (v.is_undefined() && dflt) v = *dflt;
      out.push_back(v);
    }
    return generator(std::move(out));
  }
  const Value& f = a.positional[0];
  if (f.kind != Kind::string) fail(ErrorKind::runtime, "TypeError: filter name must be a string", a.pos);
  if (!is_supported_filter(f.str())) fail(ErrorKind::unsupported, "the '" + f.str() + "' filter (in map)", a.pos);
  CallArgs rest;
  rest.pos = a.pos;
  rest.positional.assign(a.positional.begin() + 1, a.positional.end());
  rest.keywords = a.keywords;
  for (const auto& item : py_iterate(seq)) out.push_back(r.apply_filter(f.str(), item, rest));
  return generator(std::move(out));
}

Value do_tojson(const Value& v, const CallArgs& a, std::size_t max_depth) {
  // transformers: tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)
  a.check_signature("tojson", {"ensure_ascii", "indent", "separators", "sort_keys"});
  JsonDumpOptions o;
  if (const Value* e = a.get(0, "ensure_ascii")) o.ensure_ascii = truthy(*e);
  if (const Value* i = a.get(1, "indent")) {
    if (i->kind == Kind::integer || i->kind == Kind::boolean) {
      std::int64_t n = i->kind == Kind::integer ? i->i : i->b;
      if (n > 1024) fail(ErrorKind::bound, "tojson indent " + std::to_string(n) + " exceeds 1024", a.pos);
      o.indent = std::string(n > 0 ? static_cast<std::size_t>(n) : 0, ' ');
    } else if (i->kind == Kind::string) {
      o.indent = i->str();
    } else if (!i->is_none()) {
      fail(ErrorKind::unsupported, std::string("tojson indent of type ") + type_name(*i), a.pos);
    }
  }
  if (const Value* s = a.get(2, "separators")) {
    if (!s->is_none()) {
      if (!s->is_sequence_like() || s->list->size() != 2 || (*s->list)[0].kind != Kind::string ||
          (*s->list)[1].kind != Kind::string)
        fail(ErrorKind::unsupported, "tojson separators other than two strings", a.pos);
      o.separators = std::make_pair((*s->list)[0].str(), (*s->list)[1].str());
    }
  }
  if (const Value* k = a.get(3, "sort_keys")) o.sort_keys = truthy(*k);
  return Value::string(json_dumps(v, o, max_depth));
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

// Python's float(str): optional whitespace, sign, digits with underscores, inf/nan.
bool parse_python_float(const std::string& text, double& out) {
  std::string s = py_strip(text, true, true);
  std::string clean;
  for (std::size_t k = 0; k < s.size(); ++k) {
    char c = s[k];
    if (c == '_') {
      bool ok = k > 0 && k + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[k - 1])) &&
                std::isdigit(static_cast<unsigned char>(s[k + 1]));
      if (!ok) return false;
      continue;
    }
    clean += c;
  }
  if (clean.empty()) return false;
  std::string lower;
  for (char c : clean) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string body = lower[0] == '+' || lower[0] == '-' ? lower.substr(1) : lower;
  if (body == "inf" || body == "infinity" || body == "nan") {
    double v = body == "nan" ? NAN : INFINITY;
    out = lower[0] == '-' ? -v : v;
    return true;
  }
  for (char c : body)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == '+' || c == '-')) return false;
  char* end = nullptr;
  out = std::strtod(clean.c_str(), &end);
  return end && *end == '\0' && end != clean.c_str();
}

Value do_int(const Value& v, const CallArgs& a) {
  a.check_signature("int", {"default", "base"});
  Value dflt = a.get(0, "default") ? *a.get(0, "default") : Value::integer(0);
  if (const Value* b = a.get(1, "base"))
    if (!(b->kind == Kind::integer && b->i == 10)) fail(ErrorKind::unsupported, "int filter with a base other than 10", a.pos);
  switch (v.kind) {
    case Kind::integer: return v;
    case Kind::boolean: return Value::integer(v.b);
    case Kind::floating:
      if (std::isnan(v.f) || std::isinf(v.f)) fail(ErrorKind::runtime, "cannot convert float NaN or infinity to integer", a.pos);
      if (std::fabs(v.f) >= 9.2e18) fail(ErrorKind::unsupported, "integer result outside the 64-bit range", a.pos);
      return Value::integer(static_cast<std::int64_t>(v.f));
    case Kind::string: {
      std::string s = py_strip(v.str(), true, true);
      std::string digits;
      bool ok = !s.empty();
      for (std::size_t k = 0; k < s.size() && ok; ++k) {
        char c = s[k];
        if ((c == '+' || c == '-') && k == 0) digits += c;
        else if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
        else if (c == '_' && k > 0 && std::isdigit(static_cast<unsigned char>(s[k - 1])) && k + 1 < s.size() &&
                 std::isdigit(static_cast<unsigned char>(s[k + 1]))) {}
        else ok = false;
      }
      if (ok && digits != "+" && digits != "-") {
        errno = 0;
        long long n = std::strtoll(digits.c_str(), nullptr, 10);
        if (errno == ERANGE) fail(ErrorKind::unsupported, "integer result outside the 64-bit range", a.pos);
        return Value::integer(n);
      }
      double f;
      if (parse_python_float(v.str(), f)) {
        if (std::isnan(f) || std::isinf(f)) fail(ErrorKind::runtime, "cannot convert float NaN or infinity to integer", a.pos);
        if (std::fabs(f) >= 9.2e18) fail(ErrorKind::unsupported, "integer result outside the 64-bit range", a.pos);
        return Value::integer(static_cast<std::int64_t>(f));
      }
      return dflt;
    }
    case Kind::undefined: fail_undefined(v);
    default: return dflt;
  }
}

Value do_float(const Value& v, const CallArgs& a) {
  a.check_signature("float", {"default"});
  Value dflt = a.get(0, "default") ? *a.get(0, "default") : Value::floating(0.0);
  switch (v.kind) {
    case Kind::floating: return v;
    case Kind::integer: return Value::floating(static_cast<double>(v.i));
    case Kind::boolean: return Value::floating(v.b ? 1.0 : 0.0);
    case Kind::string: {
      double f;
      return parse_python_float(v.str(), f) ? Value::floating(f) : dflt;
    }
    case Kind::undefined: fail_undefined(v);
    default: return dflt;
  }
}

// Sort key as jinja2's ignore_case: strings lowered.
Value sort_key(const Value& v, bool case_sensitive) {
  if (!case_sensitive && v.kind == Kind::string) return Value::string(py_lower(v.str()));
  return v;
}

Value do_indent(const Value& v, const CallArgs& a) {
  a.check_signature("indent", {"width", "first", "blank"});
  if (v.kind != Kind::string) {
    if (v.is_undefined()) fail_undefined(v);
    fail(ErrorKind::runtime, std::string("TypeError: unsupported operand type(s) for +=: '") + type_name(v) + "' and 'str'", a.pos);
  }
  if (v.markup) fail(ErrorKind::unsupported, "indent of a Markup string", a.pos);
  std::string indention = "    ";
  if (const Value* w = a.get(0, "width")) {
    if (w->kind == Kind::string) indention = w->str();
    else if (w->kind == Kind::integer) indention = std::string(w->i > 0 ? static_cast<std::size_t>(std::min<std::int64_t>(w->i, 1024)) : 0, ' ');
    else fail(ErrorKind::unsupported, "indent width of this type", a.pos);
  }
  bool first = a.get(1, "first") && truthy(*a.get(1, "first"));
  bool blank = a.get(2, "blank") && truthy(*a.get(2, "blank"));
  std::vector<std::string> lines = py_splitlines(v.str() + "\n", false);
  std::string rv;
  if (blank) {
    for (std::size_t k = 0; k < lines.size(); ++k) {
      if (k) rv += "\n" + indention;
      rv += lines[k];
    }
  } else {
    rv = lines.empty() ? "" : lines[0];
    if (lines.size() > 1) {
      rv += "\n";
      for (std::size_t k = 1; k < lines.size(); ++k) {
        if (k > 1) rv += "\n";
        if (!lines[k].empty()) rv += indention;
        rv += lines[k];
      }
    }
  }
  if (first) rv = indention + rv;
  return Value::string(std::move(rv));
}

}  // namespace

Value run_filter(Renderer& r, const std::string& name, const Value& v, const CallArgs& a) {
  auto sig = [&](std::vector<std::string> names) { a.check_signature(name, names); };
  if (name == "length" || name == "count") return sig({}), Value::integer(static_cast<std::int64_t>(py_len(v)));
  if (name == "default" || name == "d") {
    sig({"default_value", "boolean"});
    Value dflt = a.get(0, "default_value") ? *a.get(0, "default_value") : Value::string("");
    bool boolean = a.get(1, "boolean") && truthy(*a.get(1, "boolean"));
    if (v.is_undefined() || (boolean && !truthy(v))) return dflt;
    return v;
  }
  if (name == "string") return sig({}), Value::string(soft_str(v));
  if (name == "trim") {
    sig({"chars"});
    const Value* chars = a.get(0, "chars");
    std::string s = soft_str(v);
    if (chars && !chars->is_none()) {
      if (chars->kind != Kind::string) fail(ErrorKind::runtime, "TypeError: strip arg must be None or str", a.pos);
      return Value::string(py_strip_chars(s, chars->str(), true, true));
    }
    return Value::string(py_strip(s, true, true));
  }
  if (name == "upper") return sig({}), Value::string(py_upper(soft_str(v)));
  if (name == "lower") return sig({}), Value::string(py_lower(soft_str(v)));
  if (name == "capitalize") return sig({}), Value::string(py_capitalize(soft_str(v)));
  if (name == "title") {
    sig({});
    // jinja2: words begin after runs of [-\s({\[<]
    std::string s = soft_str(v);
    if (!is_ascii(s)) fail(ErrorKind::unsupported, "title of text with non-ASCII characters", a.pos);
    std::string out;
    bool at_start = true;
    for (char c : s) {
      bool sep = c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || is_py_space(static_cast<unsigned char>(c));
      if (sep) {
        out += c;
        at_start = true;
      } else if (at_start) {
        out += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
        at_start = false;
      } else {
        out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
      }
    }
    return Value::string(out);
  }
  if (name == "replace") {
    sig({"old", "new", "count"});
    const Value* o = a.get(0, "old");
    const Value* n = a.get(1, "new");
    if (!o || !n) fail(ErrorKind::runtime, "TypeError: replace() missing arguments", a.pos);
    if (v.markup) fail(ErrorKind::unsupported, "replace on a Markup string", a.pos);
    const Value* c = a.get(2, "count");
    long long count = -1;
    if (c && !c->is_none()) {
      if (c->kind != Kind::integer) fail(ErrorKind::runtime, "TypeError: count must be an integer", a.pos);
      count = c->i;
    }
    return Value::string(py_replace(soft_str(v), soft_str(*o), soft_str(*n), count));
  }
  if (name == "join") {
    sig({"d", "attribute"});
    std::string sep = a.get(0, "d") ? soft_str(*a.get(0, "d")) : "";
    const Value* attribute = a.get(1, "attribute");
    std::string out;
    bool first = true;
    for (const auto& item : py_iterate(v)) {
      if (!first) out += sep;
      first = false;
      out += soft_str(attribute && !attribute->is_none() ? attribute_of(r, item, *attribute, a.pos) : item);
    }
    return Value::string(std::move(out));
  }
  if (name == "first") {
    sig({});
    if (v.consumed) {  // next() takes one item; the rest stays for later
      if (*v.consumed >= v.list->size()) return Value::undefined("No first item, sequence was empty.");
      return (*v.list)[(*v.consumed)++];
    }
    ValueList items = py_iterate(v);
    return items.empty() ? Value::undefined("No first item, sequence was empty.") : items.front();
  }
  if (name == "last") {
    sig({});
    if (v.consumed) fail(ErrorKind::runtime, "TypeError: 'generator' object is not reversible", a.pos);
    ValueList items = py_iterate(v);
    return items.empty() ? Value::undefined("No last item, sequence was empty.") : items.back();
  }
  if (name == "list") return sig({}), Value::make_list(py_iterate(v));
  if (name == "reverse") {
    sig({});
    if (v.kind == Kind::string) {
      auto cps = decode_utf8(v.str());
      std::reverse(cps.begin(), cps.end());
      return Value::string(encode_utf8(cps));
    }
    bool from_generator = v.consumed != nullptr;
    ValueList items = py_iterate(v);
    std::reverse(items.begin(), items.end());
    // reversed() of a sequence is an iterator; a generator cannot be reversed,
    // so jinja2 falls back to a list.
    return from_generator ? Value::make_list(std::move(items)) : generator(std::move(items));
  }
  if (name == "items") {
    sig({});
    if (v.is_undefined()) return generator({});
    if (v.kind != Kind::dict || v.opaque) fail(ErrorKind::runtime, "TypeError: Can only get item pairs from a mapping.", a.pos);
    ValueList out;
    for (const auto& [k, val] : v.dict->items) out.push_back(Value::make_tuple({k, val}));
    return generator(std::move(out));  // iter(value.items())
  }
  if (name == "dictsort") {
    sig({"case_sensitive", "by", "reverse"});
    if (v.kind != Kind::dict) fail(ErrorKind::runtime, "TypeError: dictsort needs a mapping", a.pos);
    bool cs = a.get(0, "case_sensitive") && truthy(*a.get(0, "case_sensitive"));
    std::string by = a.get(1, "by") ? soft_str(*a.get(1, "by")) : "key";
    bool rev = a.get(2, "reverse") && truthy(*a.get(2, "reverse"));
    if (by != "key" && by != "value") fail(ErrorKind::runtime, "FilterArgumentError: You can only sort by either \"key\" or \"value\"", a.pos);
    std::vector<std::pair<Value, Value>> items = v.dict->items;
    std::stable_sort(items.begin(), items.end(), [&](const auto& x, const auto& y) {
      const Value& p = by == "key" ? x.first : x.second;
      const Value& q = by == "key" ? y.first : y.second;
      int c = py_order(sort_key(p, cs), sort_key(q, cs));
      return rev ? c > 0 : c < 0;
    });
    ValueList out;
    for (auto& [k, val] : items) out.push_back(Value::make_tuple({k, val}));
    return Value::make_list(std::move(out));
  }
  if (name == "sort") {
    sig({"reverse", "case_sensitive", "attribute"});
    bool rev = a.get(0, "reverse") && truthy(*a.get(0, "reverse"));
    bool cs = a.get(1, "case_sensitive") && truthy(*a.get(1, "case_sensitive"));
    const Value* attribute = a.get(2, "attribute");
    ValueList items = py_iterate(v);
    auto key = [&](const Value& item) {
      return sort_key(attribute && !attribute->is_none() ? attribute_of(r, item, *attribute, a.pos) : item, cs);
    };
    std::stable_sort(items.begin(), items.end(), [&](const Value& x, const Value& y) {
      int c = py_order(key(x), key(y));
      return rev ? c > 0 : c < 0;
    });
    return Value::make_list(std::move(items));
  }
  if (name == "unique") {
    sig({"case_sensitive", "attribute"});
    bool cs = a.get(0, "case_sensitive") && truthy(*a.get(0, "case_sensitive"));
    const Value* attribute = a.get(1, "attribute");
    ValueList seen, out;
    for (const auto& item : py_iterate(v)) {
      Value k = sort_key(attribute && !attribute->is_none() ? attribute_of(r, item, *attribute, a.pos) : item, cs);
      if (k.kind == Kind::list || k.kind == Kind::dict)
        fail(ErrorKind::runtime, std::string("TypeError: unhashable type: '") + type_name(k) + "'", a.pos);
      bool dup = false;
      for (const auto& s : seen) dup = dup || py_equal(s, k);
      if (dup) continue;
      seen.push_back(k);
      out.push_back(item);
    }
    return generator(std::move(out));
  }
  if (name == "int") return do_int(v, a);
  if (name == "float") return do_float(v, a);
  if (name == "abs") {
    sig({});
    require_defined(v);
    if (v.kind == Kind::floating) return Value::floating(std::fabs(v.f));
    if (v.kind == Kind::integer || v.kind == Kind::boolean) {
      std::int64_t i = v.kind == Kind::integer ? v.i : v.b;
      return py_negate(v, i < 0);
    }
    fail(ErrorKind::runtime, std::string("TypeError: bad operand type for abs(): '") + type_name(v) + "'", a.pos);
  }
  if (name == "round") {
    sig({"precision", "method"});
    std::int64_t precision = 0;
    if (const Value* p = a.get(0, "precision")) {
      if (p->kind != Kind::integer) fail(ErrorKind::unsupported, "round precision that is not an integer", a.pos);
      precision = p->i;
    }
    std::string method = a.get(1, "method") ? soft_str(*a.get(1, "method")) : "common";
    if (method != "common" && method != "floor" && method != "ceil")
      fail(ErrorKind::runtime, "FilterArgumentError: method must be common, ceil or floor", a.pos);
    if (precision != 0) fail(ErrorKind::unsupported, "round with a precision other than 0", a.pos);
    require_defined(v);
    if (v.kind == Kind::integer || v.kind == Kind::boolean) {
      if (method == "common") return Value::integer(v.kind == Kind::integer ? v.i : v.b);
      return Value::floating(static_cast<double>(v.kind == Kind::integer ? v.i : v.b));
    }
    if (v.kind != Kind::floating) fail(ErrorKind::runtime, std::string("TypeError: type ") + type_name(v) + " doesn't define __round__ method", a.pos);
    if (method == "floor") return Value::floating(std::floor(v.f));
    if (method == "ceil") return Value::floating(std::ceil(v.f));
    return Value::floating(std::nearbyint(v.f));  // round-half-even, as Python's round(x, 0)
  }
  if (name == "tojson") return do_tojson(v, a, r.options().limits.max_nesting);
  if (name == "safe") {
    sig({});
    Value out = Value::string(soft_str(v));
    out.markup = true;
    return out;
  }
  if (name == "escape" || name == "e") {
    sig({});
    if (v.markup) return v;
    Value out = Value::string(html_escape(soft_str(v)));
    out.markup = true;
    return out;
  }
  if (name == "indent") return do_indent(v, a);
  if (name == "wordcount") {
    sig({});
    std::string s = soft_str(v);
    if (!is_ascii(s)) fail(ErrorKind::unsupported, "wordcount of text with non-ASCII characters", a.pos);
    std::int64_t n = 0;
    bool in_word = false;
    for (char c : s) {
      bool w = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      if (w && !in_word) ++n;
      in_word = w;
    }
    return Value::integer(n);
  }
  if (name == "select") return select_like(r, v, a, false, true);
  if (name == "reject") return select_like(r, v, a, false, false);
  if (name == "selectattr") return select_like(r, v, a, true, true);
  if (name == "rejectattr") return select_like(r, v, a, true, false);
  if (name == "map") return do_map(r, v, a);
  // Only an unknown name in an if-branch gets here (jinja2 fails it when it runs).
  fail(ErrorKind::runtime, "TemplateRuntimeError: No filter named '" + name + "' found.", a.pos);
}

}  // namespace algenta::chat
