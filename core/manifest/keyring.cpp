// The keyring: trusted Ed25519 public keys, one PEM per *.pub file. Keys are
// indexed by the id computed from the key itself, never by file name, so a
// renamed file cannot make one key pass for another. Keys under bundle/<name>/
// are trusted for that bundle alone; keys under revoked/ never again.
#include <sys/stat.h>

#include "files/bounded_read.hpp"
#include "files/file_caps.hpp"
#include "manifest/crypto.hpp"
#include "manifest/trust.hpp"
#include "manifest/trusted_paths.hpp"

namespace algenta::manifest {
namespace fs = std::filesystem;
namespace {

std::string read_key_file(const fs::path& file) {
  try {
    return files::read_bounded(file, files::kKeyFileCap);
  } catch (const files::FileReadError& error) {
    throw ManifestError("keyring file " + std::string(error.what()));
  }
}

// Every *.pub key of `directory`, each passed to `take` with its path.
template <typename Take>
void read_keys(const fs::path& directory, const char* what, Take take) {
  try {
    for (const fs::directory_entry& entry : fs::directory_iterator(directory)) {
      if (entry.path().extension() != ".pub" || !entry.is_regular_file()) continue;
      require_trusted_keyring_path(entry.path(), what);
      try {
        take(read_key_file(entry.path()), entry.path());
      } catch (const CryptoError& bad_key) {
        throw ManifestError(std::string(what) + " " + entry.path().string() +
                            " is not an Ed25519 public key: " + bad_key.what());
      }
    }
  } catch (const fs::filesystem_error& listing) {
    throw ManifestError("cannot list keyring directory " + directory.string() + ": " +
                        listing.code().message());
  }
}

bool is_real_directory(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(fs::symlink_status(path, error));
}

}  // namespace

Keyring Keyring::load(const fs::path& directory) {
  std::error_code error;
  const fs::file_status status = fs::status(directory, error);
  if (!fs::is_directory(status)) {
    const std::string why = status.type() == fs::file_type::not_found ? "does not exist"
                            : error ? "cannot be read: " + error.message()
                                    : "is not a directory";
    throw ManifestError("keyring directory " + directory.string() + " " + why);
  }
  // Anyone who can write the keyring can make their own key trusted.
  require_trusted_keyring_path(directory, "keyring directory");
  Keyring keyring;
  read_keys(directory, "keyring file",
            [&](const std::string& pem, const fs::path&) { keyring.add(pem); });
  const fs::path scoped = directory / "bundle";
  if (is_real_directory(scoped)) {
    require_trusted_keyring_path(scoped, "keyring directory");
    std::vector<fs::path> bundles;
    try {
      for (const fs::directory_entry& entry : fs::directory_iterator(scoped)) {
        if (entry.is_directory(error) && !entry.is_symlink(error)) bundles.push_back(entry.path());
      }
    } catch (const fs::filesystem_error& listing) {
      throw ManifestError("cannot list keyring directory " + scoped.string() + ": " +
                          listing.code().message());
    }
    for (const fs::path& bundle : bundles) {
      require_trusted_keyring_path(bundle, "keyring directory");
      const std::string name = bundle.filename().string();
      read_keys(bundle, "keyring file", [&](const std::string& pem, const fs::path&) {
        keyring.add_for_bundle(pem, name);
      });
    }
  }
  const fs::path revoked = directory / "revoked";
  if (is_real_directory(revoked)) {
    require_trusted_keyring_path(revoked, "keyring directory");
    read_keys(revoked, "revocation file", [&](const std::string& pem, const fs::path& file) {
      keyring.revoke(pem, file.string());
    });
  }
  return keyring;
}

const std::string* Keyring::find(const std::string& key_id) const {
  if (revoked_.count(key_id) != 0) return nullptr;
  const auto found = keys_.find(key_id);
  return found == keys_.end() ? nullptr : &found->second;
}

const std::string* Keyring::find_for_bundle(const std::string& key_id,
                                            const std::string& bundle) const {
  if (const std::string* everywhere = find(key_id)) return everywhere;
  if (revoked_.count(key_id) != 0) return nullptr;
  const auto scoped = bundle_keys_.find(key_id);
  if (scoped == bundle_keys_.end()) return nullptr;
  const auto found = scoped->second.find(bundle);
  return found == scoped->second.end() ? nullptr : &found->second;
}

const std::string* Keyring::revocation(const std::string& key_id) const {
  const auto found = revoked_.find(key_id);
  return found == revoked_.end() ? nullptr : &found->second;
}

std::vector<std::string> Keyring::bundles_of(const std::string& key_id) const {
  std::vector<std::string> bundles;
  const auto scoped = bundle_keys_.find(key_id);
  if (scoped == bundle_keys_.end() || keys_.count(key_id) != 0) return bundles;
  for (const auto& [bundle, pem] : scoped->second) bundles.push_back(bundle);
  return bundles;
}

std::vector<std::string> Keyring::key_ids() const {
  std::vector<std::string> ids;
  for (const auto& [id, pem] : keys_) {
    if (revoked_.count(id) == 0) ids.push_back(id);
  }
  return ids;
}

void Keyring::add(const std::string& public_pem) {
  keys_[key_id_of_public_pem(public_pem)] = public_pem;
}

void Keyring::add_for_bundle(const std::string& public_pem, const std::string& bundle) {
  bundle_keys_[key_id_of_public_pem(public_pem)][bundle] = public_pem;
}

void Keyring::revoke(const std::string& public_pem, const std::string& keyring_file) {
  revoked_[key_id_of_public_pem(public_pem)] = keyring_file;
}

}  // namespace algenta::manifest
