// The host configuration file (etc/algenta/host.json beside the keyring):
// {"library_directories": ["/usr/local/cuda/lib64", ...]}, the directories
// besides the system ones where declared host libraries may be found and
// plugins' RUNPATHs may point.
#pragma once

#include <filesystem>
#include <vector>

namespace algenta::loader {

inline constexpr std::size_t kMaxHostConfigBytes = 64 * 1024;

struct HostConfig {
  std::vector<std::filesystem::path> library_directories;
};

// A missing file is an empty configuration. Throws LoadError naming the
// fact when the file or a listed directory fails the who-may-write rule, the
// file is over kMaxHostConfigBytes, is not strict JSON of that one shape, or
// lists a directory that is not an absolute path free of '$'.
HostConfig load_host_config(const std::filesystem::path& file);

}  // namespace algenta::loader
