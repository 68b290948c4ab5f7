#include "bench/verified_build.hpp"

#include <vector>

namespace algenta::host::bench {
namespace {

std::string failed_gates(const VerificationRecord& record) {
  std::string gates;
  for (const auto& [gate, verdict] : record.gates) {
    if (verdict == "PASS") continue;
    gates += (gates.empty() ? "" : ", ") + gate + " " + verdict;
  }
  return gates.empty() ? "no gate" : gates;
}

}  // namespace

BuildVerification check_verified_build(const std::filesystem::path& record_file,
                                       const std::string& plugin, const std::string& digest,
                                       const std::string& precision,
                                       const std::string& verify_command) {
  BuildVerification result;
  const std::string build = plugin + " (sha256 " + digest + ")";
  const std::string fix =
      "; bench times only builds that passed every verify gate under the "
      "precision policy timed. Run: " +
      verify_command;
  std::vector<VerificationRecord> records;
  try {
    records = verifications_of_digest(record_file, digest);
  } catch (const VerificationRecordError& e) {
    result.refusal = build + " cannot be cleared: " + e.what();
    return result;
  }
  std::string other_policies;
  for (const VerificationRecord& record : records) {
    if (record.precision == precision) {
      if (record.passed) {
        result.passing = record;
        return result;
      }
      result.refusal = build + " failed verify under precision " + precision + " (" +
                       failed_gates(record) + ", " + record.time + ", recorded in " +
                       record_file.string() + ")" + fix;
      return result;
    }
    other_policies +=
        (other_policies.empty() ? "" : ", ") +
        (record.precision.empty()
             ? "one from before records named the precision policy (" + record.time + ")"
             : record.precision + (record.passed ? " passed" : " failed"));
  }
  result.refusal = build + " has no verify record under precision " + precision + " in " +
                   record_file.string() +
                   (other_policies.empty() ? "" : " (its records: " + other_policies + ")") + fix;
  return result;
}

}  // namespace algenta::host::bench
