#include "checkpoint/durable_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "checkpoint/checkpoint_error.hpp"
#include "checkpoint/mapped_file.hpp"

namespace algenta::checkpoint {
namespace {

[[noreturn]] void fail_errno(const std::string& name, const std::string& doing) {
  throw CheckpointError(name, "", "cannot be " + doing + ": " + std::strerror(errno));
}

}  // namespace

OutputFile::OutputFile(const std::filesystem::path& path) : name_(path.string()) {
  fd_ = ::open(name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) fail_errno(name_, "created");
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void OutputFile::write(std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) fail_errno(name_, "written");
    bytes = bytes.subspan(static_cast<std::size_t>(written));
  }
}

void OutputFile::finish() {
  if (::fsync(fd_) != 0) fail_errno(name_, "flushed to disk");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail_errno(name_, "closed");
}

void write_file_synced(const std::filesystem::path& path, std::string_view text) {
  OutputFile file(path);
  file.write(std::as_bytes(std::span(text)));
  file.finish();
}

void copy_file_synced(const std::filesystem::path& from, const std::filesystem::path& to,
                      std::uint64_t max_bytes) {
  const ReadOnlyFile source = ReadOnlyFile::open(from);
  if (source.size() > max_bytes) {
    throw CheckpointError(source.name(), "", "is " + std::to_string(source.size()) +
                                                 " bytes, over the cap of " +
                                                 std::to_string(max_bytes) + " bytes for a side file");
  }
  OutputFile target(to);
  std::vector<std::byte> buffer(1u << 20);
  for (std::uint64_t offset = 0; offset < source.size();) {
    const auto length = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), source.size() - offset));
    const std::span<std::byte> piece(buffer.data(), length);
    source.read_at(offset, piece);
    target.write(piece);
    offset += length;
  }
  target.finish();
}

void sync_directory(const std::filesystem::path& dir) {
  const std::string name = dir.string();
  const int fd = ::open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail_errno(name, "opened to flush it");
  const int result = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  errno = error;
  if (result != 0) fail_errno(name, "flushed to disk");
}

}  // namespace algenta::checkpoint
