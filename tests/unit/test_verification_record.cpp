// The record of verified plugin builds (host/verification_record.hpp): what
// a later bench asks before it runs a plugin build.
#include <catch2/catch.hpp>
#include <filesystem>

#include "support/bundle_fixture.hpp"
#include "verify/verification_record.hpp"

namespace fs = std::filesystem;
using namespace algenta;
using Catch::Matchers::Contains;

namespace {

const std::string kDigestA(64, 'a');
const std::string kDigestB = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

host::VerificationRecord passed_record(const std::string& digest) {
  host::VerificationRecord record;
  record.digest = digest;
  record.plugin = "cuda_sm90a";
  record.precision = "exact";
  record.model_dir = "/models/qwen3-0.6b";
  record.passed = true;
  record.gates = {
      {"oracle", "PASS"}, {"repeat", "PASS"}, {"concurrent", "PASS"}, {"transformers", "PASS"}};
  record.time = "2026-12-02T16:00:00Z";
  record.host_version = "0.1.0";
  return record;
}

}  // namespace

TEST_CASE("the record file sits beside the state file", "[verification-record]") {
  CHECK(host::verification_file_beside("/var/algenta/manifest-versions.json") ==
        fs::path("/var/algenta/verification.json"));
  CHECK(host::verification_file_beside("state.json") == fs::path("./verification.json"));
}

TEST_CASE("a missing record file holds no verification", "[verification-record]") {
  test::TempDir dir;
  const fs::path file = dir.path() / "verification.json";
  CHECK(host::read_verifications(file).empty());
  CHECK_FALSE(host::verification_of(file, kDigestA, "exact").has_value());
  CHECK_FALSE(host::verified(file, kDigestA, "exact"));
}

TEST_CASE("a recorded run reads back unchanged", "[verification-record]") {
  test::TempDir dir;
  const fs::path file = dir.path() / "state" / "verification.json";  // directory made on demand
  const host::VerificationRecord record = passed_record(kDigestA);
  host::record_verification(file, record);
  const auto back = host::verification_of(file, kDigestA, "exact");
  REQUIRE(back.has_value());
  CHECK(*back == record);
  CHECK(host::verified(file, kDigestA, "exact"));
}

TEST_CASE("records are kept per digest and policy; a later run replaces an earlier one",
          "[verification-record]") {
  test::TempDir dir;
  const fs::path file = dir.path() / "verification.json";
  host::record_verification(file, passed_record(kDigestA));
  host::VerificationRecord other = passed_record(kDigestB);
  other.plugin = "cuda_sm80";
  host::record_verification(file, other);
  CHECK(host::read_verifications(file).size() == 2);
  CHECK(host::verification_of(file, kDigestB, "exact")->plugin == "cuda_sm80");
  CHECK(host::verification_of(file, kDigestA, "exact")->plugin == "cuda_sm90a");

  host::VerificationRecord rerun = passed_record(kDigestA);
  rerun.passed = false;
  rerun.gates["concurrent"] = "FAIL";
  host::record_verification(file, rerun);
  CHECK(host::read_verifications(file).size() == 2);
  CHECK_FALSE(host::verified(file, kDigestA, "exact"));
  CHECK(host::verified(file, kDigestB, "exact"));

  // Another policy of the same build is a record of its own.
  host::VerificationRecord bf16 = passed_record(kDigestA);
  bf16.precision = "bf16";
  host::record_verification(file, bf16);
  CHECK(host::read_verifications(file).size() == 3);
  CHECK(host::verified(file, kDigestA, "bf16"));
  CHECK_FALSE(host::verified(file, kDigestA, "exact"));
  CHECK_FALSE(host::verified(file, kDigestB, "bf16"));
  CHECK(host::verifications_of_digest(file, kDigestA).size() == 2);
}

TEST_CASE("a schema /1 file stays readable; its records count for no policy",
          "[verification-record]") {
  test::TempDir dir;
  const fs::path file = dir.path() / "verification.json";
  test::write_file(file, "{\"schema\": \"algenta.verification/1\", \"plugins\": {\"" + kDigestA +
                             "\": {\"plugin\": \"cuda_sm90a\", \"model_dir\": \"m\", \"passed\": "
                             "true, \"gates\": {\"oracle\": \"PASS\"}, \"time\": \"t\", "
                             "\"host_version\": \"0.1.0\"}}}");
  const auto records = host::verifications_of_digest(file, kDigestA);
  REQUIRE(records.size() == 1);
  CHECK(records[0].passed);
  CHECK(records[0].precision.empty());
  CHECK_FALSE(host::verified(file, kDigestA, "exact"));

  // Rewritten as /2 with the old record kept under its digest.
  host::record_verification(file, passed_record(kDigestB));
  CHECK_THAT(test::read_file(file), Contains("algenta.verification/2") &&
                                        Contains("\"" + kDigestA + "\"") &&
                                        Contains("\"" + kDigestB + "/exact\""));
  CHECK(host::read_verifications(file).size() == 2);
  CHECK(host::verifications_of_digest(file, kDigestA).at(0).precision.empty());
  CHECK(host::verified(file, kDigestB, "exact"));
}

TEST_CASE("a failed run is recorded as failed, with its gate verdicts", "[verification-record]") {
  test::TempDir dir;
  const fs::path file = dir.path() / "verification.json";
  host::VerificationRecord failed = passed_record(kDigestA);
  failed.passed = false;
  failed.gates["oracle"] = "FAIL";
  failed.gates["transformers"] = "NOT RUN";
  host::record_verification(file, failed);
  const auto back = host::verification_of(file, kDigestA, "exact");
  REQUIRE(back.has_value());
  CHECK_FALSE(back->passed);
  CHECK(back->gates.at("oracle") == "FAIL");
  CHECK(back->gates.at("transformers") == "NOT RUN");
  CHECK_FALSE(host::verified(file, kDigestA, "exact"));
}

TEST_CASE("a malformed record is refused before anything is written", "[verification-record]") {
  test::TempDir dir;
  const fs::path file = dir.path() / "verification.json";
  host::VerificationRecord bad_digest = passed_record("not-a-digest");
  CHECK_THROWS_WITH(host::record_verification(file, bad_digest),
                    Contains("64 lowercase hex digits"));
  host::VerificationRecord no_policy = passed_record(kDigestA);
  no_policy.precision = "";
  CHECK_THROWS_WITH(host::record_verification(file, no_policy), Contains("precision \"\""));
  host::VerificationRecord bad_verdict = passed_record(kDigestA);
  bad_verdict.gates["oracle"] = "ok";
  CHECK_THROWS_WITH(host::record_verification(file, bad_verdict),
                    Contains("oracle") && Contains("\"PASS\", \"FAIL\" or \"NOT RUN\""));
  CHECK_FALSE(fs::exists(file));
}

TEST_CASE("a corrupt record file is a clear error, never a crash or a reset",
          "[verification-record]") {
  test::TempDir dir;
  const fs::path file = dir.path() / "verification.json";
  const auto expect_refusal = [&](const std::string& bytes, const std::string& fact) {
    test::write_file(file, bytes);
    INFO(bytes);
    CHECK_THROWS_AS(host::verification_of(file, kDigestA, "exact"), host::VerificationRecordError);
    CHECK_THROWS_WITH(host::verified(file, kDigestA, "exact"), Contains(file.string()) && Contains(fact));
    // Recording over it would lose the other records: refused, file untouched.
    CHECK_THROWS_AS(host::record_verification(file, passed_record(kDigestA)),
                    host::VerificationRecordError);
    CHECK(test::read_file(file) == bytes);
  };
  expect_refusal("{\"schema\": \"algenta.verification/1\", \"plugins\": {", "not valid JSON");
  expect_refusal("", "not valid JSON");
  expect_refusal("[]", "top level is not an object");
  expect_refusal("{\"schema\": \"other/2\", \"plugins\": {}}", "schema");
  expect_refusal("{\"schema\": \"algenta.verification/1\"}", "\"plugins\"");
  expect_refusal("{\"schema\": \"algenta.verification/1\", \"plugins\": {\"xyz\": {}}}",
                 "not a sha256 digest");
  // A policy in the key is schema /2 only, and must agree with the record.
  expect_refusal("{\"schema\": \"algenta.verification/1\", \"plugins\": {\"" + kDigestA +
                     "/exact\": {}}}",
                 "not a sha256 digest");
  expect_refusal("{\"schema\": \"algenta.verification/2\", \"plugins\": {\"" + kDigestA +
                     "/Exact!\": {}}}",
                 "<sha256>/<precision policy>");
  expect_refusal("{\"schema\": \"algenta.verification/2\", \"plugins\": {\"" + kDigestA +
                     "/exact\": {\"precision\": \"bf16\"}}}",
                 ".precision is not \"exact\"");
  expect_refusal("{\"schema\": \"algenta.verification/2\", \"plugins\": {\"" + kDigestA +
                     "\": {\"precision\": \"bf16\"}}}",
                 "the key names no policy");
  const std::string prefix =
      "{\"schema\": \"algenta.verification/1\", \"plugins\": {\"" + kDigestA + "\": ";
  expect_refusal(prefix +
                     "{\"plugin\": \"p\", \"model_dir\": \"m\", \"time\": \"t\", "
                     "\"host_version\": \"v\", \"passed\": \"yes\", \"gates\": {}}}}",
                 ".passed is missing or not true/false");
  expect_refusal(prefix +
                     "{\"plugin\": \"p\", \"model_dir\": \"m\", \"time\": \"t\", "
                     "\"host_version\": \"v\", \"passed\": true, \"gates\": {\"oracle\": 1}}}}",
                 "gates.oracle");
  expect_refusal(prefix + "{\"plugin\": \"p\"}, \"" + kDigestA + "\": {}}}",
                 "appears twice in plugins");
}
