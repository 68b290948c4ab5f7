// Trust decisions over signed bundles: keyring, rollback state, verdicts.
//
// A bundle is a directory holding manifest.json, manifest.json.sig and the
// plugin files the manifest lists. Several bundles (vendor, third parties)
// sit side by side under one plugins root.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "manifest/manifest.hpp"

namespace algenta::manifest {

inline constexpr const char* kManifestFile = "manifest.json";
inline constexpr const char* kSignatureFile = "manifest.json.sig";

// Trusted public keys: every *.pub (PEM) in a directory, indexed by key id
// computed from the key itself (file names are not trusted). Beneath it:
//   bundle/<name>/*.pub  keys trusted only for the bundle directory <name>
//                        (a third party's key, for its own bundle);
//   revoked/*.pub        keys never trusted again, wherever else they appear.
class Keyring {
 public:
  static Keyring load(const std::filesystem::path& directory);  // throws ManifestError
  // A key trusted for every bundle (public PEM), or null.
  const std::string* find(const std::string& key_id) const;
  // A key trusted for the bundle directory named `bundle`: for every bundle
  // or for that one; null when revoked or not trusted for it.
  const std::string* find_for_bundle(const std::string& key_id, const std::string& bundle) const;
  // The keyring file that revokes `key_id`, or null when it is not revoked.
  const std::string* revocation(const std::string& key_id) const;
  // The bundles a key is trusted for alone (empty when none or every one).
  std::vector<std::string> bundles_of(const std::string& key_id) const;
  std::vector<std::string> key_ids() const;  // trusted for every bundle
  void add(const std::string& public_pem);
  void add_for_bundle(const std::string& public_pem, const std::string& bundle);
  void revoke(const std::string& public_pem, const std::string& keyring_file);

 private:
  std::map<std::string, std::string> keys_;
  std::map<std::string, std::map<std::string, std::string>> bundle_keys_;  // id -> bundle -> pem
  std::map<std::string, std::string> revoked_;  // id -> keyring file
};

// What was accepted for one signing key: its highest manifest version and
// the sha256 of that manifest's exact bytes.
struct AcceptedManifest {
  std::uint64_t version = 0;
  // Lowercase hex; empty when a state file of the older form recorded only
  // the version (the next manifest accepted at that version fills it in).
  std::string manifest_sha256;
};

// Rollback and replay protection: per key id, the highest version accepted
// and which manifest it was. Stored as JSON; written atomically (temp +
// rename).
class VersionState {
 public:
  static VersionState load(const std::filesystem::path& file);  // missing file = empty
  std::optional<std::uint64_t> accepted(const std::string& key_id) const;
  const AcceptedManifest* accepted_manifest(const std::string& key_id) const;  // or null
  // A higher version replaces what is kept; at the same version only a
  // missing digest is filled in; a lower version changes nothing.
  void record(const std::string& key_id, std::uint64_t version,
              const std::string& manifest_sha256);
  void save() const;  // no-op when the path is empty

 private:
  std::filesystem::path file_;
  std::map<std::string, AcceptedManifest> versions_;
};

struct BundleVerdict {
  std::filesystem::path directory;
  bool accepted = false;
  std::string reason;  // for a refusal: the exact fact, e.g. "expired at ..."
  std::optional<Manifest> manifest;  // set when accepted
};

// Reads manifest.json (once) and its signature; checks, in order: size cap,
// signature file present and 64 bytes, key id known, signature over the exact
// bytes, strict parse, canonical form, schema, not expired at `now`, version
// >= recorded version for that key, and at the recorded version the same
// manifest bytes (sha256) as accepted before. On acceptance records the
// version and digest in `state`.
BundleVerdict verify_bundle(const std::filesystem::path& directory,
                            const Keyring& keyring, VersionState& state,
                            std::int64_t now_unix_seconds);

}  // namespace algenta::manifest
