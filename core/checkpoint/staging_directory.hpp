// Builds an output directory OUT next to where it will live and publishes it
// in one rename, so OUT is either the old complete version or the new one,
// never half-written.
//
// Work happens in `OUT.tmp-<pid>`. Publishing an OUT that already exists
// moves the old one to `OUT.old-<pid>`, renames the new one in, then removes
// the old. Leftovers of either kind whose process is gone are removed when
// the next StagingDirectory for the same OUT starts.
#pragma once

#include <filesystem>

namespace algenta::checkpoint {

class StagingDirectory {
 public:
  // Creates OUT's parent directories and the empty staging directory.
  explicit StagingDirectory(const std::filesystem::path& final_dir);
  StagingDirectory(const StagingDirectory&) = delete;
  StagingDirectory& operator=(const StagingDirectory&) = delete;
  // Removes the staging directory unless it was published.
  ~StagingDirectory();

  const std::filesystem::path& path() const noexcept { return staging_; }
  const std::filesystem::path& final_path() const noexcept { return final_; }
  bool published() const noexcept { return published_; }

  // Flushes the staging directory and renames it to OUT.
  void publish();

 private:
  std::filesystem::path final_;
  std::filesystem::path staging_;
  bool published_ = false;
};

}  // namespace algenta::checkpoint
