// Where the host finds its signed plugin bundles, trusted keys and state.
// Defaults sit beside the executable (bin/../lib, bin/../etc), which holds in
// the build tree and in an installed tree alike.
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

}  // namespace algenta::host
