#include "chat/py_ops.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include <unicode/uchar.h>

#include "chat/template_error.hpp"
#include "chat/utf8.hpp"

namespace algenta::chat {

std::string float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  // sci: [-]d[.ddd]e(+|-)XX
  bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  auto epos = sci.find('e');
  std::string mant = sci.substr(0, epos);
  int exp = std::stoi(sci.substr(epos + 1));
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exp < -4 || exp >= 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char e[16];
    std::snprintf(e, sizeof e, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += e;
  } else if (exp < 0) {
    out = "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
  } else {
    auto point = static_cast<std::size_t>(exp) + 1;
    if (digits.size() <= point) {
      out = digits + std::string(point - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, point) + "." + digits.substr(point);
    }
  }
  return negative ? "-" + out : out;
}

// Python's str.isprintable() for one code point: not in categories Cc, Cf,
// Cs, Co, Cn, Zl, Zp, Zs (space excepted). Python 3.11 carries Unicode 14.0;
// a character ICU says is newer is refused rather than guessed at.
static int printability(char32_t cp) {  // 1 printable, 0 not, -1 unknown
  if (cp == ' ') return 1;
  UVersionInfo age;
  u_charAge(static_cast<UChar32>(cp), age);
  if (age[0] > 14) return -1;
  switch (u_charType(static_cast<UChar32>(cp))) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_SURROGATE:
    case U_PRIVATE_USE_CHAR:
    case U_UNASSIGNED:
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR:
    case U_SPACE_SEPARATOR:
      return 0;
    default:
      return 1;
  }
}

static std::string repr_string(const std::string& s) {
  bool has_single = s.find('\'') != std::string::npos;
  bool has_double = s.find('"') != std::string::npos;
  char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (char32_t cp : decode_utf8(s)) {
    if (cp == static_cast<char32_t>(quote) || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (int p = printability(cp); p == 1) {
      append_utf8(out, cp);
    } else if (p == 0) {
      char buf[16];
      if (cp < 0x100)
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
      else if (cp < 0x10000)
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      else
        std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      char buf[16];
      std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
      fail(ErrorKind::unsupported, std::string("repr() of a string holding ") + buf +
                                       " (a character newer than Unicode 14.0, Python 3.11's tables)");
    }
  }
  out += quote;
  return out;
}

[[noreturn]] static void refuse_opaque(const Value& v) {
  fail(ErrorKind::unsupported, std::string("printing a ") + (v.consumed ? "generator" : "view or iterator") +
                                   " object (Python would print its type and address)");
}

// The containers whose repr is under way on this thread: a container met
// again inside itself prints as Python's reprlib guard prints it ("[...]",
// "(...)", "{...}"), so a value that holds itself (a namespace attribute set
// to a tuple holding the namespace) ends instead of recursing without end.
namespace {
thread_local std::vector<const void*> repr_in_progress;

struct ReprEntry {
  explicit ReprEntry(const void* container) : entered(std::find(repr_in_progress.begin(),
                                                                repr_in_progress.end(),
                                                                container) == repr_in_progress.end()) {
    if (entered) repr_in_progress.push_back(container);
  }
  ~ReprEntry() {
    if (entered) repr_in_progress.pop_back();
  }
  ReprEntry(const ReprEntry&) = delete;
  ReprEntry& operator=(const ReprEntry&) = delete;
  const bool entered;  // false: already in progress further out
};
}  // namespace

std::string py_repr(const Value& v) {
  if (v.opaque) refuse_opaque(v);
  switch (v.kind) {
    case Kind::string: return repr_string(v.str());
    case Kind::undefined: return "Undefined";
    case Kind::list:
    case Kind::tuple: {
      const ReprEntry entry(v.list.get());
      if (!entry.entered) return v.kind == Kind::list ? "[...]" : "(...)";
      std::string out = v.kind == Kind::list ? "[" : "(";
      for (std::size_t k = 0; k < v.list->size(); ++k) {
        if (k) out += ", ";
        out += py_repr((*v.list)[k]);
      }
      if (v.kind == Kind::tuple && v.list->size() == 1) out += ",";
      out += v.kind == Kind::list ? "]" : ")";
      return out;
    }
    case Kind::dict: {
      const ReprEntry entry(v.dict.get());
      if (!entry.entered) return "{...}";
      std::string out = "{";
      bool first = true;
      for (const auto& [k, val] : v.dict->items) {
        if (!first) out += ", ";
        first = false;
        out += py_repr(k) + ": " + py_repr(val);
      }
      return out + "}";
    }
    case Kind::ns: {
      // jinja2 prints a namespace as the repr of its attribute dict.
      const ReprEntry entry(&v.ns->attrs);
      if (!entry.entered) return "<Namespace {...}>";
      std::string out = "<Namespace {";
      bool first = true;
      for (const auto& [k, val] : v.ns->attrs) {
        if (!first) out += ", ";
        first = false;
        out += repr_string(k) + ": " + py_repr(val);
      }
      return out + "}>";
    }
    default: return py_str(v);
  }
}

std::string py_str(const Value& v) {
  if (v.opaque) refuse_opaque(v);
  switch (v.kind) {
    case Kind::undefined: return "";
    case Kind::none: return "None";
    case Kind::boolean: return v.b ? "True" : "False";
    case Kind::integer: return std::to_string(v.i);
    case Kind::floating: return float_repr(v.f);
    case Kind::string: return v.str();
    case Kind::list:
    case Kind::tuple:
    case Kind::dict:
    case Kind::ns: return py_repr(v);
    case Kind::macro:
    case Kind::native:
    case Kind::loop:
      fail(ErrorKind::unsupported, std::string("str() of a ") + type_name(v) + " object");
  }
  return "";
}

bool truthy(const Value& v) {
  if (v.consumed) return true;  // a generator object is always true
  switch (v.kind) {
    case Kind::undefined: return false;
    case Kind::none: return false;
    case Kind::boolean: return v.b;
    case Kind::integer: return v.i != 0;
    case Kind::floating: return v.f != 0;
    case Kind::string: return !v.s->empty();
    case Kind::list:
    case Kind::tuple: return !v.list->empty();
    case Kind::dict: return !v.dict->items.empty();
    default: return true;
  }
}

static bool is_num(const Value& v) {
  return v.kind == Kind::integer || v.kind == Kind::floating || v.kind == Kind::boolean;
}
static double as_double(const Value& v) {
  return v.kind == Kind::floating ? v.f : v.kind == Kind::integer ? static_cast<double>(v.i) : (v.b ? 1.0 : 0.0);
}
static std::int64_t as_int(const Value& v) { return v.kind == Kind::integer ? v.i : (v.b ? 1 : 0); }

bool py_equal(const Value& a, const Value& b) {
  if (a.opaque || b.opaque) return a.list == b.list && a.kind == b.kind && a.opaque == b.opaque;
  if (is_num(a) && is_num(b)) {
    if (a.kind == Kind::floating || b.kind == Kind::floating) return as_double(a) == as_double(b);
    return as_int(a) == as_int(b);
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::undefined:
    case Kind::none: return true;
    case Kind::string: return a.str() == b.str();
    case Kind::list:
    case Kind::tuple: {
      if (a.list == b.list) return true;  // Python compares an object with itself as equal
      if (a.list->size() != b.list->size()) return false;
      for (std::size_t k = 0; k < a.list->size(); ++k)
        if (!py_equal((*a.list)[k], (*b.list)[k])) return false;
      return true;
    }
    case Kind::dict: {
      if (a.dict == b.dict) return true;
      if (a.dict->items.size() != b.dict->items.size()) return false;
      for (const auto& [k, v] : a.dict->items) {
        const Value* other = b.dict->find(k);
        if (!other || !py_equal(v, *other)) return false;
      }
      return true;
    }
    case Kind::ns: return a.ns == b.ns;
    case Kind::macro: return a.macro == b.macro;
    case Kind::native: return a.native == b.native;
    case Kind::loop: return a.loop == b.loop;
    default: return false;
  }
}

void fail_undefined(const Value& v) {
  if (v.unsafe) fail(ErrorKind::runtime, "SecurityError: " + v.undefined_hint());
  fail(ErrorKind::runtime, "UndefinedError: " + (v.undefined_hint().empty() ? std::string("value is undefined")
                                                                           : v.undefined_hint()));
}

void require_defined(const Value& v) {
  if (v.is_undefined()) fail_undefined(v);
}

int py_order(const Value& a, const Value& b) {
  require_defined(a);
  require_defined(b);
  if (is_num(a) && is_num(b)) {
    if (a.kind == Kind::floating || b.kind == Kind::floating) {
      double x = as_double(a), y = as_double(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    auto x = as_int(a), y = as_int(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.kind == Kind::string && b.kind == Kind::string) {
    int c = a.str().compare(b.str());  // UTF-8 byte order is code point order
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  if (a.kind == b.kind && a.is_sequence_like()) {
    for (std::size_t k = 0; k < a.list->size() && k < b.list->size(); ++k) {
      if (py_equal((*a.list)[k], (*b.list)[k])) continue;
      return py_order((*a.list)[k], (*b.list)[k]);
    }
    auto x = a.list->size(), y = b.list->size();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  fail(ErrorKind::runtime, std::string("TypeError: '<' not supported between instances of '") + type_name(a) +
                               "' and '" + type_name(b) + "'");
}

bool py_compare(const std::string& op, const Value& a, const Value& b) {
  // NaN: every ordering is false, as in Python.
  if ((a.kind == Kind::floating && std::isnan(a.f)) || (b.kind == Kind::floating && std::isnan(b.f))) {
    if (is_num(a) && is_num(b)) return false;
  }
  int c = py_order(a, b);
  if (op == "lt") return c < 0;
  if (op == "le") return c <= 0;
  if (op == "gt") return c > 0;
  return c >= 0;
}

[[noreturn]] static void unsupported_operands(const std::string& op, const Value& a, const Value& b) {
  fail(ErrorKind::runtime, "TypeError: unsupported operand type(s) for " + op + ": '" + type_name(a) + "' and '" +
                               type_name(b) + "'");
}

static Value checked_int(__int128 v) {
  if (v > std::numeric_limits<std::int64_t>::max() || v < std::numeric_limits<std::int64_t>::min())
    fail(ErrorKind::unsupported, "integer result outside the 64-bit range");
  return Value::integer(static_cast<std::int64_t>(v));
}

static Value repeat(const Value& seq, std::int64_t times) {
  if (times <= 0) return seq.kind == Kind::string ? Value::string("") : seq.kind == Kind::list ? Value::make_list({}) : Value::make_tuple({});
  std::size_t unit = seq.kind == Kind::string ? seq.s->size() : seq.list->size();
  if (unit != 0 && static_cast<std::uint64_t>(times) > (std::size_t{1} << 26) / unit)
    fail(ErrorKind::bound, "sequence repetition of " + std::to_string(times) + " times exceeds 67108864 elements/bytes");
  if (seq.kind == Kind::string) {
    std::string out;
    for (std::int64_t k = 0; k < times; ++k) out += seq.str();
    return Value::string(std::move(out));
  }
  ValueList out;
  for (std::int64_t k = 0; k < times; ++k) out.insert(out.end(), seq.list->begin(), seq.list->end());
  return seq.kind == Kind::list ? Value::make_list(std::move(out)) : Value::make_tuple(std::move(out));
}

Value py_arith(const std::string& op, const Value& a, const Value& b) {
  if (op == "%" && a.kind == Kind::string)
    fail(ErrorKind::unsupported, "printf-style string formatting ('%' on a str)");
  require_defined(a);
  require_defined(b);
  if (is_num(a) && is_num(b)) {
    bool flt = a.kind == Kind::floating || b.kind == Kind::floating;
    if (op == "/") {
      double y = as_double(b);
      if (y == 0) fail(ErrorKind::runtime, "ZeroDivisionError: division by zero");
      if (!flt) {
        // Python's int / int is correctly rounded; exact for operands below 2**53.
        auto x = as_int(a), yy = as_int(b);
        if (x > (1LL << 53) || x < -(1LL << 53) || yy > (1LL << 53) || yy < -(1LL << 53))
          fail(ErrorKind::unsupported, "true division of integers beyond 2**53");
      }
      return Value::floating(as_double(a) / y);
    }
    if (flt) {
      double x = as_double(a), y = as_double(b);
      if (op == "+") return Value::floating(x + y);
      if (op == "-") return Value::floating(x - y);
      if (op == "*") return Value::floating(x * y);
      if (op == "//" || op == "%") {
        if (y == 0) fail(ErrorKind::runtime, "ZeroDivisionError: float " + std::string(op == "%" ? "modulo" : "floor division") + " by zero");
        // CPython's float_divmod, step for step.
        double mod = std::fmod(x, y);
        double div = (x - mod) / y;
        if (mod != 0) {
          if ((y < 0) != (mod < 0)) {
            mod += y;
            div -= 1.0;
          }
        } else {
          mod = std::copysign(0.0, y);
        }
        if (op == "%") return Value::floating(mod);
        double floordiv;
        if (div != 0) {
          floordiv = std::floor(div);
          if (div - floordiv > 0.5) floordiv += 1.0;
        } else {
          floordiv = std::copysign(0.0, x / y);
        }
        return Value::floating(floordiv);
      }
      if (op == "**") {
        if (x == 0 && y < 0) fail(ErrorKind::runtime, "ZeroDivisionError: 0.0 cannot be raised to a negative power");
        if (x < 0 && y != std::floor(y)) fail(ErrorKind::unsupported, "negative float to a fractional power (complex result)");
        return Value::floating(std::pow(x, y));
      }
    } else {
      __int128 x = as_int(a), y = as_int(b);
      if (op == "+") return checked_int(x + y);
      if (op == "-") return checked_int(x - y);
      if (op == "*") return checked_int(x * y);
      if (op == "//" || op == "%") {
        if (y == 0) fail(ErrorKind::runtime, std::string("ZeroDivisionError: integer ") + (op == "%" ? "modulo" : "division or modulo") + " by zero");
        __int128 q = x / y, r = x % y;
        if (r != 0 && ((r < 0) != (y < 0))) {
          q -= 1;
          r += y;
        }
        return checked_int(op == "%" ? r : q);
      }
      if (op == "**") {
        if (y < 0) {
          if (x == 0) fail(ErrorKind::runtime, "ZeroDivisionError: 0.0 cannot be raised to a negative power");
          return Value::floating(std::pow(static_cast<double>(x), static_cast<double>(y)));
        }
        __int128 result = 1;
        for (__int128 k = 0; k < y; ++k) {
          result *= x;
          if (result > std::numeric_limits<std::int64_t>::max() || result < std::numeric_limits<std::int64_t>::min())
            fail(ErrorKind::unsupported, "integer result outside the 64-bit range");
          if (result == 0 || result == 1) break;
        }
        if (result == -1 && (y % 2) == 0) result = 1;
        return checked_int(result);
      }
    }
  }
  if (op == "+") {
    if (a.kind == Kind::string && b.kind == Kind::string) return Value::string(a.str() + b.str());
    if (a.kind == b.kind && a.is_sequence_like()) {
      ValueList out(*a.list);
      out.insert(out.end(), b.list->begin(), b.list->end());
      return a.kind == Kind::list ? Value::make_list(std::move(out)) : Value::make_tuple(std::move(out));
    }
    if (a.kind == Kind::string)
      fail(ErrorKind::runtime, std::string("TypeError: can only concatenate str (not \"") + type_name(b) + "\") to str");
    if (a.kind == Kind::list)
      fail(ErrorKind::runtime, std::string("TypeError: can only concatenate list (not \"") + type_name(b) + "\") to list");
  }
  if (op == "*") {
    bool a_seq = a.kind == Kind::string || a.is_sequence_like();
    bool b_seq = b.kind == Kind::string || b.is_sequence_like();
    if (a_seq && (b.kind == Kind::integer || b.kind == Kind::boolean)) return repeat(a, as_int(b));
    if (b_seq && (a.kind == Kind::integer || a.kind == Kind::boolean)) return repeat(b, as_int(a));
  }
  if (op == "%" && a.kind == Kind::string)
    fail(ErrorKind::unsupported, "printf-style string formatting ('%' on a str)");
  unsupported_operands(op, a, b);
}

Value py_negate(const Value& v, bool negative) {
  require_defined(v);
  if (v.kind == Kind::floating) return Value::floating(negative ? -v.f : v.f);
  if (v.kind == Kind::integer || v.kind == Kind::boolean) return negative ? checked_int(-static_cast<__int128>(as_int(v))) : Value::integer(as_int(v));
  fail(ErrorKind::runtime, std::string("TypeError: bad operand type for unary ") + (negative ? "-" : "+") + ": '" +
                               type_name(v) + "'");
}

std::size_t py_len(const Value& v) {
  if (v.consumed) fail(ErrorKind::runtime, "TypeError: object of type 'generator' has no len()");
  switch (v.kind) {
    case Kind::undefined: return 0;
    case Kind::string: return code_point_count(v.str());
    case Kind::list:
    case Kind::tuple: return v.list->size();
    case Kind::dict: return v.dict->items.size();
    default:
      fail(ErrorKind::runtime, std::string("TypeError: object of type '") + type_name(v) + "' has no len()");
  }
}

ValueList py_iterate(const Value& v) {
  if (v.consumed) {  // a generator yields each item once
    std::size_t from = std::min(*v.consumed, v.list->size());
    *v.consumed = v.list->size();
    return ValueList(v.list->begin() + static_cast<std::ptrdiff_t>(from), v.list->end());
  }
  switch (v.kind) {
    case Kind::undefined: return {};  // Undefined iterates as empty, sandbox refusals too
    case Kind::string: {
      ValueList out;
      for (char32_t cp : decode_utf8(v.str())) {
        std::string one;
        append_utf8(one, cp);
        out.push_back(Value::string(std::move(one)));
      }
      return out;
    }
    case Kind::list:
    case Kind::tuple: return *v.list;
    case Kind::dict: {
      ValueList out;
      for (const auto& kv : v.dict->items) out.push_back(kv.first);
      return out;
    }
    default: fail(ErrorKind::runtime, std::string("TypeError: '") + type_name(v) + "' object is not iterable");
  }
}

bool py_contains(const Value& container, const Value& item) {
  switch (container.kind) {
    case Kind::string:
      if (item.kind != Kind::string)
        fail(ErrorKind::runtime, std::string("TypeError: 'in <string>' requires string as left operand, not ") + type_name(item));
      return container.str().find(item.str()) != std::string::npos;
    case Kind::list:
    case Kind::tuple:
      if (container.consumed) {  // `in` runs a generator up to the first match
        while (*container.consumed < container.list->size())
          if (py_equal((*container.list)[(*container.consumed)++], item)) return true;
        return false;
      }
      for (const auto& v : *container.list)
        if (py_equal(v, item)) return true;
      return false;
    case Kind::dict:
      if (item.kind == Kind::list || item.kind == Kind::dict)
        fail(ErrorKind::runtime, std::string("TypeError: unhashable type: '") + type_name(item) + "'");
      return container.dict->find(item) != nullptr;
    case Kind::undefined: return false;
    default:
      fail(ErrorKind::runtime, std::string("TypeError: argument of type '") + type_name(container) + "' is not iterable");
  }
}

}  // namespace algenta::chat
