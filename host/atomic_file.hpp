// Replaces a small file in one step: write a temporary file beside it, flush
// it to disk, rename it over the old one. A crash leaves the old or the new
// content, never half of either.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string_view>

namespace algenta::host {

struct AtomicWriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Creates the parent directory when missing. Throws AtomicWriteError naming
// the file and the step that failed.
void write_file_atomically(const std::filesystem::path& file, std::string_view bytes);

}  // namespace algenta::host
