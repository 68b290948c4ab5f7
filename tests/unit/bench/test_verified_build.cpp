// bench runs a plugin build only with a passing verify record for its
// digest under the policy timed; each refusal says what is missing and the
// command that makes the record.
#include <catch2/catch.hpp>
#include <fstream>

#include "bench/verified_build.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using namespace algenta;
using namespace algenta::host::bench;
using Catch::Matchers::Contains;

namespace {

const std::string kDigest(64, 'c');
const std::string kCommand = "algenta-host verify --model M --plugin cuda_sm90a --precision exact";

host::VerificationRecord record(const std::string& precision, bool passed) {
  host::VerificationRecord r;
  r.digest = kDigest;
  r.plugin = "cuda_sm90a";
  r.precision = precision;
  r.model_dir = "/models/m";
  r.passed = passed;
  r.gates = {{"oracle", passed ? "PASS" : "FAIL"},
             {"repeat", "PASS"},
             {"transformers", passed ? "PASS" : "NOT RUN"}};
  r.time = "2026-12-02T16:00:00Z";
  r.host_version = "0.1.0";
  return r;
}

BuildVerification check(const fs::path& file) {
  return check_verified_build(file, "cuda_sm90a", kDigest, "exact", kCommand);
}

}  // namespace

TEST_CASE("verified build: no record file, no record", "[bench]") {
  test::BenchTempDir dir;
  const BuildVerification result = check(dir.path() / "verification.json");
  CHECK_FALSE(result.passing.has_value());
  CHECK_THAT(result.refusal, Contains("cuda_sm90a (sha256 " + kDigest + ")") &&
                                 Contains("no verify record under precision exact") &&
                                 Contains("Run: " + kCommand));
}

TEST_CASE("verified build: a failed run is named with its gates", "[bench]") {
  test::BenchTempDir dir;
  const fs::path file = dir.path() / "verification.json";
  host::record_verification(file, record("exact", false));
  const BuildVerification result = check(file);
  CHECK_FALSE(result.passing.has_value());
  CHECK_THAT(result.refusal, Contains("failed verify under precision exact") &&
                                 Contains("oracle FAIL, transformers NOT RUN") &&
                                 Contains("Run: " + kCommand));
}

TEST_CASE("verified build: a record under another policy does not count", "[bench]") {
  test::BenchTempDir dir;
  const fs::path file = dir.path() / "verification.json";
  host::record_verification(file, record("bf16", true));
  const BuildVerification result = check(file);
  CHECK_FALSE(result.passing.has_value());
  CHECK_THAT(result.refusal, Contains("no verify record under precision exact") &&
                                 Contains("its records: bf16 passed"));
}

TEST_CASE("verified build: a record from before policies were recorded does not count", "[bench]") {
  test::BenchTempDir dir;
  const fs::path file = dir.path() / "verification.json";
  std::ofstream(file) << "{\"schema\": \"algenta.verification/1\", \"plugins\": {\"" << kDigest
                      << "\": {\"plugin\": \"cuda_sm90a\", \"model_dir\": \"m\", \"passed\": true, "
                         "\"gates\": {}, \"time\": \"2025-01-01T00:00:00Z\", \"host_version\": "
                         "\"0.1.0\"}}}";
  const BuildVerification result = check(file);
  CHECK_FALSE(result.passing.has_value());
  CHECK_THAT(result.refusal, Contains("one from before records named the precision policy "
                                      "(2025-01-01T00:00:00Z)"));
}

TEST_CASE("verified build: a damaged record file refuses, naming it", "[bench]") {
  test::BenchTempDir dir;
  const fs::path file = dir.path() / "verification.json";
  std::ofstream(file) << "{";
  const BuildVerification result = check(file);
  CHECK_FALSE(result.passing.has_value());
  CHECK_THAT(result.refusal, Contains("cannot be cleared") && Contains(file.string()));
}

TEST_CASE("verified build: a passing run under the policy clears the build", "[bench]") {
  test::BenchTempDir dir;
  const fs::path file = dir.path() / "verification.json";
  host::record_verification(file, record("bf16", false));
  host::record_verification(file, record("exact", true));
  const BuildVerification result = check(file);
  REQUIRE(result.passing.has_value());
  CHECK(result.refusal.empty());
  CHECK(result.passing->precision == "exact");
  CHECK(result.passing->model_dir == "/models/m");
}
