// The keyring: trusted Ed25519 public keys, one PEM per *.pub file. Keys are
// indexed by the id computed from the key itself, never by file name, so a
// renamed file cannot make one key pass for another.
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
  try {
    for (const fs::directory_entry& entry : fs::directory_iterator(directory)) {
      if (entry.path().extension() != ".pub" || !entry.is_regular_file()) continue;
      require_trusted_keyring_path(entry.path(), "keyring file");
      try {
        keyring.add(read_key_file(entry.path()));
      } catch (const CryptoError& bad_key) {
        throw ManifestError("keyring file " + entry.path().string() +
                            " is not an Ed25519 public key: " + bad_key.what());
      }
    }
  } catch (const fs::filesystem_error& listing) {
    throw ManifestError("cannot list keyring directory " + directory.string() + ": " +
                        listing.code().message());
  }
  return keyring;
}

const std::string* Keyring::find(const std::string& key_id) const {
  const auto found = keys_.find(key_id);
  return found == keys_.end() ? nullptr : &found->second;
}

std::vector<std::string> Keyring::key_ids() const {
  std::vector<std::string> ids;
  for (const auto& [id, pem] : keys_) ids.push_back(id);
  return ids;
}

void Keyring::add(const std::string& public_pem) {
  keys_[key_id_of_public_pem(public_pem)] = public_pem;
}

}  // namespace algenta::manifest
