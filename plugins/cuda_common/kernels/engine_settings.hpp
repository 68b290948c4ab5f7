// Engine switches from the environment: off unless set to "1" (the engine
// log, and options built but not yet defaults, for measuring them on a
// card), or on unless set to "0" (defaults that can be turned off to
// compare). Free of the plugin's other headers, so that kernel launchers read
// their switches through it too.
#pragma once

#include <cstdlib>
#include <cstring>

namespace algenta::cuda {

// Whether the environment sets `name` to exactly "1".
inline bool setting_is_on(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && std::strcmp(value, "1") == 0;
}

// Whether the environment leaves `name` unset or set to anything but "0".
inline bool setting_is_not_off(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr || std::strcmp(value, "0") != 0;
}

}  // namespace algenta::cuda
