// The synthetic checkpoint through the resident reader: the planned layout,
// the config's dtype and scale, values that are neither zeros nor constants.
// (Its equality with what `prepare` makes from a real checkpoint is checked
// end to end in tests/integration/test_bench.py.)
#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>

#include "synthetic/synthetic_checkpoint.hpp"
#include "checkpoint/dtype_convert.hpp"
#include "checkpoint/resident_reader.hpp"
#include "facts/config_parse.hpp"
#include "../bench/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace algenta;
using namespace algenta::host::synthetic;
using Catch::Matchers::Contains;

namespace {

std::string qwen3_config(const std::string& extra) {
  return "{\"model_type\": \"qwen3\", \"architectures\": [\"Qwen3ForCausalLM\"], "
         "\"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
         "\"num_key_value_heads\": 2, \"head_dim\": 16, \"intermediate_size\": 128, "
         "\"vocab_size\": 256, \"max_position_embeddings\": 4096, \"rms_norm_eps\": 1e-6, "
         "\"rope_theta\": 1000000.0, \"hidden_act\": \"silu\", \"tie_word_embeddings\": true" +
         extra + "}";
}

std::vector<float> values_of(const checkpoint::ResidentCheckpoint& ckpt, const std::string& name) {
  const checkpoint::ResidentTensor t = ckpt.tensor(name);
  std::vector<float> out(t.bytes.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::uint16_t bits;
    std::memcpy(&bits, t.bytes.data() + 2 * i, 2);
    out[i] = std::bit_cast<float>(checkpoint::bf16_to_f32_bits(bits));
  }
  return out;
}

double std_of(const std::vector<float>& v, double mean) {
  double squares = 0.0;
  for (const float x : v) squares += (x - mean) * (x - mean);
  return std::sqrt(squares / static_cast<double>(v.size()));
}

}  // namespace

TEST_CASE("synthetic weights: dtype and scale from the config", "[synthetic]") {
  const auto weights = [](const std::string& extra) {
    const std::string text = qwen3_config(extra);
    return synthetic_weights_for(facts::parse_model_facts(text, "c.json"), text, "c.json", 5);
  };
  CHECK(weights("").dtype == checkpoint::Dtype::F32);
  CHECK(weights("").init_std == 0.02);
  CHECK(weights(", \"torch_dtype\": \"bfloat16\"").dtype == checkpoint::Dtype::BF16);
  CHECK(weights(", \"torch_dtype\": \"float16\"").dtype == checkpoint::Dtype::F16);
  CHECK(weights(", \"initializer_range\": 0.5").init_std == 0.5);
  CHECK(weights("").seed == 5);
  CHECK_THROWS_WITH(weights(", \"initializer_range\": 0"),
                    Contains("c.json: initializer_range 0 is not a positive number"));
  CHECK_THROWS_WITH(weights(", \"initializer_range\": \"x\""), Contains("initializer_range \"x\""));
  CHECK_THROWS_WITH(weights(", \"torch_dtype\": \"float8_e4m3fn\""),
                    Contains("torch_dtype \"float8_e4m3fn\""));
}

TEST_CASE("synthetic checkpoint: the planned layout, written and read back", "[synthetic]") {
  test::BenchTempDir dir;
  const std::string text =
      qwen3_config(", \"torch_dtype\": \"bfloat16\", \"initializer_range\": 0.05");
  std::ofstream(dir.path() / "config.json") << text;
  const facts::ModelFacts model = facts::parse_model_facts(text, "config.json");
  const SyntheticWeights weights = synthetic_weights_for(model, text, "config.json", 11);
  const std::vector<LaidOutTensor> layout = resident_layout(model, weights.dtype);
  REQUIRE(layout.size() == 2 + 2 * 11);  // embedding, final norm; 11 per qwen3 layer; tied
  for (std::size_t i = 0; i < layout.size(); ++i) {
    CHECK(layout[i].offset % 256 == 0);
    if (i > 0) {
      CHECK(layout[i - 1].name < layout[i].name);
      CHECK(layout[i].offset >= layout[i - 1].offset + layout[i - 1].size);
      CHECK(layout[i].offset < layout[i - 1].offset + layout[i - 1].size + 256);
    }
  }

  write_synthetic_checkpoint(dir.path() / "out", dir.path() / "config.json", model, weights);
  const auto ckpt = checkpoint::ResidentCheckpoint::open(dir.path() / "out", true);
  CHECK(ckpt.dtype() == checkpoint::Dtype::BF16);
  CHECK(ckpt.blob().size() == blob_bytes(layout));
  REQUIRE(ckpt.tensors().size() == layout.size());
  for (std::size_t i = 0; i < layout.size(); ++i) {
    CHECK(ckpt.tensors()[i].name == layout[i].name);
    CHECK(ckpt.tensors()[i].shape == layout[i].shape);
    CHECK(ckpt.tensors()[i].offset == layout[i].offset);
    CHECK(ckpt.tensors()[i].size == layout[i].size);
  }
  CHECK(ckpt.source_json()["synthetic_weights"]["seed"] == 11);
  CHECK(ckpt.facts_json()["family"] == "qwen3");
  CHECK(fs::exists(dir.path() / "out" / "config.json"));

  const std::vector<float> embedding = values_of(ckpt, "model.embed_tokens.weight");
  CHECK(std_of(embedding, 0.0) == Approx(0.05).epsilon(0.05));
  const std::vector<float> norm = values_of(ckpt, "model.layers.1.self_attn.k_norm.weight");
  double mean = 0.0;
  for (const float x : norm) mean += x / norm.size();
  CHECK(mean == Approx(1.0).margin(0.02));
  CHECK(std_of(norm, mean) > 0.005);
  // Never zeros or a constant.
  for (const auto& t : layout) {
    const std::vector<float> v = values_of(ckpt, t.name);
    INFO(t.name);
    CHECK(std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) != v.end());
  }

  // The same seed writes the same bytes.
  write_synthetic_checkpoint(dir.path() / "again", dir.path() / "config.json", model, weights);
  CHECK(checkpoint::ResidentCheckpoint::open(dir.path() / "again", false).blob_sha256() ==
        ckpt.blob_sha256());
}
