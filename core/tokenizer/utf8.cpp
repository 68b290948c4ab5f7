#include "tokenizer/utf8.hpp"

namespace algenta::tokenizer::utf8 {

std::size_t char_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

char32_t next_char(std::string_view text, std::size_t& pos) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  std::size_t length = char_length(lead);
  if (pos + length > text.size()) length = 1;
  char32_t code = length == 1 ? lead : length == 2 ? (lead & 0x1F) : length == 3 ? (lead & 0x0F) : (lead & 0x07);
  for (std::size_t i = 1; i < length; ++i) {
    code = (code << 6) | (static_cast<unsigned char>(text[pos + i]) & 0x3F);
  }
  pos += length;
  return code;
}

void append(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::string encode(char32_t code_point) {
  std::string out;
  append(out, code_point);
  return out;
}

namespace {

// Length of the valid character at bytes[pos], or 0 with `invalid_length`
// set to the length of the maximal invalid prefix (Unicode "maximal subpart").
std::size_t valid_char_at(std::string_view bytes, std::size_t pos, std::size_t& invalid_length) {
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
  const unsigned char lead = at(pos);
  invalid_length = 1;
  if (lead < 0x80) return 1;
  std::size_t need = 0;
  unsigned char low = 0x80, high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 2;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 3;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  for (std::size_t i = 1; i <= need; ++i) {
    if (pos + i >= bytes.size()) {
      invalid_length = i;
      return 0;
    }
    const unsigned char b = at(pos + i);
    const unsigned char lo = i == 1 ? low : 0x80;
    const unsigned char hi = i == 1 ? high : 0xBF;
    if (b < lo || b > hi) {
      invalid_length = i;
      return 0;
    }
  }
  return need + 1;
}

}  // namespace

std::size_t first_invalid(std::string_view bytes) {
  std::size_t pos = 0, invalid = 0;
  while (pos < bytes.size()) {
    const std::size_t length = valid_char_at(bytes, pos, invalid);
    if (length == 0) return pos;
    pos += length;
  }
  return std::string_view::npos;
}

bool is_valid(std::string_view bytes) { return first_invalid(bytes) == std::string_view::npos; }

std::string lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  std::size_t pos = 0, invalid = 0;
  while (pos < bytes.size()) {
    const std::size_t length = valid_char_at(bytes, pos, invalid);
    if (length == 0) {
      out.append(replacement_char);
      pos += invalid;
    } else {
      out.append(bytes.substr(pos, length));
      pos += length;
    }
  }
  return out;
}

std::size_t char_count(std::string_view text) {
  std::size_t count = 0;
  for (std::size_t pos = 0; pos < text.size(); pos += char_length(static_cast<unsigned char>(text[pos]))) {
    ++count;
  }
  return count;
}

}  // namespace algenta::tokenizer::utf8
