// GPT-2's reversible byte <-> printable character table (bytes_to_unicode).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace algenta::tokenizer::byte_level {

// Every byte of `text` as its alphabet character, UTF-8 encoded.
std::string to_alphabet(std::string_view text);

// The byte a character stands for, if it is in the alphabet.
std::optional<unsigned char> byte_of(char32_t c);

}  // namespace algenta::tokenizer::byte_level
