// Loads a plugin's declared host libraries by soname before the plugin: a
// plugin loaded from a memfd has no usable $ORIGIN, so its NEEDED entries
// must already be resident (the dynamic linker matches them by soname).
#include <dlfcn.h>

#include "loader/verified_loader.hpp"

namespace algenta::loader {

void preload_host_libraries(const std::vector<std::string>& sonames) {
  for (const std::string& soname : sonames) {
    if (soname.find('/') != std::string::npos) {
      throw LoadError("declared host library '" + soname +
                      "' is a path; only sonames are allowed (e.g. libcublas.so.13)");
    }
    // Kept loaded for the life of the process, as the plugin is.
    if (::dlopen(soname.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      const char* why = ::dlerror();
      throw LoadError("declared host library " + soname + " cannot be loaded: " +
                      (why != nullptr ? why : "unknown dlopen error"));
    }
  }
}

}  // namespace algenta::loader
