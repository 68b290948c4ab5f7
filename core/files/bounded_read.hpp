// Whole-file reads with the size checked before a byte is read. A 2 GiB
// sparse config.json must cost one fstat, not 2 GiB of memory and a minute
// of reading before its cap refuses it; a FIFO must be refused, not waited on.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace algenta::files {

// what() reads "<path> <reason>", e.g. "/m/config.json is 2147483648 bytes,
// over the cap of 4194304 bytes for a config.json".
struct FileReadError : std::runtime_error {
  enum class Kind { missing, not_regular, too_large, unreadable, changed_size };

  FileReadError(Kind kind, std::string path, std::string reason)
      : std::runtime_error(path + " " + reason),
        kind(kind),
        path(std::move(path)),
        reason(std::move(reason)) {}

  Kind kind;
  std::string path;
  std::string reason;  // what() without the path, for callers with their own form
};

// How much a kind of file may hold, and what to call that kind in a refusal.
struct SizeCap {
  std::uint64_t bytes;
  const char* kind;  // "a config.json", "a public key file", ...
};

// Opens `path` read-only (O_NONBLOCK: opening a FIFO does not wait for a
// writer; O_CLOEXEC), refuses anything but a regular file, refuses a size
// over the cap naming path, size and cap, then reads exactly that many
// bytes and refuses a file that grew or shrank meanwhile.
std::string read_bounded(const std::filesystem::path& path, SizeCap cap);

// read_bounded, or nullopt when nothing at all exists at `path` (a dangling
// symlink is not nothing: it is refused as missing its target).
std::optional<std::string> read_bounded_if_present(const std::filesystem::path& path, SizeCap cap);

// The same checks on a descriptor the caller opened (e.g. with openat and
// O_NOFOLLOW); `name` names the file in messages. Reads from the current
// offset, which must be the start.
std::string read_bounded_fd(int fd, const std::string& name, SizeCap cap);

}  // namespace algenta::files
