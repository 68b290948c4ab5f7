#include "tokenizer/byte_level_alphabet.hpp"

#include "tokenizer/utf8.hpp"

#include <array>

namespace algenta::tokenizer::byte_level {
namespace {

struct Alphabet {
  std::array<std::string, 256> encoded;
  std::array<char32_t, 256> char_of{};

  Alphabet() {
    std::array<bool, 256> printable{};
    for (int b = '!'; b <= '~'; ++b) printable[b] = true;
    for (int b = 0xA1; b <= 0xAC; ++b) printable[b] = true;
    for (int b = 0xAE; b <= 0xFF; ++b) printable[b] = true;
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      char_of[b] = printable[b] ? static_cast<char32_t>(b) : next++;
      encoded[b] = utf8::encode(char_of[b]);
    }
  }
};

const Alphabet& alphabet() {
  static const Alphabet instance;
  return instance;
}

}  // namespace

std::string to_alphabet(std::string_view text) {
  const Alphabet& a = alphabet();
  std::string out;
  out.reserve(text.size() * 2);
  for (const char c : text) out.append(a.encoded[static_cast<unsigned char>(c)]);
  return out;
}

std::optional<unsigned char> byte_of(char32_t c) {
  // The alphabet is bytes 0x21-0x7E, 0xA1-0xAC, 0xAE-0xFF as themselves and
  // the other 68 bytes as U+0100.. in byte order.
  const Alphabet& a = alphabet();
  if (c < 256) {
    if (a.char_of[c] == c) return static_cast<unsigned char>(c);
    return std::nullopt;
  }
  if (c >= 256 + 68) return std::nullopt;
  for (int b = 0; b < 256; ++b) {
    if (a.char_of[b] == c) return static_cast<unsigned char>(b);
  }
  return std::nullopt;
}

}  // namespace algenta::tokenizer::byte_level
