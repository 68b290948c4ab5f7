#include "manifest/trusted_paths.hpp"

#include "manifest/manifest.hpp"
#include "manifest/trust.hpp"
#include "path_trust/path_trust.hpp"

namespace algenta::manifest {
namespace fs = std::filesystem;
namespace {

void require(const fs::path& path, const std::string& what) {
  if (const auto why = path_trust::untrusted_reason(path, what)) throw ManifestError(*why);
}

}  // namespace

void require_trusted_bundle(const fs::path& directory) {
  require(directory, "bundle directory");
  require(directory / kManifestFile, "bundle file");
  require(directory / kSignatureFile, "bundle file");
}

void require_trusted_keyring_path(const fs::path& path, const char* what) {
  require(path, what);
}

void require_trusted_state_file(const fs::path& file) {
  if (!file.empty()) require(file, "version state file");
}

}  // namespace algenta::manifest
