// Whole-file reads and writes for the signing tool, with the durability and
// permission guarantees key and manifest files need.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace algenta::sign {

// An I/O failure; the message names the file and the operating system's reason.
struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string read_file(const std::filesystem::path& file);

// Creates `file` with `mode` from the first byte on (never a moment with wider
// permissions); refuses when anything already exists at that path.
void write_new_file(const std::filesystem::path& file, std::string_view bytes, mode_t mode);

// Replaces `file` atomically: a temporary in the same directory, fsync, rename.
void replace_file(const std::filesystem::path& file, std::string_view bytes, mode_t mode);

}  // namespace algenta::sign
