// Resolves a path the way the kernel would, one component at a time, and
// records every object passed on the way: each directory, each directory a
// symlink's target leads through, and the final object.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace algenta::path_trust {

struct LookedUpEntry {
  std::string name;
  std::optional<uid_t> owner;  // nullopt: the entry does not exist
};

struct WalkStep {
  std::filesystem::path path;  // physical: no symlink in it
  struct stat info {};
  std::vector<LookedUpEntry> looked_up;  // names resolved inside this directory
};

struct PathWalk {
  std::vector<WalkStep> steps;
  std::optional<std::size_t> leaf;  // the final object's step, when it exists
};

// Throws UntrustedPath when a component cannot be inspected (other than not
// existing) or symlinks nest deeper than the kernel allows.
PathWalk walk_path(const std::filesystem::path& path);

}  // namespace algenta::path_trust
