// No silent precision change: an engine opened on weights its policy cannot
// hold exactly refuses, naming the dtypes, the count and the ways forward;
// with consent it rounds and says what changed; the oracle rounds the same
// way when asked, so it checks an engine on the weights that engine runs.
#include <catch2/catch.hpp>

#include <cmath>
#include <iterator>

#include "checkpoint/dtype_convert.hpp"
#include "checkpoint/resident_reader.hpp"
#include "plugin_support/plugin_error.hpp"
#include "support/bundle_fixture.hpp"
#include "unit/test_oracle_fixture.hpp"
#include "weight_precision.hpp"

using namespace algenta;
using namespace algenta::test::oracle;
using Catch::Matchers::Contains;

namespace {

constexpr AlgentaPrecisionPolicy kHoldsBf16[] = {
    {ALGENTA_PrecisionPolicy_STRUCT_SIZE, ALGENTA_PRECISION_EXACT, "exact",
     ALGENTA_DTYPE_BIT(ALGENTA_DTYPE_BF16)}};

AlgentaDescriptor engine_descriptor() {
  AlgentaDescriptor d{};
  d.struct_size = ALGENTA_Descriptor_STRUCT_SIZE;
  d.name = "test_engine";
  d.precisions = kHoldsBf16;
  d.precision_count = std::size(kHoldsBf16);
  d.precision_stride = sizeof(AlgentaPrecisionPolicy);
  return d;
}

AlgentaEngineOpen_Args open_args(AlgentaDtype round_to = ALGENTA_DTYPE_NONE) {
  AlgentaEngineOpen_Args args{};
  args.struct_size = ALGENTA_EngineOpen_Args_STRUCT_SIZE;
  args.precision = ALGENTA_PRECISION_EXACT;
  args.round_weights_to = round_to;
  return args;
}

// The tiny llama model with `count` matrix values replaced by `value`.
TinyModel model_with(float value, int count) {
  TinyModel model = make_tiny_model(tiny_config("llama"), 7);
  auto& gate = model.tensors.at("model.layers.0.mlp.gate_proj.weight").values;
  for (int i = 0; i < count; ++i) gate[static_cast<std::size_t>(i)] = value;
  return model;
}

std::string refusal(const AlgentaEngineOpen_Args& args, const checkpoint::ResidentCheckpoint& ckpt,
                    checkpoint::Dtype held) {
  const AlgentaDescriptor d = engine_descriptor();
  try {
    decoder::settle_engine_weights(args, d, ckpt, held);
  } catch (const plugin::StatusError& e) {
    CHECK(e.code == ALGENTA_STATUS_UNSUPPORTED);
    return e.message;
  }
  return {};
}

}  // namespace

TEST_CASE("rounding statistics count changed values and the largest relative change",
          "[precision]") {
  const float values[] = {1.0f, 1.0f + 1.0f / 1024, 0.0f, -3.5f, 1e30f, NAN};
  const auto stats = checkpoint::rounding_stats(
      checkpoint::Dtype::F32, std::as_bytes(std::span<const float>(values)), checkpoint::Dtype::F16);
  CHECK(stats.values == 6);
  CHECK(stats.changed == 1);  // 1e30 overflows; 1 + 2^-10 fits f16's 10 bits
  CHECK(std::isinf(stats.max_relative));
  const float fine[] = {1.0f + 1.0f / 1024};
  const auto bf16 = checkpoint::rounding_stats(
      checkpoint::Dtype::F32, std::as_bytes(std::span<const float>(fine)), checkpoint::Dtype::BF16);
  CHECK(bf16.changed == 1);
  CHECK(bf16.max_relative == Approx(1.0 / 1025).epsilon(1e-6));
}

TEST_CASE("an engine refuses weights it cannot hold exactly, or rounds them with consent",
          "[precision]") {
  test::TempDir dir;
  SECTION("f32 values that bf16 holds exactly run without consent") {
    write_checkpoint(model_with(0.5f, 3), dir.path(), checkpoint::Dtype::F32);
    const auto ckpt = checkpoint::ResidentCheckpoint::open(dir.path(), false);
    const AlgentaDescriptor d = engine_descriptor();
    const decoder::WeightHolding holding =
        decoder::settle_engine_weights(open_args(), d, ckpt, checkpoint::Dtype::BF16);
    CHECK(holding.rounding.changed == 0);
  }
  SECTION("f32 values bf16 cannot hold are refused, naming count, dtypes and the ways forward") {
    write_checkpoint(model_with(1.0f + 1.0f / 4096, 5), dir.path(), checkpoint::Dtype::F32);
    const auto ckpt = checkpoint::ResidentCheckpoint::open(dir.path(), false);
    CHECK_THAT(refusal(open_args(), ckpt, checkpoint::Dtype::BF16),
               Contains("weights are stored as f32") && Contains("holds them as bf16") &&
                   Contains("5 of ") && Contains("--dtype bf16") &&
                   Contains("--allow-weight-rounding"));
    const AlgentaDescriptor d = engine_descriptor();
    const decoder::WeightHolding consented = decoder::settle_engine_weights(
        open_args(ALGENTA_DTYPE_BF16), d, ckpt, checkpoint::Dtype::BF16);
    CHECK(consented.rounding.changed == 5);
    CHECK(consented.rounding.max_relative == Approx(1.0 / 4097).epsilon(1e-6));
    CHECK_THAT(refusal(open_args(ALGENTA_DTYPE_F16), ckpt, checkpoint::Dtype::BF16),
               Contains("cannot round them to dtype 3"));
  }
  SECTION("bf16 values below f16's range are refused by an f16 engine") {
    write_checkpoint(model_with(std::ldexp(1.0f, -30), 2), dir.path(), checkpoint::Dtype::BF16);
    const auto ckpt = checkpoint::ResidentCheckpoint::open(dir.path(), false);
    CHECK_THAT(refusal(open_args(), ckpt, checkpoint::Dtype::F16),
               Contains("stored as bf16") && Contains("holds them as f16") && Contains("2 of "));
  }
  SECTION("a precision policy the plugin does not declare is refused, listing the declared ones") {
    write_checkpoint(model_with(0.5f, 1), dir.path(), checkpoint::Dtype::BF16);
    const auto ckpt = checkpoint::ResidentCheckpoint::open(dir.path(), false);
    AlgentaEngineOpen_Args args = open_args();
    args.precision = ALGENTA_PRECISION_BF16;
    CHECK_THAT(refusal(args, ckpt, checkpoint::Dtype::BF16),
               Contains("does not run precision policy 2") && Contains("it runs: exact"));
  }
}

TEST_CASE("the oracle rounds weights when asked and reports what changed", "[precision][oracle]") {
  const Plugin plugin(oracle_plugin_path());
  test::TempDir dir;
  const TinyModel model = model_with(1.0f + 1.0f / 4096, 4);
  write_checkpoint(model, dir.path(), checkpoint::Dtype::F32);

  AlgentaEngineOpen_Args exact{};
  REQUIRE(Engine::try_open(plugin, dir.path(), {}, &exact).ok());
  CHECK(exact.rounded_weight_values == 0);
  AlgentaEngineOpen_Args rounded{};
  REQUIRE(Engine::try_open(plugin, dir.path(), {.round_weights_to = ALGENTA_DTYPE_BF16}, &rounded)
              .ok());
  CHECK(rounded.rounded_weight_values == 4);

  // The rounded oracle computes the bf16 checkpoint of the same weights.
  test::TempDir bf16_dir;
  TinyModel as_bf16 = model;
  for (float& v : as_bf16.tensors.at("model.layers.0.mlp.gate_proj.weight").values) {
    v = std::bit_cast<float>(checkpoint::bf16_to_f32_bits(
        checkpoint::f32_bits_to_bf16(std::bit_cast<std::uint32_t>(v))));
  }
  write_checkpoint(as_bf16, bf16_dir.path(), checkpoint::Dtype::F32);
  const std::vector<std::int32_t> tokens = random_tokens(9, 101, 3);
  Engine a(plugin, dir.path(), {.round_weights_to = ALGENTA_DTYPE_BF16});
  Engine b(plugin, bf16_dir.path());
  Engine c(plugin, dir.path());
  const StepOutput from_rounding = a.step({{1, tokens, 0, ALGENTA_LOGITS_ALL}});
  const StepOutput from_checkpoint = b.step({{1, tokens, 0, ALGENTA_LOGITS_ALL}});
  const StepOutput unrounded = c.step({{1, tokens, 0, ALGENTA_LOGITS_ALL}});
  REQUIRE(from_rounding.outcome.ok());
  CHECK(same_bits(from_rounding.logits, from_checkpoint.logits));
  CHECK_FALSE(same_bits(from_rounding.logits, unrounded.logits));
}
