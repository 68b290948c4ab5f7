// Reads a listed plugin file exactly once and checks it against its manifest
// entry. What this returns is what gets loaded: nothing re-opens the path.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "loader/verified_loader.hpp"
#include "manifest/crypto.hpp"

namespace algenta::loader {
namespace {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string describe_mode(mode_t mode) {
  char octal[8];
  std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode & 07777));
  return octal;
}

// Plugins may be owned by root or by the user running the host, and nobody
// else may be able to change them.
void check_owner_and_mode(const struct stat& st, const std::string& what) {
  const uid_t me = ::geteuid();
  if (st.st_uid != 0 && st.st_uid != me) {
    throw LoadError(what + " is owned by uid " + std::to_string(st.st_uid) +
                    "; plugins must be owned by root or by uid " + std::to_string(me));
  }
  if ((st.st_mode & S_IWOTH) != 0) {
    throw LoadError(what + " is world-writable (mode " + describe_mode(st.st_mode) +
                    "); refusing to load it");
  }
}

void check_bundle_directory(const std::filesystem::path& bundle) {
  struct stat st {};
  if (::lstat(bundle.c_str(), &st) != 0) {
    throw LoadError("bundle directory " + bundle.string() + " cannot be read: " +
                    std::strerror(errno));
  }
  if ((st.st_mode & S_IWOTH) != 0 && (st.st_mode & S_ISVTX) == 0) {
    throw LoadError("bundle directory " + bundle.string() + " is world-writable (mode " +
                    describe_mode(st.st_mode) + "); anyone could replace its plugins");
  }
}

std::string read_all(int fd, std::uint64_t expected_size, const std::string& what) {
  std::string bytes(expected_size, '\0');
  std::uint64_t done = 0;
  while (done < expected_size) {
    const ssize_t n = ::read(fd, bytes.data() + done, expected_size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw LoadError("reading " + what + " failed: " + std::strerror(errno));
    if (n == 0) break;
    done += static_cast<std::uint64_t>(n);
  }
  char extra = 0;
  if (done != expected_size || ::read(fd, &extra, 1) > 0) {
    throw LoadError(what + " changed size while being read (manifest says " +
                    std::to_string(expected_size) + " bytes)");
  }
  return bytes;
}

}  // namespace

std::string read_verified_plugin_bytes(const std::filesystem::path& bundle,
                                       const manifest::PluginEntry& entry) {
  check_bundle_directory(bundle);
  const std::filesystem::path path = bundle / entry.file;
  const std::string what = "plugin file " + path.string() + " (" + entry.name + ")";

  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ELOOP) throw LoadError(what + " is a symlink; plugins must be regular files");
    if (errno == ENOENT) throw LoadError(what + " is missing (listed in the manifest)");
    throw LoadError(what + " cannot be opened: " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    throw LoadError(what + " cannot be inspected: " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) throw LoadError(what + " is not a regular file");
  check_owner_and_mode(st, what);
  if (static_cast<std::uint64_t>(st.st_size) != entry.size) {
    throw LoadError(what + " is " + std::to_string(st.st_size) + " bytes; the manifest says " +
                    std::to_string(entry.size));
  }

  std::string bytes = read_all(fd.get(), entry.size, what);
  const std::string digest = manifest::sha256_hex(bytes);
  if (digest != entry.sha256) {
    throw LoadError(what + " has sha256 " + digest + "; the manifest says " + entry.sha256);
  }
  return bytes;
}

}  // namespace algenta::loader
