#include "synthetic/scratch_directory.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace algenta::host::synthetic {
namespace fs = std::filesystem;
namespace {

constexpr const char* kPrefix = "algenta-synthetic-";
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// What the signal handler removes; set while a scratch directory exists.
char g_scratch_path[4096];
struct sigaction g_previous[std::size(kSignals)];
bool g_installed[std::size(kSignals)];

bool is_dot_entry(const char* name) {
  return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

// Removes `name` under `parent` and everything below it, using only system
// calls (async-signal-safe): directories are read with getdents64, entries
// unlinked, subdirectories (unlink fails with EISDIR) removed recursively.
void remove_tree_at(int parent, const char* name, int depth) {
  if (depth > 8) return;
  const int fd = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    struct Entry {
      std::uint64_t inode;
      std::int64_t offset;
      unsigned short length;
      unsigned char type;
      char name[1];
    };
    alignas(8) char buffer[8192];
    // Removing entries while reading may hide some: read again from the
    // start until a pass finds nothing left.
    for (int pass = 0; pass < 64; ++pass) {
      bool removed_any = false;
      ::lseek(fd, 0, SEEK_SET);
      long bytes = 0;
      while ((bytes = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer)) > 0) {
        for (long at = 0; at < bytes;) {
          const auto* entry = reinterpret_cast<const Entry*>(buffer + at);
          at += entry->length;
          if (is_dot_entry(entry->name)) continue;
          if (::unlinkat(fd, entry->name, 0) != 0 && errno == EISDIR) {
            remove_tree_at(fd, entry->name, depth + 1);
          }
          removed_any = true;
        }
      }
      if (!removed_any) break;
    }
    ::close(fd);
  }
  ::unlinkat(parent, name, AT_REMOVEDIR);
}

void remove_on_signal(int signal_number) {
  const int saved_errno = errno;
  if (g_scratch_path[0] != '\0') remove_tree_at(AT_FDCWD, g_scratch_path, 0);
  g_scratch_path[0] = '\0';
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] == signal_number) ::sigaction(signal_number, &g_previous[i], nullptr);
  }
  errno = saved_errno;
  ::raise(signal_number);
}

void install_handlers(const fs::path& path) {
  const std::string text = path.string();
  if (text.size() >= sizeof g_scratch_path) return;  // mkdtemp paths are far shorter
  std::memcpy(g_scratch_path, text.c_str(), text.size() + 1);
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction current {};
    ::sigaction(kSignals[i], nullptr, &current);
    // A signal the process ignores (nohup) cannot end it: leave it ignored.
    g_installed[i] = current.sa_handler != SIG_IGN;
    if (!g_installed[i]) continue;
    struct sigaction action {};
    action.sa_handler = remove_on_signal;
    sigemptyset(&action.sa_mask);
    for (const int other : kSignals) sigaddset(&action.sa_mask, other);
    ::sigaction(kSignals[i], &action, &g_previous[i]);
  }
}

void uninstall_handlers() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    if (g_installed[i]) ::sigaction(kSignals[i], &g_previous[i], nullptr);
    g_installed[i] = false;
  }
  g_scratch_path[0] = '\0';
}

std::optional<std::uint64_t> free_bytes(const fs::path& base) {
  struct statvfs st {};
  if (!fs::is_directory(base) || ::statvfs(base.c_str(), &st) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
}

// algenta-synthetic-<pid>-XXXXXX directories of ours whose process is gone.
void remove_leftovers(const fs::path& base) {
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(base, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + std::strlen(kPrefix), nullptr, 10);
    struct stat st {};
    if (pid <= 0 || ::lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != ::geteuid()) {
      continue;
    }
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    fs::remove_all(entry.path(), ignored);
  }
}

std::string gib_text(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1u << 30));
  return text;
}

}  // namespace

std::vector<ScratchCandidate> scratch_candidates() {
  const char* tmpdir = std::getenv("TMPDIR");
  const fs::path temporary =
      tmpdir != nullptr && *tmpdir != '\0' ? fs::path(tmpdir) : fs::path("/tmp");
  return {{"/dev/shm", free_bytes("/dev/shm")}, {temporary, free_bytes(temporary)}};
}

std::optional<std::size_t> first_with_room(const std::vector<ScratchCandidate>& candidates,
                                           std::uint64_t needed_bytes) {
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].free_bytes &&
        *candidates[i].free_bytes >= needed_bytes + kScratchHeadroomBytes) {
      return i;
    }
  }
  return std::nullopt;
}

ScratchDirectory::ScratchDirectory(std::uint64_t needed_bytes) {
  if (g_scratch_path[0] != '\0') {
    throw ScratchError("a scratch directory exists already in this process");
  }
  const std::vector<ScratchCandidate> candidates = scratch_candidates();
  const std::optional<std::size_t> chosen = first_with_room(candidates, needed_bytes);
  if (!chosen) {
    std::string sizes;
    for (const ScratchCandidate& c : candidates) {
      sizes += (sizes.empty() ? "" : ", ") + c.base.string() + " " +
               (c.free_bytes ? gib_text(*c.free_bytes) + " free" : std::string("missing"));
    }
    throw ScratchError("no room for the synthetic checkpoint: it needs " + gib_text(needed_bytes) +
                       " plus " + gib_text(kScratchHeadroomBytes) + " headroom, and " + sizes +
                       " (set TMPDIR to a larger file system)");
  }
  const fs::path base = candidates[*chosen].base;
  remove_leftovers(base);
  std::string pattern =
      (base / (std::string(kPrefix) + std::to_string(::getpid()) + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw ScratchError("cannot make a scratch directory " + pattern + ": " + std::strerror(errno));
  }
  path_ = pattern;
  in_memory_ = base == "/dev/shm";
  install_handlers(path_);
}

ScratchDirectory::~ScratchDirectory() {
  // Removed before the handlers go, so a signal meanwhile finds it still
  // covered (removing it twice is harmless).
  std::error_code error;
  fs::remove_all(path_, error);
  uninstall_handlers();
  if (error) {
    std::cerr << "algenta-host: could not remove " << path_.string() << ": " << error.message()
              << "\n";
  }
}

}  // namespace algenta::host::synthetic
