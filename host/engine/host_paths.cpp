#include "engine/host_paths.hpp"

#include <cstdlib>

namespace algenta::host {
namespace fs = std::filesystem;
namespace {

fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : exe.parent_path();
}

fs::path from_env(const char* name, const fs::path& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? fs::path(value) : fallback;
}

fs::path default_state_file() {
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg != nullptr && *xdg != '\0') {
    return fs::path(xdg) / "algenta" / "manifest-versions.json";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".local" / "state" / "algenta" / "manifest-versions.json";
  }
  return executable_dir() / ".." / "var" / "algenta" / "manifest-versions.json";
}

}  // namespace

fs::path configuration_dir_for_prefix(const fs::path& prefix) {
  const fs::path normal = prefix.lexically_normal();
  const fs::path trimmed = normal.has_filename() ? normal : normal.parent_path();
  if (trimmed.filename() == "usr") return trimmed.parent_path() / "etc";
  return prefix / "etc";
}

HostPaths default_host_paths() {
  const fs::path prefix = executable_dir().parent_path();
  const fs::path etc = configuration_dir_for_prefix(prefix);
  HostPaths paths;
  paths.plugins_root = from_env("ALGENTA_PLUGINS_ROOT", prefix / "lib" / "algenta" / "plugins");
  paths.keyring_dir = from_env("ALGENTA_KEYRING", etc / "algenta" / "keyring");
  paths.state_file = from_env("ALGENTA_STATE_FILE", default_state_file());
  paths.host_config = from_env("ALGENTA_HOST_CONFIG", etc / "algenta" / "host.json");
  return paths;
}

}  // namespace algenta::host
