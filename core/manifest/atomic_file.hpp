// Replaces a small file in one step (the version state, verification
// records): write a temporary file beside it, flush
// it to disk, rename it over the old one. A crash leaves the old or the new
// content, never half of either.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace algenta::manifest {

struct AtomicWriteError : std::runtime_error {
  AtomicWriteError(const std::string& message, const std::string& reason)
      : std::runtime_error(message), reason(reason) {}
  std::string reason;  // the failing step alone, e.g. "fsync failed: No space left on device"
};

// Creates the parent directory when missing. Throws AtomicWriteError naming
// the file and the step that failed.
void write_file_atomically(const std::filesystem::path& file, std::string_view bytes);

}  // namespace algenta::manifest
