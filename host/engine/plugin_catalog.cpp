#include "engine/plugin_catalog.hpp"

#include <algorithm>
#include <iostream>
#include <set>

#include "loader/host_config.hpp"
#include "manifest/trusted_paths.hpp"
#include "path_trust/path_trust.hpp"

namespace algenta::host {
namespace fs = std::filesystem;
namespace {

bool looks_like_plugin(const fs::directory_entry& file) {
  const std::string name = file.path().filename().string();
  return name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0;
}

std::vector<fs::path> sorted_subdirectories(const fs::path& root) {
  std::vector<fs::path> dirs;
  for (const auto& item : fs::directory_iterator(root)) {
    if (item.is_directory()) dirs.push_back(item.path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

// Files present in a bundle but absent from its manifest are never loaded.
void reject_unlisted_files(const fs::path& bundle, const std::set<std::string>& listed,
                           const std::string& why, std::vector<loader::Rejection>& rejected) {
  for (const auto& item : fs::directory_iterator(bundle)) {
    if (!looks_like_plugin(item)) continue;
    const std::string name = item.path().filename().string();
    if (listed.count(name) == 0) rejected.push_back({item.path().string(), why});
  }
}

}  // namespace

Catalog build_catalog(const HostPaths& paths, std::int64_t now_unix_seconds) {
  Catalog catalog;
  manifest::Keyring keyring;
  try {
    keyring = manifest::Keyring::load(paths.keyring_dir);
  } catch (const std::exception& e) {
    catalog.keyring_problem = e.what();
  }
  std::error_code ec;
  if (!fs::is_directory(paths.plugins_root, ec)) {
    catalog.rejected.push_back({paths.plugins_root.string(),
                                "plugins root is not a directory; no plugin can be loaded"});
    return catalog;
  }
  // Whoever can write the root can add or swap whole bundles.
  if (const auto why = path_trust::untrusted_reason(paths.plugins_root, "plugins root")) {
    catalog.rejected.push_back({paths.plugins_root.string(), *why});
    return catalog;
  }
  try {
    catalog.library_directories = loader::load_host_config(paths.host_config).library_directories;
  } catch (const std::exception& e) {
    catalog.rejected.push_back({paths.host_config.string(), e.what()});
    return catalog;  // fail closed: a doubtful library directory could run anything
  }
  manifest::VersionState state;
  try {
    manifest::require_trusted_state_file(paths.state_file);
    state = manifest::VersionState::load(paths.state_file);
  } catch (const std::exception& e) {
    catalog.rejected.push_back({paths.state_file.string(), e.what()});
    return catalog;  // fail closed: without the state, rollbacks go unseen
  }

  for (const fs::path& bundle : sorted_subdirectories(paths.plugins_root)) {
    manifest::BundleVerdict verdict =
        manifest::verify_bundle(bundle, keyring, state, now_unix_seconds);
    std::set<std::string> listed;
    if (verdict.accepted) {
      for (const manifest::PluginEntry& entry : verdict.manifest->plugins) {
        listed.insert(entry.file);
        catalog.candidates.push_back({bundle.string(), entry});
      }
      reject_unlisted_files(bundle, listed, "not listed in the bundle's signed manifest.json",
                            catalog.rejected);
    } else {
      reject_unlisted_files(bundle, listed, "its bundle was refused: " + verdict.reason,
                            catalog.rejected);
    }
    catalog.bundles.push_back(std::move(verdict));
  }
  return catalog;
}

Catalog build_logged_catalog(const HostPaths& paths, std::int64_t now_unix_seconds) {
  Catalog catalog = build_catalog(paths, now_unix_seconds);
  if (!catalog.keyring_problem.empty()) std::cerr << "keyring: " << catalog.keyring_problem << "\n";
  log_rejections(catalog.rejected);
  return catalog;
}

void log_rejections(const std::vector<loader::Rejection>& rejected) {
  for (const loader::Rejection& r : rejected) {
    std::cerr << "rejected " << r.plugin << ": " << r.reason << "\n";
  }
}

}  // namespace algenta::host
