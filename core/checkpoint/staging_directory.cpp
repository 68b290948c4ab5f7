#include "checkpoint/staging_directory.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string>
#include <system_error>

#include "checkpoint/checkpoint_error.hpp"
#include "checkpoint/durable_files.hpp"

namespace algenta::checkpoint {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kStagingTag = ".tmp-";
constexpr std::string_view kRetiredTag = ".old-";

fs::path sibling(const fs::path& final_dir, std::string_view tag, pid_t pid) {
  return final_dir.parent_path() / (final_dir.filename().string() + std::string(tag) + std::to_string(pid));
}

// The pid in `name` when it is `<base><tag><digits>`.
bool parse_leftover_pid(const std::string& name, const std::string& base, std::string_view tag, pid_t& pid) {
  const std::string prefix = base + std::string(tag);
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
  const char* first = name.data() + prefix.size();
  const char* last = name.data() + name.size();
  const auto [end, error] = std::from_chars(first, last, pid);
  return error == std::errc() && end == last && pid > 0;
}

bool process_is_gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

// Leftovers from runs that died before they could clean up. A directory of
// our own pid is a leftover too: no other writer of this process owns it.
void remove_leftovers(const fs::path& final_dir) {
  const std::string base = final_dir.filename().string();
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(final_dir.parent_path(), error)) {
    const std::string name = entry.path().filename().string();
    pid_t pid = 0;
    const bool leftover = parse_leftover_pid(name, base, kStagingTag, pid) ||
                          parse_leftover_pid(name, base, kRetiredTag, pid);
    if (leftover && (pid == ::getpid() || process_is_gone(pid))) {
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
}

void rename_or_fail(const fs::path& from, const fs::path& to) {
  std::error_code error;
  fs::rename(from, to, error);
  if (error) throw CheckpointError(to.string(), "", "cannot be renamed into place from " + from.string() + ": " + error.message());
}

// An absolute path without a trailing separator, so filename() is OUT's name.
fs::path normalised(const fs::path& dir) {
  fs::path path = fs::absolute(dir).lexically_normal();
  if (!path.has_filename()) path = path.parent_path();
  return path;
}

}  // namespace

StagingDirectory::StagingDirectory(const fs::path& final_dir)
    : final_(normalised(final_dir)), staging_(sibling(final_, kStagingTag, ::getpid())) {
  std::error_code error;
  fs::create_directories(final_.parent_path(), error);
  if (error) throw CheckpointError(final_.parent_path().string(), "", "cannot be created: " + error.message());
  remove_leftovers(final_);
  if (!fs::create_directory(staging_, error) || error) {
    throw CheckpointError(staging_.string(), "", "cannot be created: " +
                                                     (error ? error.message() : std::string("it already exists")));
  }
}

StagingDirectory::~StagingDirectory() {
  if (published_) return;
  std::error_code ignored;
  fs::remove_all(staging_, ignored);
}

void StagingDirectory::publish() {
  sync_directory(staging_);
  std::error_code error;
  const bool replacing = fs::exists(final_, error);
  if (!replacing) {
    rename_or_fail(staging_, final_);
  } else {
    const fs::path retired = sibling(final_, kRetiredTag, ::getpid());
    fs::remove_all(retired, error);
    rename_or_fail(final_, retired);
    try {
      rename_or_fail(staging_, final_);
    } catch (...) {
      std::error_code ignored;
      fs::rename(retired, final_, ignored);  // put the old version back
      throw;
    }
    fs::remove_all(retired, error);
  }
  published_ = true;
  sync_directory(final_.parent_path());
}

}  // namespace algenta::checkpoint
