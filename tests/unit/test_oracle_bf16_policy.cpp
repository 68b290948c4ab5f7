// The bf16 policy's CPU stand-in (plugins/cpu_oracle/bf16_policy.hpp): it
// declares exact and bf16, computes in bf16 only when opened with bf16, and
// refuses a second policy in the same process rather than compute it
// wrongly; the vendor oracle still declares exact alone.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "support/bundle_fixture.hpp"
#include "unit/test_oracle_fixture.hpp"

using namespace algenta::test::oracle;
using algenta::checkpoint::Dtype;
using algenta::test::TempDir;

namespace {

std::string policies_of(const Plugin& plugin) {
  const AlgentaDescriptor& d = *plugin.table().descriptor;
  std::string names;
  for (std::size_t i = 0; i < d.precision_count; ++i) {
    const auto* policy = ALGENTA_ELEMENT_AT(AlgentaPrecisionPolicy, d.precisions,
                                            d.precision_stride, i);
    names += (i == 0 ? "" : ",") + std::string(policy->name);
  }
  return names;
}

std::vector<float> all_logits(Engine& engine, const std::vector<std::int32_t>& tokens) {
  const StepOutput out = engine.step({{1, tokens, 0, ALGENTA_LOGITS_ALL}});
  REQUIRE(out.outcome.ok());
  return out.logits;
}

}  // namespace

TEST_CASE("bf16 policy stand-in: declares exact and bf16; the oracle declares exact alone",
          "[oracle]") {
  CHECK(policies_of(Plugin(oracle_plugin_path())) == "exact");
  CHECK(policies_of(Plugin(mutant_plugin_path("cpu_oracle_bf16_policy"))) == "exact,bf16");
  CHECK(policies_of(Plugin(mutant_plugin_path("cpu_oracle_bf16_policy_residual_bf16"))) ==
        "exact,bf16");
}

TEST_CASE("bf16 policy stand-in: bf16 logits lie near the oracle's, and the process keeps "
          "the policy it opened first",
          "[oracle]") {
  const TempDir dir;
  const fs::path checkpoint = dir.path() / "ckpt";
  write_checkpoint(make_tiny_model(tiny_config("llama"), 7), checkpoint, Dtype::BF16);
  const std::vector<std::int32_t> tokens = random_tokens(12, 101, 7);

  const Plugin oracle_plugin(oracle_plugin_path());
  Engine oracle(oracle_plugin, checkpoint);
  const std::vector<float> want = all_logits(oracle, tokens);

  const Plugin standin(mutant_plugin_path("cpu_oracle_bf16_policy"));
  EngineOptions bf16;
  bf16.precision = ALGENTA_PRECISION_BF16;
  Engine engine(standin, checkpoint, bf16);
  const std::vector<float> got = all_logits(engine, tokens);
  REQUIRE(got.size() == want.size());
  float largest = 0, scale = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    largest = std::max(largest, std::fabs(got[i] - want[i]));
    scale = std::max(scale, std::fabs(want[i]));
  }
  CHECK(largest > 0);           // bf16 operands are not fp32 ones
  CHECK(largest < scale / 16);  // but a rounding away, not a bug away

  const Outcome exact = Engine::try_open(standin, checkpoint, {});
  CHECK(exact.code == ALGENTA_STATUS_UNSUPPORTED);
  CHECK_THAT(exact.message, Catch::Contains("one precision policy per process") &&
                                Catch::Contains("already opened it with bf16"));
  EngineOptions undeclared;
  undeclared.precision = static_cast<AlgentaPrecision>(7);
  const Outcome unknown = Engine::try_open(standin, checkpoint, undeclared);
  CHECK(unknown.code == ALGENTA_STATUS_UNSUPPORTED);
  CHECK_THAT(unknown.message, Catch::Contains("(it runs: exact, bf16)"));
  CHECK(Engine::try_open(standin, checkpoint, bf16).ok());
}
