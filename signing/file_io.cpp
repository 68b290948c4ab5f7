#include "file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace algenta::sign {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const std::string& action, const fs::path& file, int error) {
  throw IoError("cannot " + action + " " + file.string() + ": " + std::strerror(error));
}

// Writes everything, then fsyncs and closes; on failure closes and throws.
void write_and_close(int fd, std::string_view bytes, mode_t mode, const fs::path& file) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      fail("write", file, error);
    }
    written += static_cast<std::size_t>(n);
  }
  // fchmod pins the mode whatever the umask was.
  if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    fail("write", file, error);
  }
  if (::close(fd) != 0) fail("write", file, errno);
}

}  // namespace

std::string read_file(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("read", file, errno);
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      fail("read", file, error);
    }
    if (n == 0) break;
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return bytes;
}

void write_new_file(const fs::path& file, std::string_view bytes, mode_t mode) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    if (errno == EEXIST) throw IoError(file.string() + " already exists; refusing to overwrite it");
    fail("create", file, errno);
  }
  write_and_close(fd, bytes, mode, file);
}

void replace_file(const fs::path& file, std::string_view bytes, mode_t mode) {
  const fs::path directory = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::string temp = (directory / ("." + file.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) fail("create a temporary file for", file, errno);
  try {
    write_and_close(fd, bytes, mode, file);
  } catch (const IoError&) {
    ::unlink(temp.c_str());
    throw;
  }
  if (::rename(temp.c_str(), file.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    fail("replace", file, error);
  }
}

}  // namespace algenta::sign
