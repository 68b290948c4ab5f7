// Engine switches from the environment that are off unless set to "1": the
// engine log, and options built but not yet defaults (for measuring them on
// a card). Free of the plugin's other headers, so that kernel launchers read
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

}  // namespace algenta::cuda
