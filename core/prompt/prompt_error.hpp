// The error ModelText throws for a model directory or a request it cannot
// use: what() names the file (or the request field) and the fact.
#pragma once

#include <stdexcept>

namespace algenta::prompt {

struct PromptError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace algenta::prompt
