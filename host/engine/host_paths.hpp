// Where the host finds its signed plugin bundles, trusted keys and state.
// Defaults sit beside the executable (bin/../lib, bin/../etc), which holds in
// the build tree and in a relocated tarball alike; under a prefix named usr
// (a .deb: /usr/bin, /usr/lib and /etc) the configuration sits beside usr.
#pragma once

#include <filesystem>

namespace algenta::host {

struct HostPaths {
  std::filesystem::path plugins_root;  // one subdirectory per signed bundle
  std::filesystem::path keyring_dir;   // trusted Ed25519 public keys (*.pub)
  std::filesystem::path state_file;    // highest manifest versions accepted
  std::filesystem::path host_config;   // host.json: extra library directories
};

// Defaults, then environment (ALGENTA_PLUGINS_ROOT, ALGENTA_KEYRING,
// ALGENTA_STATE_FILE, ALGENTA_HOST_CONFIG); command-line flags override these afterwards.
HostPaths default_host_paths();

// The configuration directory for an installation prefix: <prefix>/etc, or
// <prefix>/../etc when the prefix is a usr directory (/usr -> /etc).
std::filesystem::path configuration_dir_for_prefix(const std::filesystem::path& prefix);

}  // namespace algenta::host
