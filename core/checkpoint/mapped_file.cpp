#include "checkpoint/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "checkpoint/checkpoint_error.hpp"

namespace algenta::checkpoint {

ReadOnlyFile ReadOnlyFile::open(const std::filesystem::path& path) {
  std::string name = path.string();
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is then
  // refused as not a regular file).
  const int fd = ::open(name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw CheckpointError(name, "", std::string("cannot be opened: ") + std::strerror(errno));
  struct stat status {};
  if (::fstat(fd, &status) != 0) {
    const int error = errno;
    ::close(fd);
    throw CheckpointError(name, "", std::string("cannot be examined: ") + std::strerror(error));
  }
  if (!S_ISREG(status.st_mode)) {
    ::close(fd);
    throw CheckpointError(name, "", "is not a regular file");
  }
  return ReadOnlyFile(std::move(name), fd, static_cast<std::uint64_t>(status.st_size));
}

ReadOnlyFile::ReadOnlyFile(ReadOnlyFile&& other) noexcept
    : name_(std::move(other.name_)), fd_(std::exchange(other.fd_, -1)), size_(other.size_) {}

ReadOnlyFile& ReadOnlyFile::operator=(ReadOnlyFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    name_ = std::move(other.name_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
  }
  return *this;
}

ReadOnlyFile::~ReadOnlyFile() {
  if (fd_ >= 0) ::close(fd_);
}

void ReadOnlyFile::read_at(std::uint64_t offset, std::span<std::byte> into) const {
  std::size_t done = 0;
  while (done < into.size()) {
    const ssize_t got = ::pread(fd_, into.data() + done, into.size() - done,
                                static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw CheckpointError(name_, "", std::string("cannot be read: ") + std::strerror(errno));
    if (got == 0) {
      throw CheckpointError(name_, "", "ended at byte " + std::to_string(offset + done) +
                                           " while " + std::to_string(offset + into.size()) +
                                           " were expected (did it shrink while being read?)");
    }
    done += static_cast<std::size_t>(got);
  }
}

std::string read_whole_file(const std::filesystem::path& path, files::SizeCap cap) {
  try {
    return files::read_bounded(path, cap);
  } catch (const files::FileReadError& error) {
    throw CheckpointError(error.path, "", error.reason);
  }
}

MappedBytes MappedBytes::map(const ReadOnlyFile& file) {
  if (file.size() == 0) return {};
  if (file.size() > SIZE_MAX) throw CheckpointError(file.name(), "", "is too large to map");
  const auto size = static_cast<std::size_t>(file.size());
  void* base = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.descriptor(), 0);
  if (base == MAP_FAILED) {
    throw CheckpointError(file.name(), "", std::string("cannot be mapped: ") + std::strerror(errno));
  }
  return MappedBytes(static_cast<const std::byte*>(base), size);
}

MappedBytes::MappedBytes(MappedBytes&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedBytes& MappedBytes::operator=(MappedBytes&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) ::munmap(const_cast<std::byte*>(base_), size_);
    base_ = std::exchange(other.base_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedBytes::~MappedBytes() {
  if (base_ != nullptr) ::munmap(const_cast<std::byte*>(base_), size_);
}

}  // namespace algenta::checkpoint
