#include "chat/text_ops.hpp"

#include <unicode/uchar.h>
#include <unicode/ustring.h>

#include "chat/template_error.hpp"
#include "chat/utf8.hpp"

namespace algenta::chat {

static void require_ascii_case(const std::string& s, const char* what) {
  if (!is_ascii(s)) fail(ErrorKind::unsupported, std::string(what) + " of text with non-ASCII characters");
}

// Python's str.upper()/str.lower(): full Unicode case mapping (ß -> SS, final
// sigma), as ICU's root locale applies it. Characters newer than Unicode 14.0
// (Python 3.11's tables) are refused.
static std::string icu_case(const std::string& s, bool upper) {
  for (char32_t cp : decode_utf8(s)) {
    UVersionInfo age;
    u_charAge(static_cast<UChar32>(cp), age);
    if (age[0] > 14) fail(ErrorKind::unsupported, std::string(upper ? "upper()" : "lower()") + " of a character newer than Unicode 14.0");
  }
  UErrorCode err = U_ZERO_ERROR;
  int32_t len16 = 0;
  u_strFromUTF8(nullptr, 0, &len16, s.data(), static_cast<int32_t>(s.size()), &err);
  std::u16string in(static_cast<std::size_t>(len16), u'\0');
  err = U_ZERO_ERROR;
  u_strFromUTF8(in.data(), len16, nullptr, s.data(), static_cast<int32_t>(s.size()), &err);
  std::u16string out(in.size() * 3 + 4, u'\0');
  err = U_ZERO_ERROR;
  int32_t n = upper ? u_strToUpper(out.data(), static_cast<int32_t>(out.size()), in.data(), len16, "", &err)
                    : u_strToLower(out.data(), static_cast<int32_t>(out.size()), in.data(), len16, "", &err);
  if (U_FAILURE(err)) fail(ErrorKind::unsupported, "Unicode case mapping failed");
  std::string result(static_cast<std::size_t>(n) * 3 + 4, '\0');
  int32_t len8 = 0;
  err = U_ZERO_ERROR;
  u_strToUTF8(result.data(), static_cast<int32_t>(result.size()), &len8, out.data(), n, &err);
  if (U_FAILURE(err)) fail(ErrorKind::unsupported, "Unicode case mapping failed");
  result.resize(static_cast<std::size_t>(len8));
  return result;
}

std::string py_upper(const std::string& s) {
  if (!is_ascii(s)) return icu_case(s, true);
  std::string out = s;
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  return out;
}

std::string py_lower(const std::string& s) {
  if (!is_ascii(s)) return icu_case(s, false);
  std::string out = s;
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return out;
}

std::string py_capitalize(const std::string& s) {
  require_ascii_case(s, "capitalize()");
  std::string out = py_lower(s);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 32);
  return out;
}

std::string py_title(const std::string& s) {
  require_ascii_case(s, "title()");
  std::string out = s;
  bool prev_cased = false;
  for (char& c : out) {
    bool lower = c >= 'a' && c <= 'z', upper = c >= 'A' && c <= 'Z';
    if (lower && !prev_cased) c = static_cast<char>(c - 32);
    else if (upper && prev_cased) c = static_cast<char>(c + 32);
    prev_cased = lower || upper;
  }
  return out;
}

std::vector<std::string> py_split(const std::string& s, const std::optional<std::string>& sep, long long maxsplit,
                                  bool from_right) {
  std::vector<std::string> parts;
  if (sep) {
    if (sep->empty()) fail(ErrorKind::runtime, "ValueError: empty separator");
    if (!from_right) {
      std::size_t start = 0;
      while (maxsplit < 0 || static_cast<long long>(parts.size()) < maxsplit) {
        std::size_t at = s.find(*sep, start);
        if (at == std::string::npos) break;
        parts.push_back(s.substr(start, at - start));
        start = at + sep->size();
      }
      parts.push_back(s.substr(start));
    } else {
      std::size_t end = s.size();
      std::vector<std::string> rev;
      while (maxsplit < 0 || static_cast<long long>(rev.size()) < maxsplit) {
        if (end < sep->size()) break;
        std::size_t at = s.rfind(*sep, end - sep->size());
        if (at == std::string::npos) break;
        rev.push_back(s.substr(at + sep->size(), end - at - sep->size()));
        end = at;
      }
      rev.push_back(s.substr(0, end));
      parts.assign(rev.rbegin(), rev.rend());
    }
    return parts;
  }
  auto cps = decode_utf8(s);
  std::size_t n = cps.size();
  if (!from_right) {
    std::size_t i = 0;
    while (true) {
      while (i < n && is_py_space(cps[i])) ++i;
      if (i >= n) break;
      if (maxsplit >= 0 && static_cast<long long>(parts.size()) == maxsplit) {
        parts.push_back(encode_utf8(cps, i, n));  // the remainder keeps its trailing whitespace
        break;
      }
      std::size_t j = i;
      while (j < n && !is_py_space(cps[j])) ++j;
      parts.push_back(encode_utf8(cps, i, j));
      i = j;
    }
    return parts;
  }
  std::vector<std::string> rev;
  std::size_t e = n;
  while (true) {
    while (e > 0 && is_py_space(cps[e - 1])) --e;
    if (e == 0) break;
    if (maxsplit >= 0 && static_cast<long long>(rev.size()) == maxsplit) {
      rev.push_back(encode_utf8(cps, 0, e));  // the remainder keeps its leading whitespace
      break;
    }
    std::size_t b = e;
    while (b > 0 && !is_py_space(cps[b - 1])) --b;
    rev.push_back(encode_utf8(cps, b, e));
    e = b;
  }
  parts.assign(rev.rbegin(), rev.rend());
  return parts;
}

std::string py_strip_chars(const std::string& s, const std::string& chars, bool left, bool right) {
  auto cps = decode_utf8(s);
  auto set = decode_utf8(chars);
  auto in_set = [&](char32_t c) {
    for (char32_t x : set)
      if (x == c) return true;
    return false;
  };
  std::size_t b = 0, e = cps.size();
  if (left)
    while (b < e && in_set(cps[b])) ++b;
  if (right)
    while (e > b && in_set(cps[e - 1])) --e;
  return encode_utf8(cps, b, e);
}

std::string py_replace(const std::string& s, const std::string& old, const std::string& repl, long long count) {
  std::string out;
  long long done = 0;
  if (old.empty()) {
    auto cps = decode_utf8(s);
    for (std::size_t k = 0; k <= cps.size(); ++k) {
      if (count < 0 || done < count) {
        out += repl;
        ++done;
      }
      if (k < cps.size()) append_utf8(out, cps[k]);
    }
    return out;
  }
  std::size_t start = 0;
  while (count < 0 || done < count) {
    std::size_t at = s.find(old, start);
    if (at == std::string::npos) break;
    out += s.substr(start, at - start);
    out += repl;
    start = at + old.size();
    ++done;
  }
  out += s.substr(start);
  return out;
}

long long py_find(const std::string& s, const std::string& sub, bool from_right) {
  std::size_t at = from_right ? s.rfind(sub) : s.find(sub);
  if (at == std::string::npos) return -1;
  return static_cast<long long>(code_point_count(std::string_view(s).substr(0, at)));
}

long long py_count(const std::string& s, const std::string& sub) {
  if (sub.empty()) return static_cast<long long>(code_point_count(s)) + 1;
  long long n = 0;
  for (std::size_t at = s.find(sub); at != std::string::npos; at = s.find(sub, at + sub.size())) ++n;
  return n;
}

static bool is_line_break(char32_t c) {
  return c == '\n' || c == '\r' || c == 0x0b || c == 0x0c || c == 0x1c || c == 0x1d || c == 0x1e || c == 0x85 ||
         c == 0x2028 || c == 0x2029;
}

std::vector<std::string> py_splitlines(const std::string& s, bool keepends) {
  auto cps = decode_utf8(s);
  std::vector<std::string> lines;
  std::size_t start = 0, i = 0;
  while (i < cps.size()) {
    if (!is_line_break(cps[i])) {
      ++i;
      continue;
    }
    std::size_t eol = i + ((cps[i] == '\r' && i + 1 < cps.size() && cps[i + 1] == '\n') ? 2 : 1);
    lines.push_back(encode_utf8(cps, start, keepends ? eol : i));
    start = i = eol;
  }
  if (start < cps.size()) lines.push_back(encode_utf8(cps, start, cps.size()));
  return lines;
}

}  // namespace algenta::chat
