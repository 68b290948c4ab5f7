// Small POSIX file helpers for writing output that must survive a crash in
// a known state: written fully, flushed to disk, then made visible by rename.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace algenta::checkpoint {

// An output file opened exclusively (it must not exist yet). Errors are
// CheckpointError naming the path.
class OutputFile {
 public:
  explicit OutputFile(const std::filesystem::path& path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  void write(std::span<const std::byte> bytes);
  // fsync and close; the file is complete on disk afterwards.
  void finish();

 private:
  std::string name_;
  int fd_ = -1;
};

void write_file_synced(const std::filesystem::path& path, std::string_view text);
// Refuses a source over `max_bytes` (naming its size and the cap) before
// copying anything.
void copy_file_synced(const std::filesystem::path& from, const std::filesystem::path& to,
                      std::uint64_t max_bytes);
// Makes renames and creations inside `dir` durable.
void sync_directory(const std::filesystem::path& dir);

}  // namespace algenta::checkpoint
