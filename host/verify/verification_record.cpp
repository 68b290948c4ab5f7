#include "verify/verification_record.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "files/bounded_read.hpp"
#include "files/file_caps.hpp"
#include "manifest/atomic_file.hpp"
#include "json/strict_json.hpp"

namespace algenta::host {
namespace fs = std::filesystem;
namespace {

using nlohmann::json;

constexpr std::size_t kMaxDepth = 4;  // root > plugins > record > gates
const char* const kVerdicts[] = {"PASS", "FAIL", "NOT RUN"};

[[noreturn]] void fail(const fs::path& file, const std::string& why) {
  throw VerificationRecordError("verification record " + file.string() + " " + why);
}

[[noreturn]] void malformed(const fs::path& file, const std::string& why) {
  fail(file,
       "is malformed: " + why + "; it was left as it is (move it away to start a new record)");
}

bool is_digest(const std::string& text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// A policy name as descriptors spell them: lowercase letters, digits, '_'.
bool is_policy_name(const std::string& text) {
  return !text.empty() && text.size() <= 32 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
         });
}

bool is_verdict(const std::string& text) {
  return std::find(std::begin(kVerdicts), std::end(kVerdicts), text) != std::end(kVerdicts);
}

std::string field_string(const fs::path& file, const json& object, const std::string& where,
                         const char* name) {
  const auto found = object.find(name);
  if (found == object.end() || !found->is_string()) {
    malformed(file, where + "." + name + " is missing or not a string");
  }
  return found->get<std::string>();
}

// Schema /1 keys are digests; schema /2 keys are "<digest>/<precision>", or
// a bare digest for a record carried over from /1 (which has no precision).
VerificationRecord parse_record(const fs::path& file, bool per_policy, const std::string& key,
                                const json& value) {
  const std::string where = "plugins." + key;
  const std::size_t slash = key.find('/');
  const std::string digest = key.substr(0, slash);
  const std::string precision = slash == std::string::npos ? "" : key.substr(slash + 1);
  const bool policy_ok = slash == std::string::npos || (per_policy && is_policy_name(precision));
  if (!is_digest(digest) || !policy_ok) {
    malformed(file, "key " + json(key).dump() + " is not a sha256 digest" +
                        (per_policy ? " or \"<sha256>/<precision policy>\"" : ""));
  }
  if (!value.is_object()) malformed(file, where + " is not an object");
  VerificationRecord record;
  record.digest = digest;
  record.precision = precision;
  if (precision.empty()) {
    if (value.contains("precision")) {
      malformed(file, where + ".precision is set but the key names no policy (expected \"" +
                          digest + "/<precision>\")");
    }
  } else if (field_string(file, value, where, "precision") != precision) {
    malformed(file, where + ".precision is not " + json(precision).dump() +
                        ", the policy its key names");
  }
  record.plugin = field_string(file, value, where, "plugin");
  record.model_dir = field_string(file, value, where, "model_dir");
  record.time = field_string(file, value, where, "time");
  record.host_version = field_string(file, value, where, "host_version");
  const auto passed = value.find("passed");
  if (passed == value.end() || !passed->is_boolean()) {
    malformed(file, where + ".passed is missing or not true/false");
  }
  record.passed = passed->get<bool>();
  const auto gates = value.find("gates");
  if (gates == value.end() || !gates->is_object()) {
    malformed(file, where + ".gates is missing or not an object");
  }
  for (const auto& [gate, verdict] : gates->items()) {
    if (!verdict.is_string() || !is_verdict(verdict.get<std::string>())) {
      malformed(file, where + ".gates." + gate + " is " + strict_json::shown(verdict) +
                          ", not one of \"PASS\", \"FAIL\", \"NOT RUN\"");
    }
    record.gates[gate] = verdict.get<std::string>();
  }
  return record;
}

std::map<std::string, VerificationRecord> parse_records(const fs::path& file,
                                                        const std::string& text) {
  json root;
  try {
    root = strict_json::parse(text, kMaxDepth);
  } catch (const strict_json::StrictJsonError& e) {
    if (e.kind == strict_json::StrictJsonError::Kind::duplicate_key) {
      const std::string where = strict_json::dotted_path(e.path);
      malformed(file, "the key " + json(e.key).dump() + " appears twice in " +
                          (where.empty() ? std::string("the top level") : where));
    }
    fail(file, std::string("is not valid JSON (") + e.what() +
                   "); it was left as it is (move it away to start a new record)");
  }
  if (!root.is_object()) malformed(file, "the top level is not an object");
  const bool per_policy = root.contains("schema") && root["schema"] == kVerificationSchema;
  if (!per_policy && !(root.contains("schema") && root["schema"] == kVerificationSchemaV1)) {
    malformed(file, std::string("\"schema\" is not \"") + kVerificationSchema + "\" (or \"" +
                        kVerificationSchemaV1 + "\")");
  }
  if (!root.contains("plugins") || !root["plugins"].is_object()) {
    malformed(file, "\"plugins\" is missing or not an object");
  }
  std::map<std::string, VerificationRecord> records;
  for (const auto& [key, value] : root["plugins"].items()) {
    records[key] = parse_record(file, per_policy, key, value);
  }
  return records;
}

json to_json(const VerificationRecord& record) {
  json value = {{"plugin", record.plugin}, {"model_dir", record.model_dir},
                {"passed", record.passed}, {"gates", record.gates},
                {"time", record.time},     {"host_version", record.host_version}};
  if (!record.precision.empty()) value["precision"] = record.precision;
  return value;
}

}  // namespace

std::string verification_key(const std::string& digest, const std::string& precision) {
  return precision.empty() ? digest : digest + "/" + precision;
}

fs::path verification_file_beside(const fs::path& state_file) {
  const fs::path directory =
      state_file.has_parent_path() ? state_file.parent_path() : fs::path(".");
  return directory / kVerificationFileName;
}

std::map<std::string, VerificationRecord> read_verifications(const fs::path& file) {
  std::optional<std::string> text;
  try {
    text = files::read_bounded_if_present(file, files::kVerificationRecordCap);
  } catch (const files::FileReadError& error) {
    fail(file, error.reason);
  }
  return text ? parse_records(file, *text) : std::map<std::string, VerificationRecord>{};
}

void record_verification(const fs::path& file, const VerificationRecord& record) {
  if (!is_digest(record.digest)) {
    throw VerificationRecordError("cannot record a verification for digest " +
                                  json(record.digest).dump() +
                                  ": expected 64 lowercase hex digits (a sha256)");
  }
  if (!is_policy_name(record.precision)) {
    throw VerificationRecordError("cannot record a verification under precision " +
                                  json(record.precision).dump() +
                                  ": expected a policy name such as \"exact\" or \"bf16\"");
  }
  for (const auto& [gate, verdict] : record.gates) {
    if (!is_verdict(verdict)) {
      throw VerificationRecordError("cannot record gate " + gate + " as " + json(verdict).dump() +
                                    ": expected \"PASS\", \"FAIL\" or \"NOT RUN\"");
    }
  }
  std::map<std::string, VerificationRecord> records = read_verifications(file);
  records[verification_key(record.digest, record.precision)] = record;
  json plugins = json::object();
  for (const auto& [key, kept] : records) plugins[key] = to_json(kept);
  const json root = {{"schema", kVerificationSchema}, {"plugins", plugins}};
  try {
    manifest::write_file_atomically(file, root.dump(2) + "\n");
  } catch (const manifest::AtomicWriteError& e) {
    throw VerificationRecordError(std::string("verification record ") + e.what());
  }
}

std::optional<VerificationRecord> verification_of(const fs::path& file, const std::string& digest,
                                                  const std::string& precision) {
  if (precision.empty()) return std::nullopt;  // a /1 record names no policy
  const std::map<std::string, VerificationRecord> records = read_verifications(file);
  const auto found = records.find(verification_key(digest, precision));
  if (found == records.end()) return std::nullopt;
  return found->second;
}

std::vector<VerificationRecord> verifications_of_digest(const fs::path& file,
                                                        const std::string& digest) {
  std::vector<VerificationRecord> found;
  for (const auto& [key, record] : read_verifications(file)) {
    if (record.digest == digest) found.push_back(record);
  }
  return found;
}

bool verified(const fs::path& file, const std::string& digest, const std::string& precision) {
  const std::optional<VerificationRecord> record = verification_of(file, digest, precision);
  return record.has_value() && record->passed;
}

}  // namespace algenta::host
