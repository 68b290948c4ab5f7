// Unicode facts through ICU: normalization forms and the character classes
// the added-token matcher needs (Rust regex's \w and \s).
#pragma once

#include <string>
#include <string_view>

namespace algenta::tokenizer::unicode {

enum class Form { nfc = 0, nfd = 1, nfkc = 2, nfkd = 3 };

// Normalized as tokenizers does: Unicode 9.0 normalization data.
std::string normalize(std::string_view text, Form form);

// Rust regex \w: Alphabetic, marks, decimal numbers, connector punctuation, join controls.
bool is_word_char(char32_t c);
// Rust regex \s: the White_Space property.
bool is_white_space(char32_t c);

}  // namespace algenta::tokenizer::unicode
