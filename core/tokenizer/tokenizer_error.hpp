// The one exception the tokenizer throws: a tokenizer.json it refuses
// (unsupported kind, malformed field, too large) or an input it cannot encode.
#pragma once

#include <stdexcept>
#include <string>

namespace algenta::tokenizer {

struct TokenizerError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace algenta::tokenizer
