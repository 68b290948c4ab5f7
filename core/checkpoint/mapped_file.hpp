// Read-only access to checkpoint files: an open descriptor for reading a
// header with pread, and a whole-file read-only mapping for tensor data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <utility>

#include "files/bounded_read.hpp"

namespace algenta::checkpoint {

// A regular file opened read-only. Errors are CheckpointError naming the path.
class ReadOnlyFile {
 public:
  static ReadOnlyFile open(const std::filesystem::path& path);

  ReadOnlyFile(ReadOnlyFile&& other) noexcept;
  ReadOnlyFile& operator=(ReadOnlyFile&& other) noexcept;
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  ~ReadOnlyFile();

  const std::string& name() const noexcept { return name_; }
  std::uint64_t size() const noexcept { return size_; }
  int descriptor() const noexcept { return fd_; }

  // Fills `into` from `offset`; a short read (the file shrank) is an error.
  void read_at(std::uint64_t offset, std::span<std::byte> into) const;

 private:
  ReadOnlyFile(std::string name, int fd, std::uint64_t size) : name_(std::move(name)), fd_(fd), size_(size) {}

  std::string name_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// A small file (JSON index, manifest) read whole; larger than its cap is
// refused before anything is allocated or read (see files::read_bounded).
std::string read_whole_file(const std::filesystem::path& path, files::SizeCap cap);

// The whole file mapped PROT_READ, MAP_PRIVATE. Pages are read on first
// touch, so mapping a 100 GB checkpoint costs nothing until data is used.
// An empty file gives an empty span and no mapping.
class MappedBytes {
 public:
  MappedBytes() = default;
  static MappedBytes map(const ReadOnlyFile& file);

  MappedBytes(MappedBytes&& other) noexcept;
  MappedBytes& operator=(MappedBytes&& other) noexcept;
  MappedBytes(const MappedBytes&) = delete;
  MappedBytes& operator=(const MappedBytes&) = delete;
  ~MappedBytes();

  std::span<const std::byte> bytes() const noexcept { return {base_, size_}; }

 private:
  MappedBytes(const std::byte* base, std::size_t size) : base_(base), size_(size) {}

  const std::byte* base_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace algenta::checkpoint
