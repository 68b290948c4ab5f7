#include "chat/utf8.hpp"

#include "chat/template_error.hpp"

namespace algenta::chat {

std::vector<char32_t> decode_utf8(std::string_view text) {
  std::vector<char32_t> out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    int extra = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    if (extra < 0 || i + static_cast<std::size_t>(extra) >= text.size())
      fail(ErrorKind::runtime, "invalid UTF-8 byte at offset " + std::to_string(i));
    char32_t cp = extra == 0 ? c : extra == 1 ? (c & 0x1f) : extra == 2 ? (c & 0x0f) : (c & 0x07);
    for (int k = 1; k <= extra; ++k) {
      auto cc = static_cast<unsigned char>(text[i + k]);
      if ((cc >> 6) != 2) fail(ErrorKind::runtime, "invalid UTF-8 byte at offset " + std::to_string(i + k));
      cp = (cp << 6) | (cc & 0x3f);
    }
    out.push_back(cp);
    i += extra + 1;
  }
  return out;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

std::string encode_utf8(const std::vector<char32_t>& cps, std::size_t begin, std::size_t end) {
  std::string out;
  if (end > cps.size()) end = cps.size();
  for (std::size_t i = begin; i < end; ++i) append_utf8(out, cps[i]);
  return out;
}

bool is_ascii(std::string_view text) {
  for (char c : text)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

std::size_t code_point_count(std::string_view text) {
  std::size_t n = 0;
  for (char c : text)
    if ((static_cast<unsigned char>(c) & 0xc0) != 0x80) ++n;
  return n;
}

bool is_py_space(char32_t cp) {
  switch (cp) {
    case 0x09: case 0x0a: case 0x0b: case 0x0c: case 0x0d: case 0x1c: case 0x1d: case 0x1e:
    case 0x1f: case 0x20: case 0x85: case 0xa0: case 0x1680: case 0x2028: case 0x2029:
    case 0x202f: case 0x205f: case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200a;
  }
}

std::string py_strip(std::string_view text, bool left, bool right) {
  if (is_ascii(text)) {
    std::size_t b = 0, e = text.size();
    if (left)
      while (b < e && is_py_space(static_cast<unsigned char>(text[b]))) ++b;
    if (right)
      while (e > b && is_py_space(static_cast<unsigned char>(text[e - 1]))) --e;
    return std::string(text.substr(b, e - b));
  }
  auto cps = decode_utf8(text);
  std::size_t b = 0, e = cps.size();
  if (left)
    while (b < e && is_py_space(cps[b])) ++b;
  if (right)
    while (e > b && is_py_space(cps[e - 1])) --e;
  return encode_utf8(cps, b, e);
}

}  // namespace algenta::chat
