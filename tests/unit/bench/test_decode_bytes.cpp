// The bytes one decode step reads, by hand for small configs.
#include <catch2/catch.hpp>

#include "bench/decode_bytes.hpp"
#include "facts/config_parse.hpp"

using namespace algenta;
using namespace algenta::host::bench;

namespace {

// hidden 64, 2 layers, 4 heads x head_dim 16, 2 kv heads, intermediate 128, vocab 256.
facts::ModelFacts tiny(const std::string& family, bool tied, const std::string& extra = "") {
  const std::string text =
      std::string("{\"model_type\": \"") + family + "\", \"architectures\": [\"X\"], " +
      "\"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
      "\"num_key_value_heads\": 2, \"head_dim\": 16, \"intermediate_size\": 128, "
      "\"vocab_size\": 256, \"max_position_embeddings\": 4096, \"rms_norm_eps\": 1e-6, "
      "\"rope_theta\": 10000.0, \"hidden_act\": \"silu\", \"tie_word_embeddings\": " +
      (tied ? "true" : "false") + extra + "}";
  return facts::parse_model_facts(text, "config.json");
}

// Per layer: 2 norms (64 each), q 64x64, k 32x64, v 32x64, o 64x64,
// gate/up 128x64, down 64x128.
constexpr std::uint64_t kLayerElements = 2 * 64 + 64 * 64 + 2 * 32 * 64 + 64 * 64 + 3 * 128 * 64;

}  // namespace

TEST_CASE("decode bytes: every weight but the embedding, the lm_head counted even when tied",
          "[bench]") {
  const std::uint64_t expected = 2 * kLayerElements + 64 /* final norm */ + 256 * 64 /* lm_head */;
  const DecodeBytes untied = decode_bytes_of(tiny("llama", false), 2, 4);
  const DecodeBytes tied = decode_bytes_of(tiny("llama", true), 2, 4);
  CHECK(untied.weight_elements == expected);
  CHECK(tied.weight_elements == expected);
  CHECK(untied.weight_bytes == expected * 2);
  CHECK(untied.kv_bytes_per_layer_position == 2 * 2 * 16 * 4);
  CHECK(untied.layer_windows.size() == 2);

  // qwen2 adds q/k/v biases (64 + 32 + 32 per layer).
  CHECK(decode_bytes_of(tiny("qwen2", true), 2, 4).weight_elements == expected + 2 * 128);
  // qwen3 adds q/k norms (16 + 16 per layer).
  CHECK(decode_bytes_of(tiny("qwen3", true), 2, 4).weight_elements == expected + 2 * 32);
}

TEST_CASE("decode bytes: KV over the context, its mean over a run", "[bench]") {
  const DecodeBytes b = decode_bytes_of(tiny("llama", false), 2, 2);
  const double per_position = 2.0 /* layers */ * 2 * 2 * 16 * 2;
  CHECK(step_bytes(b, 10) == Approx(b.weight_bytes + 10 * per_position));
  // L = 8, G = 4: steps feed positions 8, 9, 10 and attend to 9, 10, 11.
  CHECK(mean_decode_context(8, 4) == 10.0);
  CHECK(mean_decode_bytes(b, 8, 4) == Approx(b.weight_bytes + 10 * per_position));
  CHECK_THROWS_AS(mean_decode_bytes(b, 8, 1), std::invalid_argument);
  CHECK_THROWS_AS(decode_bytes_of(tiny("llama", false), 0, 2), std::invalid_argument);
}

TEST_CASE("decode bytes: a sliding-window layer reads at most its window", "[bench]") {
  DecodeBytes b = decode_bytes_of(tiny("llama", false), 2, 2);
  b.layer_windows = {std::int64_t{4}, std::nullopt};
  const double per_layer = 2 * 2 * 16 * 2;
  CHECK(step_bytes(b, 3) == Approx(b.weight_bytes + (3 + 3) * per_layer));
  CHECK(step_bytes(b, 10) == Approx(b.weight_bytes + (4 + 10) * per_layer));
}
