// The oracle's end-to-end checks must be able to fail: each test plugin
// below is the oracle built with one planted bug, and the check aimed at
// that bug must catch it (while the real plugin passes the same checks in
// test_oracle_engine.cpp).
#include <catch2/catch.hpp>
#include <string>

#include "support/bundle_fixture.hpp"
#include "unit/test_oracle_fixture.hpp"

using namespace algenta::test::oracle;
using algenta::checkpoint::Dtype;
using algenta::test::TempDir;

namespace {

constexpr std::uint64_t kSeed = 424242;

struct Setup {
  TempDir dir;
  TinyModel model = make_tiny_model(tiny_config("llama"), kSeed);
  fs::path path = dir.path() / "ckpt";
  std::vector<std::int32_t> tokens = random_tokens(12, 101, kSeed);
  Setup() { write_checkpoint(model, path, Dtype::BF16); }
};

void check_identity(const Plugin& plugin, const std::string& name) {
  const AlgentaDescriptor& d = *plugin.table().descriptor;
  CHECK(std::string(d.name) == name);
  CHECK(d.role == ALGENTA_ROLE_ORACLE);
  CHECK(std::string(d.target) == "cpu");
}

}  // namespace

TEST_CASE("oracle mutants: the real plugin passes every check the mutants fail", "[oracle]") {
  const Setup s;
  const Plugin plugin(oracle_plugin_path());
  check_identity(plugin, "cpu_oracle");
  CHECK(matches_reference(plugin, s.model, s.path, s.tokens, {12}).ok);
  CHECK(matches_reference(plugin, s.model, s.path, s.tokens, {4, 4, 4}).ok);
  CHECK(chunking_is_invisible(plugin, s.path, s.tokens).ok);
}

TEST_CASE("oracle mutants: a RoPE position off by one is caught by the reference", "[oracle]") {
  const Setup s;
  const Plugin plugin(mutant_plugin_path("cpu_oracle_mutant_rope"));
  check_identity(plugin, "cpu_oracle_mutant_rope");
  const Verdict verdict = matches_reference(plugin, s.model, s.path, s.tokens, {12});
  INFO(verdict.detail);
  CHECK_FALSE(verdict.ok);
}

TEST_CASE("oracle mutants: a swapped GQA head mapping is caught by the reference", "[oracle]") {
  const Setup s;
  const Plugin plugin(mutant_plugin_path("cpu_oracle_mutant_gqa"));
  check_identity(plugin, "cpu_oracle_mutant_gqa");
  const Verdict verdict = matches_reference(plugin, s.model, s.path, s.tokens, {12});
  INFO(verdict.detail);
  CHECK_FALSE(verdict.ok);
}

TEST_CASE("oracle mutants: a wrong KV slot is caught by chunking and by the reference",
          "[oracle]") {
  const Setup s;
  const Plugin plugin(mutant_plugin_path("cpu_oracle_mutant_kv"));
  check_identity(plugin, "cpu_oracle_mutant_kv");
  const Verdict chunking = chunking_is_invisible(plugin, s.path, s.tokens);
  INFO(chunking.detail);
  CHECK_FALSE(chunking.ok);
  const Verdict reference = matches_reference(plugin, s.model, s.path, s.tokens, {4, 4, 4});
  INFO(reference.detail);
  CHECK_FALSE(reference.ok);
}
