// The who-may-write rule (path_trust) applied to what the trust decision
// reads: bundle, keyring, version state. Each throws ManifestError naming
// the path and why someone untrusted could change it.
#pragma once

#include <filesystem>

namespace algenta::manifest {

// The bundle directory, manifest.json and manifest.json.sig.
void require_trusted_bundle(const std::filesystem::path& directory);

// The keyring directory, or one key file in it.
void require_trusted_keyring_path(const std::filesystem::path& path, const char* what);

// The version state file (or, before it exists, where it will be made).
void require_trusted_state_file(const std::filesystem::path& file);

}  // namespace algenta::manifest
