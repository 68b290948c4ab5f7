#include "tokenizer/unicode_text.hpp"

#include "tokenizer/tokenizer_error.hpp"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

namespace algenta::tokenizer::unicode {

std::string normalize(std::string_view text, Form form) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* normalizer = nullptr;
  switch (form) {
    case Form::nfc: normalizer = icu::Normalizer2::getNFCInstance(status); break;
    case Form::nfd: normalizer = icu::Normalizer2::getNFDInstance(status); break;
    case Form::nfkc: normalizer = icu::Normalizer2::getNFKCInstance(status); break;
    case Form::nfkd: normalizer = icu::Normalizer2::getNFKDInstance(status); break;
  }
  if (U_FAILURE(status) || normalizer == nullptr) {
    throw TokenizerError(std::string("ICU has no normalizer: ") + u_errorName(status));
  }
  const icu::UnicodeString input = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  const icu::UnicodeString output = normalizer->normalize(input, status);
  if (U_FAILURE(status)) {
    throw TokenizerError(std::string("ICU normalization failed: ") + u_errorName(status));
  }
  std::string result;
  output.toUTF8String(result);
  return result;
}

bool is_word_char(char32_t c) {
  const auto cp = static_cast<UChar32>(c);
  if (u_hasBinaryProperty(cp, UCHAR_ALPHABETIC) || u_hasBinaryProperty(cp, UCHAR_JOIN_CONTROL)) return true;
  const auto mask = U_GET_GC_MASK(cp);
  return (mask & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0;
}

bool is_white_space(char32_t c) {
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_WHITE_SPACE);
}

}  // namespace algenta::tokenizer::unicode
