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

VerificationRecord parse_record(const fs::path& file, const std::string& digest,
                                const json& value) {
  const std::string where = "plugins." + digest;
  if (!is_digest(digest)) malformed(file, "key " + json(digest).dump() + " is not a sha256 digest");
  if (!value.is_object()) malformed(file, where + " is not an object");
  VerificationRecord record;
  record.digest = digest;
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
  if (!root.contains("schema") || root["schema"] != kVerificationSchema) {
    malformed(file, std::string("\"schema\" is not \"") + kVerificationSchema + "\"");
  }
  if (!root.contains("plugins") || !root["plugins"].is_object()) {
    malformed(file, "\"plugins\" is missing or not an object");
  }
  std::map<std::string, VerificationRecord> records;
  for (const auto& [digest, value] : root["plugins"].items()) {
    records[digest] = parse_record(file, digest, value);
  }
  return records;
}

json to_json(const VerificationRecord& record) {
  return {{"plugin", record.plugin}, {"model_dir", record.model_dir},
          {"passed", record.passed}, {"gates", record.gates},
          {"time", record.time},     {"host_version", record.host_version}};
}

}  // namespace

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
  for (const auto& [gate, verdict] : record.gates) {
    if (!is_verdict(verdict)) {
      throw VerificationRecordError("cannot record gate " + gate + " as " + json(verdict).dump() +
                                    ": expected \"PASS\", \"FAIL\" or \"NOT RUN\"");
    }
  }
  std::map<std::string, VerificationRecord> records = read_verifications(file);
  records[record.digest] = record;
  json plugins = json::object();
  for (const auto& [digest, kept] : records) plugins[digest] = to_json(kept);
  const json root = {{"schema", kVerificationSchema}, {"plugins", plugins}};
  try {
    manifest::write_file_atomically(file, root.dump(2) + "\n");
  } catch (const manifest::AtomicWriteError& e) {
    throw VerificationRecordError(std::string("verification record ") + e.what());
  }
}

std::optional<VerificationRecord> verification_of(const fs::path& file, const std::string& digest) {
  const std::map<std::string, VerificationRecord> records = read_verifications(file);
  const auto found = records.find(digest);
  if (found == records.end()) return std::nullopt;
  return found->second;
}

bool verified(const fs::path& file, const std::string& digest) {
  const std::optional<VerificationRecord> record = verification_of(file, digest);
  return record.has_value() && record->passed;
}

}  // namespace algenta::host
