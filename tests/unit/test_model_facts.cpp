// config.json -> ModelFacts: real configs from tests/fixtures/configs (see
// SOURCES.md there), then hand-made edge cases and malformed input.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "facts/config_parse.hpp"
#include "facts/facts_json.hpp"
#include "facts/json_document.hpp"

using algenta::facts::facts_to_json;
using algenta::facts::FactsError;
using algenta::facts::Family;
using algenta::facts::LayerAttention;
using algenta::facts::latent_attention_markers;
using algenta::facts::mixture_of_experts_markers;
using algenta::facts::ModelFacts;
using algenta::facts::parse_model_facts;
using algenta::facts::RopeScalingType;
using Catch::Contains;
using nlohmann::json;

namespace {

std::string read_fixture_text(const std::string& model) {
  const std::string path = std::string(ALGENTA_TEST_FIXTURES_DIR) + "/configs/" + model + "/config.json";
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

ModelFacts parse_fixture(const std::string& model) {
  return parse_model_facts(read_fixture_text(model), model + "/config.json");
}

bool was_defaulted(const ModelFacts& facts, const std::string& fact) {
  return std::find(facts.defaulted.begin(), facts.defaulted.end(), fact) != facts.defaulted.end();
}

std::size_t count_layers(const ModelFacts& facts, LayerAttention kind) {
  return static_cast<std::size_t>(
      std::count(facts.layer_attention.begin(), facts.layer_attention.end(), kind));
}

// A small, complete llama config to bend in the edge-case tests.
json small_llama() {
  return json{{"architectures", {"LlamaForCausalLM"}},
              {"model_type", "llama"},
              {"hidden_size", 256},
              {"num_hidden_layers", 4},
              {"num_attention_heads", 8},
              {"num_key_value_heads", 2},
              {"intermediate_size", 512},
              {"vocab_size", 1000},
              {"max_position_embeddings", 2048},
              {"rms_norm_eps", 1e-5},
              {"rope_theta", 10000.0},
              {"hidden_act", "silu"}};
}

ModelFacts parse_json(const json& config) { return parse_model_facts(config.dump(), "test/config.json"); }

// Parses `text` expecting a FactsError about `fact`; returns it for more checks.
FactsError expect_facts_error(const std::string& text, const std::string& fact) {
  try {
    parse_model_facts(text, "bad/config.json");
  } catch (const FactsError& error) {
    INFO(error.what());
    CHECK(error.file() == "bad/config.json");
    CHECK(error.fact() == fact);
    CHECK_THAT(error.what(), Contains("bad/config.json") && Contains(fact));
    return error;
  }
  FAIL("no FactsError for fact " << fact);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("Llama-3.2-1B parses with the values in its config", "[facts]") {
  const ModelFacts facts = parse_fixture("Llama-3.2-1B");
  CHECK(facts.family == Family::llama);
  CHECK(facts.model_type == "llama");
  CHECK(facts.architecture == "LlamaForCausalLM");
  CHECK(facts.hidden_size == 2048);
  CHECK(facts.num_hidden_layers == 16);
  CHECK(facts.num_attention_heads == 32);
  CHECK(facts.num_key_value_heads == 8);
  CHECK(facts.head_dim == 64);
  CHECK(facts.intermediate_size == 8192);
  CHECK(facts.vocab_size == 128256);
  CHECK(facts.max_position_embeddings == 131072);
  CHECK(facts.rope_theta == 500000.0);
  CHECK(facts.rope_scaling.type == RopeScalingType::llama3);
  CHECK(facts.rope_scaling.factor == 32.0);
  CHECK(facts.rope_scaling.low_freq_factor == 1.0);
  CHECK(facts.rope_scaling.high_freq_factor == 4.0);
  CHECK(facts.rope_scaling.original_max_position_embeddings == 8192);
  CHECK(facts.rms_norm_eps == 1e-5);
  CHECK(facts.tie_word_embeddings);
  CHECK_FALSE(facts.qkv_bias);
  CHECK_FALSE(facts.mlp_bias);
  CHECK_FALSE(facts.qk_norm);
  CHECK(facts.hidden_act == "silu");
  CHECK(facts.torch_dtype == "bfloat16");
  CHECK_FALSE(facts.sliding_window);
  CHECK(count_layers(facts, LayerAttention::full) == 16);
  CHECK(mixture_of_experts_markers(facts).empty());
  CHECK(latent_attention_markers(facts).empty());
  CHECK(facts.defaulted.empty());
}

TEST_CASE("Llama-3.2-3B-Instruct parses with the values in its config", "[facts]") {
  const ModelFacts facts = parse_fixture("Llama-3.2-3B-Instruct");
  CHECK(facts.family == Family::llama);
  CHECK(facts.hidden_size == 3072);
  CHECK(facts.num_hidden_layers == 28);
  CHECK(facts.num_attention_heads == 24);
  CHECK(facts.num_key_value_heads == 8);
  CHECK(facts.head_dim == 128);
  CHECK(facts.vocab_size == 128256);
  CHECK(facts.rope_theta == 500000.0);
  CHECK(facts.rope_scaling.type == RopeScalingType::llama3);
  CHECK(facts.rope_scaling.name == "llama3");
  CHECK(facts.tie_word_embeddings);
  CHECK_FALSE(facts.qkv_bias);
  CHECK_FALSE(facts.qk_norm);
}

TEST_CASE("Qwen3-0.6B parses with the values in its config", "[facts]") {
  const ModelFacts facts = parse_fixture("Qwen3-0.6B");
  CHECK(facts.family == Family::qwen3);
  CHECK(facts.architecture == "Qwen3ForCausalLM");
  CHECK(facts.hidden_size == 1024);
  CHECK(facts.num_hidden_layers == 28);
  CHECK(facts.num_attention_heads == 16);
  CHECK(facts.num_key_value_heads == 8);
  CHECK(facts.head_dim == 128);  // stated; hidden/heads would be 64
  CHECK(facts.intermediate_size == 3072);
  CHECK(facts.vocab_size == 151936);
  CHECK(facts.max_position_embeddings == 40960);
  CHECK(facts.rope_theta == 1000000.0);  // written as an integer
  CHECK(facts.rope_scaling.type == RopeScalingType::none);
  CHECK(facts.rms_norm_eps == 1e-6);
  CHECK(facts.tie_word_embeddings);
  CHECK(facts.qk_norm);
  CHECK_FALSE(facts.qkv_bias);
  CHECK(facts.use_sliding_window == false);
  CHECK_FALSE(facts.sliding_window);
  CHECK(facts.max_window_layers == 28);
  CHECK(count_layers(facts, LayerAttention::full) == 28);
}

TEST_CASE("Qwen2.5-7B-Instruct parses with the values in its config", "[facts]") {
  const ModelFacts facts = parse_fixture("Qwen2.5-7B-Instruct");
  CHECK(facts.family == Family::qwen2);
  CHECK(facts.architecture == "Qwen2ForCausalLM");
  CHECK(facts.hidden_size == 3584);
  CHECK(facts.num_hidden_layers == 28);
  CHECK(facts.num_attention_heads == 28);
  CHECK(facts.num_key_value_heads == 4);
  CHECK(facts.head_dim == 128);  // derived: 3584 / 28
  CHECK(was_defaulted(facts, "head_dim"));
  CHECK(facts.intermediate_size == 18944);
  CHECK(facts.vocab_size == 152064);
  CHECK(facts.max_position_embeddings == 32768);
  CHECK(facts.rope_theta == 1000000.0);
  CHECK(facts.rope_scaling.type == RopeScalingType::none);
  CHECK_FALSE(facts.tie_word_embeddings);
  CHECK(facts.qkv_bias);  // qwen2 always has q/k/v bias
  CHECK_FALSE(facts.attention_bias);
  CHECK_FALSE(facts.qk_norm);
  // "sliding_window": 131072 is written, but use_sliding_window is false.
  CHECK(facts.use_sliding_window == false);
  CHECK_FALSE(facts.sliding_window);
  CHECK(count_layers(facts, LayerAttention::full) == 28);
}

TEST_CASE("gemma-3-27b-it takes its facts from text_config", "[facts]") {
  const ModelFacts facts = parse_fixture("gemma-3-27b-it");
  CHECK(facts.family == Family::gemma3);
  CHECK(facts.model_type == "gemma3");
  CHECK(facts.architecture == "Gemma3ForConditionalGeneration");
  CHECK(facts.from_text_config);
  CHECK(facts.hidden_size == 5376);  // not the vision tower's 1152
  CHECK(facts.num_hidden_layers == 62);
  CHECK(facts.num_attention_heads == 32);
  CHECK(facts.num_key_value_heads == 16);
  CHECK(facts.head_dim == 128);
  CHECK(facts.intermediate_size == 21504);
  CHECK(facts.query_pre_attn_scalar == 168.0);
  CHECK(facts.rope_scaling.type == RopeScalingType::linear);
  CHECK(facts.rope_scaling.factor == 8.0);
  CHECK(facts.sliding_window == 1024);
  CHECK(facts.qk_norm);
  CHECK_FALSE(facts.qkv_bias);
  CHECK(facts.torch_dtype == "bfloat16");  // from the wrapper

  // Left out of this text_config: transformers' Gemma3TextConfig defaults.
  CHECK(facts.vocab_size == 262208);
  CHECK(facts.rope_theta == 1000000.0);
  CHECK(facts.rope_local_base_freq == 10000.0);
  CHECK(facts.rms_norm_eps == 1e-6);
  CHECK(facts.max_position_embeddings == 131072);
  CHECK(facts.hidden_act == "gelu_pytorch_tanh");
  CHECK(facts.tie_word_embeddings);
  CHECK(facts.sliding_window_pattern == 6);
  for (const char* fact : {"text_config.vocab_size", "text_config.rope_theta",
                           "text_config.rms_norm_eps", "text_config.hidden_activation",
                           "text_config.sliding_window_pattern"}) {
    CHECK(was_defaulted(facts, fact));
  }

  // Five sliding layers, then one global: layers 5, 11, ..., 59 are global.
  REQUIRE(facts.layer_attention.size() == 62);
  CHECK(facts.layer_attention[0] == LayerAttention::sliding);
  CHECK(facts.layer_attention[5] == LayerAttention::full);
  CHECK(facts.layer_attention[59] == LayerAttention::full);
  CHECK(facts.layer_attention[61] == LayerAttention::sliding);
  CHECK(count_layers(facts, LayerAttention::full) == 10);
}

TEST_CASE("Mixtral-8x7B-v0.1 parses and carries its MoE marker", "[facts]") {
  const ModelFacts facts = parse_fixture("Mixtral-8x7B-v0.1");
  CHECK(facts.family == Family::unknown);
  CHECK(facts.model_type == "mixtral");
  CHECK(facts.hidden_size == 4096);
  CHECK(facts.num_key_value_heads == 8);
  CHECK(facts.head_dim == 128);
  CHECK(facts.num_local_experts == 8);
  CHECK(mixture_of_experts_markers(facts) == std::vector<std::string>{"num_local_experts"});
  CHECK(latent_attention_markers(facts).empty());
  CHECK(facts.layer_attention.empty());  // no rule is assumed for unknown families
}

TEST_CASE("Qwen3-30B-A3B parses and carries its MoE marker", "[facts]") {
  const ModelFacts facts = parse_fixture("Qwen3-30B-A3B");
  CHECK(facts.family == Family::unknown);
  CHECK(facts.model_type == "qwen3_moe");
  CHECK(facts.architecture == "Qwen3MoeForCausalLM");
  CHECK(facts.hidden_size == 2048);
  CHECK(facts.num_hidden_layers == 48);
  CHECK(facts.num_attention_heads == 32);
  CHECK(facts.num_key_value_heads == 4);
  CHECK(facts.head_dim == 128);
  CHECK(facts.num_experts == 128);
  CHECK(mixture_of_experts_markers(facts) == std::vector<std::string>{"num_experts"});
}

TEST_CASE("DeepSeek-V3 parses and carries its MLA and MoE markers", "[facts]") {
  const ModelFacts facts = parse_fixture("DeepSeek-V3");
  CHECK(facts.family == Family::unknown);
  CHECK(facts.model_type == "deepseek_v3");
  CHECK(facts.hidden_size == 7168);
  CHECK(facts.num_hidden_layers == 61);
  CHECK(facts.num_attention_heads == 128);
  CHECK(facts.kv_lora_rank == 512);
  CHECK(facts.q_lora_rank == 1536);
  CHECK(facts.n_routed_experts == 256);
  CHECK(latent_attention_markers(facts) == std::vector<std::string>{"kv_lora_rank", "q_lora_rank"});
  CHECK(mixture_of_experts_markers(facts) == std::vector<std::string>{"n_routed_experts"});
  // Legacy "type" spelling of the scaling kind.
  CHECK(facts.rope_scaling.type == RopeScalingType::yarn);
  CHECK(facts.rope_scaling.factor == 40.0);
  CHECK(facts.rope_scaling.beta_fast == 32.0);
  CHECK(facts.rope_scaling.beta_slow == 1.0);
  CHECK(facts.rope_scaling.original_max_position_embeddings == 4096);
}

TEST_CASE("facts_to_json names every fact the same way for every model", "[facts]") {
  const json qwen = facts_to_json(parse_fixture("Qwen3-0.6B"));
  const json gemma = facts_to_json(parse_fixture("gemma-3-27b-it"));
  CHECK(qwen["family"] == "qwen3");
  CHECK(qwen["head_dim"] == 128);
  CHECK(qwen["sliding_window"].is_null());
  CHECK(gemma["family"] == "gemma3");
  CHECK(gemma["rope_scaling"]["type"] == "linear");
  CHECK(gemma["layer_attention"][5] == "full_attention");
  std::vector<std::string> qwen_keys;
  std::vector<std::string> gemma_keys;
  for (const auto& item : qwen.items()) qwen_keys.push_back(item.key());
  for (const auto& item : gemma.items()) gemma_keys.push_back(item.key());
  CHECK(qwen_keys == gemma_keys);
}

TEST_CASE("mistral is a llama, and its sliding window covers every layer", "[facts]") {
  json config = small_llama();
  config["model_type"] = "mistral";
  config["sliding_window"] = 4096;
  ModelFacts facts = parse_json(config);
  CHECK(facts.family == Family::llama);
  CHECK(facts.sliding_window == 4096);
  CHECK(count_layers(facts, LayerAttention::sliding) == 4);

  config["sliding_window"] = nullptr;
  facts = parse_json(config);
  CHECK_FALSE(facts.sliding_window);
  CHECK(count_layers(facts, LayerAttention::full) == 4);

  // transformers assumes a window of 4096 and 8 kv heads when they are absent.
  config.erase("sliding_window");
  expect_facts_error(config.dump(), "sliding_window");
  config["sliding_window"] = nullptr;
  config.erase("num_key_value_heads");
  expect_facts_error(config.dump(), "num_key_value_heads");
}

TEST_CASE("kv heads and head_dim are derived only by transformers' rules", "[facts]") {
  json config = small_llama();
  config.erase("num_key_value_heads");
  ModelFacts facts = parse_json(config);
  CHECK(facts.num_key_value_heads == 8);
  CHECK(facts.head_dim == 32);
  CHECK(was_defaulted(facts, "num_key_value_heads"));
  CHECK(was_defaulted(facts, "head_dim"));

  config["num_attention_heads"] = 6;  // 256 / 6 is not whole
  config["num_key_value_heads"] = 2;
  CHECK_THAT(expect_facts_error(config.dump(), "head_dim").message(),
             Contains("256") && Contains("6"));
  config["head_dim"] = 40;
  CHECK(parse_json(config).head_dim == 40);

  config["num_key_value_heads"] = 4;  // 6 query heads are not whole groups of 4
  expect_facts_error(config.dump(), "num_key_value_heads");

  json qwen3 = small_llama();
  qwen3["model_type"] = "qwen3";
  expect_facts_error(qwen3.dump(), "head_dim");  // transformers would guess 128
}

TEST_CASE("rope scaling spellings", "[facts]") {
  json config = small_llama();
  config["rope_scaling"] = {{"type", "dynamic"}, {"factor", 2.0}};
  CHECK(parse_json(config).rope_scaling.type == RopeScalingType::dynamic);

  config["rope_scaling"] = {{"rope_type", "yarn"}, {"type", "yarn"}, {"factor", 4},
                            {"beta_fast", 32}, {"beta_slow", 1},
                            {"original_max_position_embeddings", 32768}};
  ModelFacts facts = parse_json(config);
  CHECK(facts.rope_scaling.type == RopeScalingType::yarn);
  CHECK(facts.rope_scaling.beta_fast == 32.0);

  config["rope_scaling"] = {{"rope_type", "default"}};
  CHECK(parse_json(config).rope_scaling.type == RopeScalingType::none);

  config["rope_scaling"] = {{"rope_type", "longrope"}, {"factor", 2.0}};
  facts = parse_json(config);
  CHECK(facts.rope_scaling.type == RopeScalingType::other);
  CHECK(facts.rope_scaling.name == "longrope");

  config["rope_scaling"] = {{"rope_type", "yarn"}, {"type", "linear"}, {"factor", 2.0}};
  expect_facts_error(config.dump(), "rope_scaling.rope_type");

  config["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}};
  expect_facts_error(config.dump(), "rope_scaling.low_freq_factor");

  config["rope_scaling"] = {{"factor", 8.0}};
  expect_facts_error(config.dump(), "rope_scaling.rope_type");
}

TEST_CASE("transformers 5 spellings: dtype and rope_parameters", "[facts]") {
  json config = small_llama();
  config.erase("rope_theta");
  config["dtype"] = "bfloat16";
  config["rope_parameters"] = {{"rope_theta", 500000.0}, {"rope_type", "llama3"},
                               {"factor", 32.0}, {"low_freq_factor", 1.0},
                               {"high_freq_factor", 4.0},
                               {"original_max_position_embeddings", 8192}};
  const ModelFacts facts = parse_json(config);
  CHECK(facts.torch_dtype == "bfloat16");
  CHECK(facts.rope_theta == 500000.0);
  CHECK(facts.rope_scaling.type == RopeScalingType::llama3);

  config["torch_dtype"] = "float16";
  expect_facts_error(config.dump(), "dtype");
  config.erase("torch_dtype");
  config["rope_theta"] = 10000.0;
  expect_facts_error(config.dump(), "rope_theta");
}

TEST_CASE("qwen sliding window applies from max_window_layers on", "[facts]") {
  json config = small_llama();
  config["model_type"] = "qwen2";
  config["use_sliding_window"] = true;
  config["sliding_window"] = 512;
  config["max_window_layers"] = 2;
  const ModelFacts facts = parse_json(config);
  CHECK(facts.sliding_window == 512);
  REQUIRE(facts.layer_attention.size() == 4);
  CHECK(facts.layer_attention[1] == LayerAttention::full);
  CHECK(facts.layer_attention[2] == LayerAttention::sliding);

  config.erase("max_window_layers");
  expect_facts_error(config.dump(), "max_window_layers");
}

TEST_CASE("gemma3 layer_types and nesting", "[facts]") {
  const json text = {{"model_type", "gemma3_text"},
                     {"hidden_size", 256},
                     {"num_hidden_layers", 3},
                     {"num_attention_heads", 4},
                     {"num_key_value_heads", 1},
                     {"head_dim", 64},
                     {"intermediate_size", 512},
                     {"sliding_window", 128},
                     {"layer_types", {"sliding_attention", "full_attention", "sliding_attention"}}};
  json wrapper = {{"architectures", {"Gemma3ForConditionalGeneration"}},
                  {"model_type", "gemma3"},
                  {"text_config", text}};
  ModelFacts facts = parse_json(wrapper);
  CHECK(facts.from_text_config);
  CHECK(facts.layer_attention ==
        std::vector<LayerAttention>{LayerAttention::sliding, LayerAttention::full,
                                    LayerAttention::sliding});
  CHECK_FALSE(facts.sliding_window_pattern);  // the explicit list wins

  json text_only = text;
  text_only["architectures"] = {"Gemma3ForCausalLM"};
  facts = parse_json(text_only);
  CHECK(facts.family == Family::gemma3);
  CHECK_FALSE(facts.from_text_config);
  CHECK(facts.vocab_size == 262208);

  wrapper["text_config"]["hidden_size"] = "256";
  CHECK_THAT(expect_facts_error(wrapper.dump(), "text_config.hidden_size").message(),
             Contains("\"256\""));
  wrapper["text_config"]["hidden_size"] = 256;
  wrapper["text_config"]["layer_types"] = {"full_attention"};
  expect_facts_error(wrapper.dump(), "text_config.layer_types");
  wrapper["text_config"].erase("head_dim");
  wrapper["text_config"]["layer_types"] = text["layer_types"];
  expect_facts_error(wrapper.dump(), "text_config.head_dim");  // transformers would guess 256
  wrapper.erase("text_config");
  expect_facts_error(wrapper.dump(), "text_config");
}

TEST_CASE("malformed configs name the fact at fault", "[facts]") {
  const std::string good = small_llama().dump();
  REQUIRE_NOTHROW(parse_model_facts(good, "good/config.json"));

  CHECK_THAT(expect_facts_error("hello", "document").message(), Contains("not valid JSON"));
  CHECK_THAT(expect_facts_error("[1, 2]", "document").message(), Contains("array"));
  expect_facts_error(good + " x", "document");  // trailing garbage
  expect_facts_error(good + "{}", "document");  // a second document
  expect_facts_error("", "document");
  expect_facts_error(R"({"hidden_size": 1e400})", "document");  // beyond a double

  json config = small_llama();
  config.erase("hidden_size");
  CHECK_THAT(expect_facts_error(config.dump(), "hidden_size").message(),
             Contains("missing") && Contains("llama"));

  config = small_llama();
  config["hidden_size"] = "4096";
  CHECK_THAT(expect_facts_error(config.dump(), "hidden_size").message(),
             Contains("integer") && Contains("\"4096\""));

  config = small_llama();
  config["hidden_size"] = 4096.5;
  expect_facts_error(config.dump(), "hidden_size");

  config = small_llama();
  config["num_attention_heads"] = 0;
  CHECK_THAT(expect_facts_error(config.dump(), "num_attention_heads").message(),
             Contains("positive") && Contains("0"));

  config = small_llama();
  config["intermediate_size"] = -1;
  expect_facts_error(config.dump(), "intermediate_size");

  config = small_llama();
  config["vocab_size"] = nullptr;
  CHECK_THAT(expect_facts_error(config.dump(), "vocab_size").message(), Contains("null"));

  config = small_llama();
  config["rms_norm_eps"] = 0;
  expect_facts_error(config.dump(), "rms_norm_eps");

  config = small_llama();
  config["tie_word_embeddings"] = "false";
  expect_facts_error(config.dump(), "tie_word_embeddings");

  config = small_llama();
  config.erase("architectures");
  expect_facts_error(config.dump(), "architectures");

  config = small_llama();
  config["model_type"] = 7;
  expect_facts_error(config.dump(), "model_type");

  const std::string huge(algenta::facts::kMaxConfigBytes + 1, ' ');
  CHECK_THAT(expect_facts_error(huge, "document").message(), Contains("bytes"));
  const std::string deep = "{\"a\": " + std::string(40, '[') + std::string(40, ']') + "}";
  CHECK_THAT(expect_facts_error(deep, "document").message(), Contains("deeper"));

  // nlohmann would keep the second value; a config must not say two things.
  std::string twice = good;
  twice.insert(1, "\"hidden_size\": 512, ");
  expect_facts_error(twice, "hidden_size");
}
