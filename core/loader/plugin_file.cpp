// Reads a listed plugin file exactly once and checks it against its manifest
// entry. What this returns is what gets loaded: nothing re-opens the path.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "loader/verified_loader.hpp"
#include "manifest/crypto.hpp"
#include "path_trust/path_trust.hpp"

#include "files/unique_fd.hpp"

namespace algenta::loader {
namespace {

// Nobody but root or the user the host runs as may be able to change the
// bundle directory, the plugin file or any directory above them.
void check_who_may_write(const std::filesystem::path& path, const std::string& what) {
  if (const auto why = path_trust::untrusted_reason(path, what)) throw LoadError(*why);
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
  const std::filesystem::path path = bundle / entry.file;
  check_who_may_write(bundle, "bundle directory");
  check_who_may_write(path, "plugin file");
  const std::string what = "plugin file " + path.string() + " (" + entry.name + ")";

  files::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
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
