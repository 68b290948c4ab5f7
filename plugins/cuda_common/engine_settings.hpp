// Engine settings from the environment: switches that are off unless set to
// "1" (the engine log, and options built but not yet defaults, for measuring
// them on a card) and numbers checked against their range.
#pragma once

#include <cstdlib>
#include <cstring>
#include <string>

#include "plugin_support/plugin_error.hpp"

namespace algenta::cuda {

// Whether the environment sets `name` to exactly "1".
inline bool setting_is_on(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && std::strcmp(value, "1") == 0;
}

// A whole number from the environment in [low, high]; `fallback` when unset.
// Anything else is refused by name and range, never replaced by the default.
inline int setting_number(const char* name, int fallback, int low, int high) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  char* end = nullptr;
  const long number = std::strtol(value, &end, 10);
  if (*end != '\0' || number < low || number > high) {
    throw plugin::StatusError{ALGENTA_STATUS_INVALID_ARGUMENT,
                              std::string(name) + " must be a whole number from " +
                                  std::to_string(low) + " to " + std::to_string(high) +
                                  ", not '" + value + "'"};
  }
  return static_cast<int>(number);
}

}  // namespace algenta::cuda
