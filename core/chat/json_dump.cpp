#include "chat/json_dump.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "chat/py_ops.hpp"
#include "chat/template_error.hpp"
#include "chat/utf8.hpp"

namespace algenta::chat {
namespace {

struct Dumper {
  const JsonDumpOptions& opt;
  std::string item_sep, key_sep;
  std::size_t max_depth;
  std::string out;

  void string(const std::string& s) {
    out += '"';
    auto escape_cp = [&](unsigned v) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", v);
      out += buf;
    };
    for (char32_t cp : decode_utf8(s)) {
      switch (cp) {
        case '"': out += "\\\""; continue;
        case '\\': out += "\\\\"; continue;
        case '\n': out += "\\n"; continue;
        case '\r': out += "\\r"; continue;
        case '\t': out += "\\t"; continue;
        case '\b': out += "\\b"; continue;
        case '\f': out += "\\f"; continue;
        default: break;
      }
      if (cp < 0x20) {
        escape_cp(cp);
      } else if (opt.ensure_ascii && cp > 0x7e) {
        if (cp >= 0x10000) {
          char32_t v = cp - 0x10000;
          escape_cp(0xd800 | (v >> 10));
          escape_cp(0xdc00 | (v & 0x3ff));
        } else {
          escape_cp(cp);
        }
      } else {
        append_utf8(out, cp);
      }
    }
    out += '"';
  }

  std::string key_text(const Value& k) {
    switch (k.kind) {
      case Kind::string: return k.str();
      case Kind::boolean: return k.b ? "true" : "false";
      case Kind::none: return "null";
      case Kind::integer: return std::to_string(k.i);
      case Kind::floating: return float_repr(k.f);
      default:
        fail(ErrorKind::runtime, std::string("TypeError: keys must be str, int, float, bool or None, not ") + type_name(k));
    }
  }

  void newline(std::size_t level) {
    if (!opt.indent) return;
    out += '\n';
    for (std::size_t k = 0; k < level; ++k) out += *opt.indent;
  }

  void value(const Value& v, std::size_t level) {
    if (level > max_depth)
      fail(ErrorKind::bound, "tojson nesting deeper than " + std::to_string(max_depth) + " levels");
    if (v.opaque)
      fail(ErrorKind::runtime, std::string("TypeError: Object of type ") + (v.consumed ? "generator" : "view") +
                                   " is not JSON serializable");
    switch (v.kind) {
      case Kind::none: out += "null"; return;
      case Kind::boolean: out += v.b ? "true" : "false"; return;
      case Kind::integer: out += std::to_string(v.i); return;
      case Kind::floating:
        if (std::isnan(v.f)) out += "NaN";
        else if (std::isinf(v.f)) out += v.f < 0 ? "-Infinity" : "Infinity";
        else out += float_repr(v.f);
        return;
      case Kind::string: string(v.str()); return;
      case Kind::list:
      case Kind::tuple: {
        if (v.list->empty()) {
          out += "[]";
          return;
        }
        out += '[';
        for (std::size_t k = 0; k < v.list->size(); ++k) {
          if (k) out += item_sep;
          newline(level + 1);
          value((*v.list)[k], level + 1);
        }
        newline(level);
        out += ']';
        return;
      }
      case Kind::dict: {
        if (v.dict->items.empty()) {
          out += "{}";
          return;
        }
        std::vector<const std::pair<Value, Value>*> items;
        for (const auto& kv : v.dict->items) items.push_back(&kv);
        if (opt.sort_keys)
          std::stable_sort(items.begin(), items.end(),
                           [](auto* a, auto* b) { return py_order(a->first, b->first) < 0; });
        out += '{';
        bool first = true;
        for (const auto* kv : items) {
          if (!first) out += item_sep;
          first = false;
          newline(level + 1);
          string(key_text(kv->first));
          out += key_sep;
          value(kv->second, level + 1);
        }
        newline(level);
        out += '}';
        return;
      }
      default:
        fail(ErrorKind::runtime, std::string("TypeError: Object of type ") + type_name(v) + " is not JSON serializable");
    }
  }
};

}  // namespace

std::string json_dumps(const Value& v, const JsonDumpOptions& options, std::size_t max_depth) {
  Dumper d{options, ", ", ": ", max_depth, {}};
  if (options.indent) d.item_sep = ",";
  if (options.separators) {
    d.item_sep = options.separators->first;
    d.key_sep = options.separators->second;
  }
  d.value(v, 0);
  return std::move(d.out);
}

}  // namespace algenta::chat
