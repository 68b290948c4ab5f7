// Loads a plugin's declared host libraries before the plugin: a plugin
// loaded from a memfd has no usable $ORIGIN, so its NEEDED entries must
// already be resident (the dynamic linker matches them by soname). Each is
// loaded by the absolute path it resolves to in the allowed directories,
// never by a soname the linker would search for itself.
#include <dlfcn.h>

#include "loader/verified_loader.hpp"

namespace algenta::loader {

std::vector<HostLibrary> preload_host_libraries(const std::vector<std::string>& sonames,
                                                const std::vector<std::filesystem::path>& allowed) {
  std::vector<HostLibrary> loaded;
  for (const std::string& soname : sonames) {
    const std::filesystem::path path = resolve_host_library(soname, allowed);
    // Kept loaded for the life of the process, as the plugin is.
    if (::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      const char* why = ::dlerror();
      throw LoadError("declared host library " + soname + " (" + path.string() +
                      ") cannot be loaded: " + (why != nullptr ? why : "unknown dlopen error"));
    }
    loaded.push_back({soname, path});
  }
  return loaded;
}

}  // namespace algenta::loader
