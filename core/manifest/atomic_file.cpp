#include "manifest/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace algenta::manifest {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail_write(const fs::path& file, const std::string& reason) {
  throw AtomicWriteError(file.string() + " cannot be written: " + reason, reason);
}

}  // namespace

void write_file_atomically(const fs::path& file, std::string_view bytes) {
  const fs::path directory = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) {
    fail_write(file, "cannot create " + directory.string() + ": " + error.message());
  }
  std::string temp = (directory / ("." + file.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    fail_write(file, std::strerror(errno));
  }

  std::string failure;  // the first step that failed, with its errno
  const auto check = [&failure](bool ok, const char* step) {
    if (!ok && failure.empty()) failure = std::string(step) + " failed: " + std::strerror(errno);
  };
  std::size_t written = 0;
  while (failure.empty() && written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    check(n > 0, "write");
    if (n > 0) written += static_cast<std::size_t>(n);
  }
  if (failure.empty()) check(::fchmod(fd, 0644) == 0, "chmod");
  if (failure.empty()) check(::fsync(fd) == 0, "fsync");
  check(::close(fd) == 0, "close");
  if (failure.empty()) check(::rename(temp.c_str(), file.c_str()) == 0, "rename");
  if (!failure.empty()) {
    ::unlink(temp.c_str());
    fail_write(file, failure);
  }
  // Make the rename itself durable.
  const int dir_fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

}  // namespace algenta::manifest
