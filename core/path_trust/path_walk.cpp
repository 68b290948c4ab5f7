#include "path_trust/path_walk.hpp"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <deque>

#include "path_trust/path_trust.hpp"

namespace algenta::path_trust {
namespace fs = std::filesystem;
namespace {

constexpr int kMaxSymlinks = 40;  // the kernel's MAXSYMLINKS

std::deque<std::string> components_of(const fs::path& path) {
  std::deque<std::string> parts;
  for (const fs::path& part : path.relative_path()) {
    const std::string text = part.string();
    if (!text.empty() && text != ".") parts.push_back(text);
  }
  return parts;
}

struct stat lstat_of(const fs::path& path, bool& exists) {
  struct stat info {};
  exists = ::lstat(path.c_str(), &info) == 0;
  if (!exists && errno != ENOENT && errno != ENOTDIR) {
    throw UntrustedPath(path.string() + " cannot be inspected: " + std::strerror(errno));
  }
  return info;
}

fs::path read_link(const fs::path& link) {
  std::string target(PATH_MAX, '\0');
  const ssize_t n = ::readlink(link.c_str(), target.data(), target.size());
  if (n < 0 || static_cast<std::size_t>(n) >= target.size()) {
    throw UntrustedPath("symlink " + link.string() + " cannot be read: " +
                        (n < 0 ? std::strerror(errno) : "target too long"));
  }
  target.resize(static_cast<std::size_t>(n));
  return target;
}

}  // namespace

PathWalk walk_path(const fs::path& path) {
  PathWalk walk;
  const fs::path absolute = path.is_absolute() ? path : fs::current_path() / path;
  std::deque<std::string> pending = components_of(absolute);

  // `chain` holds the steps of the directories the current position lies
  // under, so ".." goes back to the physical parent.
  std::vector<std::size_t> chain;
  const auto enter_root = [&] {
    bool exists = false;
    WalkStep root{"/", lstat_of("/", exists), {}};
    walk.steps.push_back(std::move(root));
    chain.assign(1, walk.steps.size() - 1);
  };
  enter_root();

  int symlinks = 0;
  while (!pending.empty()) {
    const std::string name = pending.front();
    pending.pop_front();
    if (name == "..") {
      if (chain.size() > 1) chain.pop_back();
      continue;
    }
    WalkStep& directory = walk.steps[chain.back()];
    const fs::path next = directory.path / name;
    bool exists = false;
    const struct stat info = lstat_of(next, exists);
    if (!exists) {
      directory.looked_up.push_back({name, std::nullopt});
      return walk;  // judged by what exists above it
    }
    directory.looked_up.push_back({name, info.st_uid});
    if (S_ISLNK(info.st_mode)) {
      if (++symlinks > kMaxSymlinks) {
        throw UntrustedPath(path.string() + " passes through more than " +
                            std::to_string(kMaxSymlinks) + " symlinks");
      }
      const fs::path target = read_link(next);
      std::deque<std::string> more = components_of(target);
      pending.insert(pending.begin(), more.begin(), more.end());
      if (target.is_absolute()) enter_root();
      continue;
    }
    if (!pending.empty() && !S_ISDIR(info.st_mode)) {
      walk.steps.push_back({next, info, {}});
      walk.steps.back().looked_up.push_back({pending.front(), std::nullopt});
      return walk;  // a file in the middle: the rest cannot exist
    }
    walk.steps.push_back({next, info, {}});
    chain.push_back(walk.steps.size() - 1);
  }
  walk.leaf = chain.back();
  return walk;
}

}  // namespace algenta::path_trust
