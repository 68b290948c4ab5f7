// UTF-8 helpers with the exact semantics the reference library relies on
// (Rust's str / String::from_utf8_lossy).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace algenta::tokenizer::utf8 {

// Length of the (valid) UTF-8 character starting with `lead`; 1 for a stray byte.
std::size_t char_length(unsigned char lead);

// Decodes the valid character at `text[pos]`; advances pos past it.
char32_t next_char(std::string_view text, std::size_t& pos);

void append(std::string& out, char32_t code_point);
std::string encode(char32_t code_point);

bool is_valid(std::string_view bytes);
// Offset of the first byte that does not begin a valid character, or npos.
std::size_t first_invalid(std::string_view bytes);

// Bytes -> text, each maximal invalid subsequence replaced by U+FFFD,
// exactly as Rust's String::from_utf8_lossy does.
std::string lossy(std::string_view bytes);

// Number of characters (valid UTF-8 assumed).
std::size_t char_count(std::string_view text);

inline constexpr std::string_view replacement_char = "\xEF\xBF\xBD";

}  // namespace algenta::tokenizer::utf8
