// A private temporary directory for a synthetic checkpoint, in memory when
// it can be: under /dev/shm when that exists and has room, else under
// $TMPDIR (or /tmp). It goes away with everything in it when the object
// does (a normal end or an error), and also when SIGINT, SIGTERM or SIGHUP
// ends the process: the handler removes it with async-signal-safe calls
// only, then lets the signal take its usual course. Named
// algenta-synthetic-<pid>-XXXXXX, so that leftovers of a process that is gone
// (SIGKILL leaves no chance) are removed when the next one is made.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace algenta::host::synthetic {

struct ScratchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Room kept free beside what the checkpoint needs.
inline constexpr std::uint64_t kScratchHeadroomBytes = std::uint64_t{256} << 20;

struct ScratchCandidate {
  std::filesystem::path base;
  std::optional<std::uint64_t> free_bytes;  // nullopt: not there
};

// /dev/shm, then $TMPDIR or /tmp, with the bytes free on each.
std::vector<ScratchCandidate> scratch_candidates();

// The first candidate with needed + headroom bytes free, if any.
std::optional<std::size_t> first_with_room(const std::vector<ScratchCandidate>& candidates,
                                           std::uint64_t needed_bytes);

class ScratchDirectory {
 public:
  // Throws ScratchError naming each candidate, its free bytes and the need
  // when none has room, or the path when the directory cannot be made.
  explicit ScratchDirectory(std::uint64_t needed_bytes);
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }
  bool in_memory() const { return in_memory_; }

 private:
  std::filesystem::path path_;
  bool in_memory_ = false;
};

}  // namespace algenta::host::synthetic
