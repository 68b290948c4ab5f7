#include "tokenizer/unicode_text.hpp"

#include "tokenizer/tokenizer_error.hpp"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/uniset.h>
#include <unicode/unistr.h>

#include <memory>

namespace algenta::tokenizer::unicode {
namespace {

// tokenizers normalizes with the unicode-normalization-alignments crate,
// whose tables are Unicode 9.0: a character assigned later is left alone and
// (a starter to that crate) ends the span around it. ICU does the same when
// normalization is filtered to the characters of Unicode 9.0; decompositions
// and combining classes of older characters never change (Unicode's
// normalization stability policy), so the results are the crate's.
constexpr const char* normalization_characters = "[:age=9.0:]";

struct FilteredForms {
  std::unique_ptr<icu::UnicodeSet> characters;
  std::unique_ptr<icu::FilteredNormalizer2> forms[4];
  std::string error;

  FilteredForms() {
    UErrorCode status = U_ZERO_ERROR;
    characters = std::make_unique<icu::UnicodeSet>(icu::UnicodeString(normalization_characters, -1, US_INV), status);
    const icu::Normalizer2* base[4] = {icu::Normalizer2::getNFCInstance(status), icu::Normalizer2::getNFDInstance(status),
                                       icu::Normalizer2::getNFKCInstance(status), icu::Normalizer2::getNFKDInstance(status)};
    if (U_FAILURE(status)) {
      error = u_errorName(status);
      return;
    }
    characters->freeze();
    for (int i = 0; i < 4; ++i) forms[i] = std::make_unique<icu::FilteredNormalizer2>(*base[i], *characters);
  }
};

const icu::Normalizer2& normalizer_for(Form form) {
  static const FilteredForms filtered;
  if (!filtered.error.empty()) throw TokenizerError("ICU has no normalizer: " + filtered.error);
  return *filtered.forms[static_cast<int>(form)];
}

}  // namespace

std::string normalize(std::string_view text, Form form) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* normalizer = &normalizer_for(form);
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
