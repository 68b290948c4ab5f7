#include "sign_bundle.hpp"

#include <algorithm>
#include <limits>

#include "describe_plugin.hpp"
#include "file_io.hpp"
#include "files/bounded_read.hpp"
#include "files/file_caps.hpp"
#include "manifest/canonical_form.hpp"
#include "manifest/crypto.hpp"
#include "manifest/trust.hpp"

namespace algenta::sign {
namespace fs = std::filesystem;
namespace {

constexpr std::int64_t kSecondsPerDay = 86400;

bool is_plugin_file_name(const std::string& name) {
  return name.size() > 6 && name.starts_with("lib") && name.ends_with(".so");
}

// The manifest already in the bundle (any key), if there is one.
struct ExistingManifest {
  std::uint64_t version = 0;
  std::string bytes;
};

// A manifest that cannot be read stops signing: guessing would risk reusing
// or lowering a version that hosts already accepted.
std::optional<ExistingManifest> existing_manifest(const fs::path& plugins_dir) {
  const fs::path file = plugins_dir / manifest::kManifestFile;
  std::error_code error;
  if (!fs::exists(fs::symlink_status(file, error))) return std::nullopt;
  try {
    std::string bytes = files::read_bounded(file, {manifest::kMaxManifestBytes, "a manifest.json"});
    const std::uint64_t version = manifest::parse_manifest(bytes).version;
    return ExistingManifest{version, std::move(bytes)};
  } catch (const manifest::ManifestError& bad) {
    throw SignError("cannot take the version of the existing " + file.string() + " (" +
                    bad.what() + "); fix or remove it");
  }
}

// Hosts remember which manifest they accepted at a version and refuse any
// other at that version as a replay, so a version is signed once: only the
// very same bytes may be written again.
void require_version_unused(const std::optional<ExistingManifest>& existing,
                            std::uint64_t version, const std::string& bytes) {
  if (!existing || existing->version < version || existing->bytes == bytes) return;
  throw SignError("version " + std::to_string(version) + " is already used: the bundle's " +
                  manifest::kManifestFile + " is version " + std::to_string(existing->version) +
                  " with other content; hosts that accepted it would refuse this as a replay " +
                  (existing->version == std::numeric_limits<std::uint64_t>::max()
                       ? std::string("(no higher version exists)")
                       : "(sign with --version " + std::to_string(existing->version + 1) +
                             " or higher, or leave --version out)"));
}

std::uint64_t choose_version(const SignOptions& options, std::optional<std::uint64_t> existing) {
  if (options.version) {
    if (existing && *options.version < *existing) {
      throw SignError("--version " + std::to_string(*options.version) +
                      " is lower than the bundle's current version " + std::to_string(*existing) +
                      "; hosts that accepted it would refuse this as a rollback");
    }
    return *options.version;
  }
  if (!existing) return 1;
  if (*existing == std::numeric_limits<std::uint64_t>::max()) {
    throw SignError("the bundle's version " + std::to_string(*existing) + " cannot be raised");
  }
  return *existing + 1;
}

manifest::PluginEntry entry_for(const fs::path& file) {
  const std::string bytes = read_file(file);
  manifest::PluginEntry entry = describe_plugin(file);
  entry.file = file.filename().string();
  entry.sha256 = manifest::sha256_hex(bytes);
  entry.size = bytes.size();
  entry.min_driver = entry.target.starts_with("sm_") ? kCudaMinDriver : 0;
  return entry;
}

// Plugin files of a bundle: regular files named lib*.so, sorted by name.
std::vector<fs::path> list_plugin_files(const fs::path& plugins_dir) {
  std::vector<fs::path> files;
  try {
    for (const fs::directory_entry& entry : fs::directory_iterator(plugins_dir)) {
      // symlink_status: a symlink is not a plugin file, whatever it points to.
      if (fs::is_regular_file(entry.symlink_status()) &&
          is_plugin_file_name(entry.path().filename().string())) {
        files.push_back(entry.path());
      }
    }
  } catch (const fs::filesystem_error& error) {
    throw IoError("cannot list " + plugins_dir.string() + ": " + error.code().message());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

manifest::Manifest sign_bundle(const SignOptions& options) {
  const std::string private_pem = files::read_bounded(options.private_key, files::kKeyFileCap);
  const std::string key_id =
      manifest::key_id_of_public_pem(manifest::public_pem_of_private_pem(private_pem));

  manifest::Manifest manifest;
  const std::optional<ExistingManifest> existing = existing_manifest(options.plugins_dir);
  manifest.version = choose_version(
      options, existing ? std::optional<std::uint64_t>(existing->version) : std::nullopt);
  manifest.issued = manifest::format_utc_timestamp(options.now_unix_seconds);
  manifest.expires = manifest::format_utc_timestamp(options.now_unix_seconds +
                                                    options.valid_days * kSecondsPerDay);
  manifest.key_id = key_id;
  for (const fs::path& file : list_plugin_files(options.plugins_dir)) {
    manifest.plugins.push_back(entry_for(file));
  }

  const std::string bytes = manifest::serialize_manifest(manifest);
  try {
    // What a plugin declares must pass the same strict rules hosts apply,
    // the one-canonical-text rule included.
    manifest::parse_canonical_manifest(bytes);
  } catch (const manifest::ManifestError& invalid) {
    throw SignError(std::string("refusing to sign an invalid manifest: ") + invalid.what());
  }
  require_version_unused(existing, manifest.version, bytes);
  const std::string signature = manifest::sign_ed25519(private_pem, bytes);
  replace_file(options.plugins_dir / manifest::kManifestFile, bytes, 0644);
  replace_file(options.plugins_dir / manifest::kSignatureFile, signature, 0644);
  return manifest;
}

}  // namespace algenta::sign
