#include "files/bounded_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "files/unique_fd.hpp"

namespace algenta::files {
namespace {

using Kind = FileReadError::Kind;

std::string system_reason(int error) { return std::strerror(error); }

const char* type_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "a special file";
}

int open_for_reading(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) return fd;
  const int error = errno;
  if (error == ENOENT) throw FileReadError(Kind::missing, path.string(), "does not exist");
  throw FileReadError(Kind::unreadable, path.string(), "cannot be opened: " + system_reason(error));
}

}  // namespace

std::string read_bounded_fd(int fd, const std::string& name, SizeCap cap) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    throw FileReadError(Kind::unreadable, name, "cannot be examined: " + system_reason(errno));
  }
  if (!S_ISREG(info.st_mode)) {
    throw FileReadError(Kind::not_regular, name,
                        std::string("is ") + type_of(info.st_mode) + ", not a regular file");
  }
  const auto size = static_cast<std::uint64_t>(info.st_size);
  if (size > cap.bytes) {
    throw FileReadError(Kind::too_large, name,
                        "is " + std::to_string(size) + " bytes, over the cap of " +
                            std::to_string(cap.bytes) + " bytes for " + cap.kind);
  }
  // One spare byte: a file that grew since fstat fills it and is refused.
  std::string bytes(static_cast<std::size_t>(size) + 1, '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw FileReadError(Kind::unreadable, name, "cannot be read: " + system_reason(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got != size) {
    throw FileReadError(Kind::changed_size, name,
                        "changed size while being read (" + std::to_string(size) +
                            " bytes at open, " + (got > size ? "more" : std::to_string(got)) +
                            " read)");
  }
  bytes.resize(static_cast<std::size_t>(size));
  return bytes;
}

std::string read_bounded(const std::filesystem::path& path, SizeCap cap) {
  const UniqueFd file(open_for_reading(path));
  return read_bounded_fd(file.get(), path.string(), cap);
}

std::optional<std::string> read_bounded_if_present(const std::filesystem::path& path, SizeCap cap) {
  std::error_code error;
  if (std::filesystem::symlink_status(path, error).type() == std::filesystem::file_type::not_found) {
    return std::nullopt;
  }
  return read_bounded(path, cap);
}

}  // namespace algenta::files
