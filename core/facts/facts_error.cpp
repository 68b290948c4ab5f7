#include "facts/facts_error.hpp"

#include <utility>

namespace algenta::facts {

FactsError::FactsError(std::string file, std::string fact, std::string message)
    : std::runtime_error(file + ": " + fact + ": " + message),
      file_(std::move(file)),
      fact_(std::move(fact)),
      message_(std::move(message)) {}

}  // namespace algenta::facts
