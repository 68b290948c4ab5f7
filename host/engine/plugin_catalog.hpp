// Everything the host may load: verified bundles under the plugins root, the
// candidates they list, and one rejection line per file that cannot be used.
#pragma once

#include <string>
#include <vector>

#include "engine/host_paths.hpp"
#include "loader/selection.hpp"
#include "manifest/trust.hpp"

namespace algenta::host {

struct Catalog {
  std::string keyring_problem;  // set when the keyring itself cannot be read
  // From the host configuration: where declared host libraries may be found
  // besides the system directories (pass to load_verified_plugin).
  std::vector<std::filesystem::path> library_directories;
  std::vector<manifest::BundleVerdict> bundles;
  std::vector<loader::Candidate> candidates;  // entries of accepted bundles
  std::vector<loader::Rejection> rejected;    // refused bundles, unlisted files
};

Catalog build_catalog(const HostPaths& paths, std::int64_t now_unix_seconds);

// build_catalog, then a keyring problem and every rejection on stderr: what
// a command that goes on to load a plugin shows the operator first.
Catalog build_logged_catalog(const HostPaths& paths, std::int64_t now_unix_seconds);

// Writes "rejected <plugin>: <reason>" lines to stderr, one per rejection.
void log_rejections(const std::vector<loader::Rejection>& rejected);

}  // namespace algenta::host
