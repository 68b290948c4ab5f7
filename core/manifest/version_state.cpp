// Rollback and replay protection: per signing key, the highest manifest
// version accepted and the sha256 of that manifest's exact bytes, kept as
// {"versions": {"<key id>": {"version": N, "manifest_sha256": "<hex>"}}}.
// A damaged file is an error, never a silent reset: forgetting the versions
// would re-admit old signed manifests.
#include <nlohmann/json.hpp>

#include "files/bounded_read.hpp"
#include "files/file_caps.hpp"
#include "json/strict_json.hpp"
#include "manifest/atomic_file.hpp"
#include "manifest/trust.hpp"

namespace algenta::manifest {
namespace fs = std::filesystem;
namespace {

using nlohmann::json;

constexpr std::size_t kMaxStateDepth = 3;  // root -> versions -> one key's entry
constexpr std::size_t kSha256HexChars = 64;

[[noreturn]] void fail_state(const fs::path& file, const std::string& why) {
  throw ManifestError("version state file " + file.string() + " " + why);
}

bool is_sha256_hex(const std::string& text) {
  if (text.size() != kSha256HexChars) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

AcceptedManifest parse_entry(const fs::path& file, const std::string& key_id, const json& entry) {
  const std::string of_key = "the entry of key " + strict_json::shown(json(key_id));
  // The older form: a bare version, from before digests were recorded. The
  // version still forbids rollback; the first manifest accepted at exactly
  // that version records its digest, and from then on only it is accepted.
  if (entry.is_number_unsigned()) return {entry.get<std::uint64_t>(), ""};
  if (!entry.is_object() || entry.size() != 2 || !entry.contains("version") ||
      !entry.contains("manifest_sha256")) {
    fail_state(file, "is malformed: " + of_key +
                         " is not {\"version\": N, \"manifest_sha256\": \"<64 hex digits>\"}");
  }
  if (!entry["version"].is_number_unsigned()) {
    fail_state(file, "is malformed: the version in " + of_key + " is not a non-negative integer");
  }
  const json& digest = entry["manifest_sha256"];
  if (!digest.is_string() || !is_sha256_hex(digest.get<std::string>())) {
    fail_state(file, "is malformed: the manifest_sha256 in " + of_key + " is " +
                         strict_json::shown(digest) + ", not 64 lowercase hex digits");
  }
  return {entry["version"].get<std::uint64_t>(), digest.get<std::string>()};
}

std::map<std::string, AcceptedManifest> parse_versions(const fs::path& file,
                                                       const std::string& bytes) {
  json root;
  try {
    root = strict_json::parse(bytes, kMaxStateDepth);
  } catch (const strict_json::StrictJsonError& error) {
    fail_state(file, std::string("is not valid JSON: ") + error.what());
  }
  if (!root.is_object() || root.size() != 1 || !root.contains("versions") ||
      !root["versions"].is_object()) {
    fail_state(file, "is malformed: expected exactly {\"versions\": {\"<key id>\": {...}}}");
  }
  std::map<std::string, AcceptedManifest> versions;
  for (const auto& [key_id, entry] : root["versions"].items()) {
    versions[key_id] = parse_entry(file, key_id, entry);
  }
  return versions;
}

// Through a temporary file renamed over the old one, so a crash leaves
// either the old or the new state, never half.
void write_atomically(const fs::path& file, const std::string& bytes) {
  try {
    write_file_atomically(file, bytes);
  } catch (const AtomicWriteError& e) {
    fail_state(file, "cannot be saved: " + e.reason);
  }
}

}  // namespace

VersionState VersionState::load(const fs::path& file) {
  VersionState state;
  state.file_ = file;
  if (file.empty()) return state;
  std::optional<std::string> bytes;
  try {
    bytes = files::read_bounded_if_present(file, files::kVersionStateCap);
  } catch (const files::FileReadError& error) {
    fail_state(file, error.reason);
  }
  if (bytes) state.versions_ = parse_versions(file, *bytes);
  return state;
}

std::optional<std::uint64_t> VersionState::accepted(const std::string& key_id) const {
  const AcceptedManifest* kept = accepted_manifest(key_id);
  if (kept == nullptr) return std::nullopt;
  return kept->version;
}

const AcceptedManifest* VersionState::accepted_manifest(const std::string& key_id) const {
  const auto found = versions_.find(key_id);
  return found == versions_.end() ? nullptr : &found->second;
}

void VersionState::record(const std::string& key_id, std::uint64_t version,
                          const std::string& manifest_sha256) {
  const auto [found, inserted] = versions_.try_emplace(key_id, AcceptedManifest{version, manifest_sha256});
  AcceptedManifest& kept = found->second;
  if (inserted) return;
  if (version > kept.version) {
    kept = {version, manifest_sha256};
  } else if (version == kept.version && kept.manifest_sha256.empty()) {
    kept.manifest_sha256 = manifest_sha256;
  }
}

void VersionState::save() const {
  if (file_.empty()) return;
  json root;
  root["versions"] = json::object();
  for (const auto& [key_id, kept] : versions_) {
    json entry = json::object();
    entry["version"] = kept.version;
    entry["manifest_sha256"] = kept.manifest_sha256;
    root["versions"][key_id] = kept.manifest_sha256.empty() ? json(kept.version) : entry;
  }
  write_atomically(file_, root.dump(2) + "\n");
}

}  // namespace algenta::manifest
