// Which plugin builds passed `algenta-host verify`: a small JSON file beside
// the host's state file (verification.json), keyed by the SHA-256 digest of
// the plugin file as its signed manifest lists it and the precision policy
// the gates ran under. A later run for the same digest and policy replaces
// the earlier one. Commands that must not run an unverified build (bench)
// ask verified() first.
//
//   {"schema": "algenta.verification/2",
//    "plugins": {"<sha256>/exact": {"plugin": "cuda_sm90a", "precision": "exact",
//                                   "model_dir": "...", "passed": true,
//                                   "gates": {"oracle": "PASS", ...},
//                                   "time": "2026-01-01T00:00:00Z",
//                                   "host_version": "0.1.0"}}}
//
// Files of schema algenta.verification/1 (keyed by the digest alone, no
// "precision") stay readable: their records read with an empty precision,
// count for no policy, and are kept under their digest when the file is
// rewritten.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace algenta::host {

inline constexpr const char* kVerificationFileName = "verification.json";
inline constexpr const char* kVerificationSchema = "algenta.verification/2";
// The schema before records were kept per precision policy (read only).
inline constexpr const char* kVerificationSchemaV1 = "algenta.verification/1";

// A damaged or unreadable record file: what() names the file and the fact.
// The file is never silently replaced, so a record cannot be lost unseen.
struct VerificationRecordError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct VerificationRecord {
  std::string digest;                        // 64 lowercase hex digits: the plugin file's SHA-256
  std::string plugin;                        // plugin name, e.g. "cuda_sm90a"
  std::string precision;                     // the policy the gates ran under, e.g. "exact";
                                             // empty in a record of schema /1
  std::string model_dir;                     // the prepared checkpoint it was verified on
  bool passed = false;                       // every gate ran and passed
  std::map<std::string, std::string> gates;  // gate -> "PASS" | "FAIL" | "NOT RUN"
  std::string time;                          // RFC 3339 UTC, when the run finished
  std::string host_version;                  // the algenta-host that ran the gates

  bool operator==(const VerificationRecord&) const = default;
};

// <directory of state_file>/verification.json
std::filesystem::path verification_file_beside(const std::filesystem::path& state_file);

// "<digest>/<precision>"; the digest alone for an empty precision (schema /1).
std::string verification_key(const std::string& digest, const std::string& precision);

// Adds or replaces the record for (record.digest, record.precision); written
// atomically. Throws VerificationRecordError for a damaged existing file or
// a record whose digest, precision or gate verdicts are malformed.
void record_verification(const std::filesystem::path& file, const VerificationRecord& record);

// Every record in the file by verification_key; a missing file holds none.
std::map<std::string, VerificationRecord> read_verifications(const std::filesystem::path& file);

// The latest record for a digest under a precision policy, if any.
std::optional<VerificationRecord> verification_of(const std::filesystem::path& file,
                                                  const std::string& digest,
                                                  const std::string& precision);

// Every record of a digest: one per policy, and one of schema /1 if kept.
std::vector<VerificationRecord> verifications_of_digest(const std::filesystem::path& file,
                                                        const std::string& digest);

// True only when the latest run for the digest under `precision` passed
// every gate.
bool verified(const std::filesystem::path& file, const std::string& digest,
              const std::string& precision);

}  // namespace algenta::host
