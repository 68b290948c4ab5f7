// Rollback protection: the highest manifest version accepted per signing key,
// kept as {"versions": {"<key_id>": N}}. A damaged file is an error, never a
// silent reset: forgetting the versions would re-admit old signed manifests.
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "manifest/atomic_file.hpp"
#include "manifest/trust.hpp"

namespace algenta::manifest {
namespace fs = std::filesystem;
namespace {

using nlohmann::json;

[[noreturn]] void fail_state(const fs::path& file, const std::string& why) {
  throw ManifestError("version state file " + file.string() + " " + why);
}

std::map<std::string, std::uint64_t> parse_versions(const fs::path& file,
                                                    const std::string& bytes) {
  const json root = json::parse(bytes, nullptr, false);
  if (root.is_discarded()) fail_state(file, "is not valid JSON");
  if (!root.is_object() || root.size() != 1 || !root.contains("versions") ||
      !root["versions"].is_object()) {
    fail_state(file, "is malformed: expected exactly {\"versions\": {\"<key id>\": N}}");
  }
  std::map<std::string, std::uint64_t> versions;
  for (const auto& [key_id, version] : root["versions"].items()) {
    if (!version.is_number_unsigned()) {
      fail_state(file, "is malformed: the version of key " + json(key_id).dump() +
                           " is not a non-negative integer");
    }
    versions[key_id] = version.get<std::uint64_t>();
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
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::error_code error;
    if (!fs::exists(fs::symlink_status(file, error))) return state;
    fail_state(file, "cannot be read");
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  state.versions_ = parse_versions(file, bytes.str());
  return state;
}

std::optional<std::uint64_t> VersionState::accepted(const std::string& key_id) const {
  const auto found = versions_.find(key_id);
  if (found == versions_.end()) return std::nullopt;
  return found->second;
}

void VersionState::record(const std::string& key_id, std::uint64_t version) {
  std::uint64_t& kept = versions_[key_id];
  kept = std::max(kept, version);
}

void VersionState::save() const {
  if (file_.empty()) return;
  json root;
  root["versions"] = json::object();
  for (const auto& [key_id, version] : versions_) root["versions"][key_id] = version;
  write_atomically(file_, root.dump(2) + "\n");
}

}  // namespace algenta::manifest
