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
// computed from the key itself (file names are not trusted).
class Keyring {
 public:
  static Keyring load(const std::filesystem::path& directory);  // throws ManifestError
  const std::string* find(const std::string& key_id) const;  // public PEM or null
  std::vector<std::string> key_ids() const;
  void add(const std::string& public_pem);

 private:
  std::map<std::string, std::string> keys_;
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
