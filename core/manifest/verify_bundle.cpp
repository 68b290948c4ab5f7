// The trust decision for one bundle. manifest.json is read once into memory;
// the signature is checked over exactly those bytes, and only then is their
// content believed. Every refusal names the one fact that failed.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <utility>

#include "json/strict_json.hpp"
#include "manifest/canonical_form.hpp"
#include "manifest/crypto.hpp"
#include "manifest/trust.hpp"
#include "manifest/trusted_paths.hpp"

#include "files/unique_fd.hpp"

namespace algenta::manifest {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kSignatureBytes = 64;
constexpr std::size_t kKeyIdChars = 32;

// A refusal raised by one check and turned into the verdict's reason.
struct Refused {
  std::string reason;
};

[[noreturn]] void refuse(std::string reason) { throw Refused{std::move(reason)}; }

// Anyone who can write here could swap the files under the host's feet.
void require_not_world_writable(const struct stat& info, const std::string& what) {
  if ((info.st_mode & S_IWOTH) != 0) refuse(what + " is world-writable");
}

struct stat stat_of(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) refuse(std::string("fstat failed: ") + std::strerror(errno));
  return info;
}

files::UniqueFd open_bundle_directory(const fs::path& directory) {
  files::UniqueFd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) {
    refuse("bundle directory " + directory.string() + " cannot be opened: " +
           std::strerror(errno));
  }
  require_not_world_writable(stat_of(dir.get()), "bundle directory " + directory.string());
  return dir;
}

// Opens a file of the bundle without following a symlink (O_NOFOLLOW) and
// without blocking on a FIFO (O_NONBLOCK), then reads it whole, refusing it
// when its size breaks `size_rule` (which refuses with its own message).
template <typename SizeRule>
std::string read_bundle_file(int dir_fd, const std::string& name, SizeRule size_rule) {
  files::UniqueFd file(
      ::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (file.get() < 0) {
    if (errno == ENOENT) refuse(name + " missing");
    if (errno == ELOOP) refuse(name + " is a symlink; bundle files must be regular files");
    refuse(name + " cannot be opened: " + std::strerror(errno));
  }
  const struct stat info = stat_of(file.get());
  if (!S_ISREG(info.st_mode)) refuse(name + " is not a regular file");
  require_not_world_writable(info, name);
  const auto size = static_cast<std::uint64_t>(info.st_size);
  size_rule(size);

  std::string bytes(size + 1, '\0');  // one spare byte detects growth
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(file.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) refuse(name + " cannot be read: " + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got != size) refuse(name + " changed size while being read");
  bytes.resize(size);
  return bytes;
}

bool is_key_id(const std::string& text) {
  if (text.size() != kKeyIdChars) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Before the signature is checked, the one thing read from the manifest is
// which key claims to have signed it; everything else waits for the check.
// The strict reader parse_manifest uses reads it, so no reading is believed
// here that the parser would refuse later (a mark before the text, a NUL
// and more bytes after it, a repeated key_id).
std::string claimed_key_id(const std::string& bytes) {
  nlohmann::json root;
  try {
    root = strict_json::parse(bytes, kMaxManifestDepth);
  } catch (const strict_json::StrictJsonError& error) {
    // Printable ASCII only: unverified bytes are never echoed raw.
    const std::string what =
        error.kind == strict_json::StrictJsonError::Kind::duplicate_key
            ? "duplicate key " + strict_json::shown(nlohmann::json(error.key)) + " in " +
                  (error.path.empty() ? "the top level" : strict_json::dotted_path(error.path))
            : std::string(error.what());
    refuse(std::string(kManifestFile) + " is not valid JSON (" + what + ")");
  }
  const auto key_id = root.is_object() ? root.find("key_id") : root.end();
  if (!root.is_object() || key_id == root.end() || !key_id->is_string()) {
    refuse(std::string(kManifestFile) + " has no key_id string");
  }
  if (!is_key_id(key_id->get<std::string>())) {
    refuse(std::string(kManifestFile) + " key_id " +
           key_id->dump(-1, ' ', true, nlohmann::json::error_handler_t::replace).substr(0, 80) +
           " is not " + std::to_string(kKeyIdChars) + " lowercase hex digits");
  }
  return key_id->get<std::string>();
}

const std::string& trusted_key(const Keyring& keyring, const std::string& key_id,
                               const std::string& bundle) {
  if (const std::string* file = keyring.revocation(key_id)) {
    refuse("signing key " + key_id + " is revoked (" + *file + ")");
  }
  if (const std::string* pem = keyring.find_for_bundle(key_id, bundle)) return *pem;
  if (const std::vector<std::string> own = keyring.bundles_of(key_id); !own.empty()) {
    std::string names;
    for (const std::string& name : own) names += (names.empty() ? "" : ", ") + name;
    refuse("signing key " + key_id + " is trusted only for bundle " + names + ", not for " +
           bundle);
  }
  std::string trusted;
  for (const std::string& id : keyring.key_ids()) trusted += (trusted.empty() ? "" : ", ") + id;
  refuse("unknown signing key id " + key_id + " (trusted: " +
         (trusted.empty() ? "none" : trusted) + ")");
}

// Rollback: a version below the one accepted. Replay: another manifest at
// the version accepted (a version is signed once; the digest says which).
void require_not_rolled_back_or_replayed(const VersionState& state, const std::string& key_id,
                                         std::uint64_t version, const std::string& sha256) {
  const AcceptedManifest* accepted = state.accepted_manifest(key_id);
  if (accepted == nullptr) return;
  if (version < accepted->version) {
    refuse("version " + std::to_string(version) + " is lower than version " +
           std::to_string(accepted->version) + " already accepted for key " + key_id +
           " (rollback)");
  }
  if (version == accepted->version && !accepted->manifest_sha256.empty() &&
      accepted->manifest_sha256 != sha256) {
    refuse("version " + std::to_string(version) + " of key " + key_id +
           " was already accepted as a manifest with sha256 " + accepted->manifest_sha256 +
           "; this " + kManifestFile + " has sha256 " + sha256 +
           " at the same version (replay: a version is signed once)");
  }
}

struct CheckedManifest {
  Manifest manifest;
  std::string sha256;  // of the exact bytes accepted
};

CheckedManifest check_bundle(const fs::path& directory, const Keyring& keyring,
                             const VersionState& state, std::int64_t now) {
  require_trusted_bundle(directory);
  const files::UniqueFd dir = open_bundle_directory(directory);
  const std::string bytes = read_bundle_file(dir.get(), kManifestFile, [](std::uint64_t size) {
    if (size > kMaxManifestBytes) {
      refuse(std::string(kManifestFile) + " is " + std::to_string(size) +
             " bytes, over the cap of " + std::to_string(kMaxManifestBytes) + " bytes");
    }
  });
  const std::string signature =
      read_bundle_file(dir.get(), kSignatureFile, [](std::uint64_t size) {
        if (size != kSignatureBytes) {
          refuse("signature is " + std::to_string(size) + " bytes, Ed25519 signatures are " +
                 std::to_string(kSignatureBytes));
        }
      });

  const std::string key_id = claimed_key_id(bytes);
  const std::string bundle = directory.lexically_normal().has_filename()
                                 ? directory.lexically_normal().filename().string()
                                 : directory.lexically_normal().parent_path().filename().string();
  if (!verify_ed25519(trusted_key(keyring, key_id, bundle), bytes, signature)) {
    refuse("signature does not verify over " + std::string(kManifestFile) +
           " (edited after signing, or signed by another key)");
  }

  Manifest manifest;
  try {
    // One signature, one reading: only the bytes algenta-sign writes count.
    manifest = parse_canonical_manifest(bytes);
  } catch (const ManifestError& error) {
    refuse(std::string(kManifestFile) + ": " + error.what());
  }
  if (now >= parse_utc_timestamp(manifest.expires)) {
    refuse("expired at " + manifest.expires + " (now " + format_utc_timestamp(now) + ")");
  }
  std::string sha256 = sha256_hex(bytes);
  require_not_rolled_back_or_replayed(state, key_id, manifest.version, sha256);
  return {std::move(manifest), std::move(sha256)};
}

}  // namespace

BundleVerdict verify_bundle(const fs::path& directory, const Keyring& keyring,
                            VersionState& state, std::int64_t now_unix_seconds) {
  BundleVerdict verdict;
  verdict.directory = directory;
  try {
    CheckedManifest checked = check_bundle(directory, keyring, state, now_unix_seconds);
    state.record(checked.manifest.key_id, checked.manifest.version, checked.sha256);
    state.save();
    verdict.manifest = std::move(checked.manifest);
    verdict.accepted = true;
  } catch (const Refused& refused) {
    verdict.reason = refused.reason;
  } catch (const std::exception& error) {
    // Failures of the machinery (memory, a key, the state file) also refuse.
    verdict.reason = error.what();
  }
  return verdict;
}

}  // namespace algenta::manifest
