// ModelFacts: what a checkpoint's config.json says about the network, read
// once and typed. Parsing decides nothing about support; refusals are made
// elsewhere from these facts, by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace algenta::facts {

// The dense decoder families the engines describe. Anything else is kept as
// `unknown` together with its model_type, so a refusal can name it.
enum class Family { unknown, llama, qwen2, qwen3, gemma3 };

std::string_view family_name(Family family);

// Normalised rope scaling kind; `other` keeps the raw name in RopeScaling::name.
enum class RopeScalingType { none, linear, dynamic, yarn, llama3, other };

std::string_view rope_scaling_type_name(RopeScalingType type);

struct RopeScaling {
  RopeScalingType type = RopeScalingType::none;
  std::string name;  // as written ("rope_type" or legacy "type"); empty when none
  std::optional<double> factor;
  std::optional<double> low_freq_factor;   // llama3
  std::optional<double> high_freq_factor;  // llama3
  std::optional<std::int64_t> original_max_position_embeddings;
  std::optional<double> beta_fast;  // yarn
  std::optional<double> beta_slow;  // yarn
};

// How one decoder layer attends.
enum class LayerAttention { full, sliding, other };

std::string_view layer_attention_name(LayerAttention kind);

struct ModelFacts {
  std::string source;  // the name the text was read under, for messages

  std::string model_type;    // top-level "model_type"
  std::string architecture;  // top-level "architectures"[0]
  Family family = Family::unknown;
  bool from_text_config = false;  // facts were read from a nested text_config

  std::int64_t hidden_size = 0;
  std::int64_t num_hidden_layers = 0;
  std::int64_t num_attention_heads = 0;
  std::int64_t num_key_value_heads = 0;  // = heads when the config omits it
  std::int64_t head_dim = 0;             // explicit, or hidden_size / heads
  std::int64_t intermediate_size = 0;
  std::int64_t vocab_size = 0;
  std::int64_t max_position_embeddings = 0;

  double rope_theta = 0.0;    // gemma3: global layers; see rope_local_base_freq
  RopeScaling rope_scaling;   // gemma3: applies to the global layers only
  double rms_norm_eps = 0.0;

  bool tie_word_embeddings = false;
  bool attention_bias = false;  // the config's "attention_bias" (q/k/v/o)
  bool qkv_bias = false;        // q/k/v projections carry a bias (qwen2: always)
  bool mlp_bias = false;        // llama "mlp_bias"
  bool qk_norm = false;         // per-head RMSNorm on q and k (qwen3, gemma3)

  std::string hidden_act;  // "hidden_act", or gemma's "hidden_activation"
  std::string torch_dtype;  // "torch_dtype" or "dtype"; empty when absent

  // Sliding-window attention. `sliding_window` is the window that is in
  // effect (qwen2/qwen3 ignore theirs unless use_sliding_window is true).
  std::optional<std::int64_t> sliding_window;
  std::optional<bool> use_sliding_window;             // qwen2, qwen3
  std::optional<std::int64_t> max_window_layers;      // qwen2, qwen3
  std::optional<std::int64_t> sliding_window_pattern;  // gemma3
  std::vector<std::string> layer_types;  // as written, when the config lists them
  // One entry per layer for known families; empty for `unknown`.
  std::vector<LayerAttention> layer_attention;

  // gemma3 attention details that change results.
  std::optional<double> query_pre_attn_scalar;
  std::optional<double> rope_local_base_freq;

  // Mixture-of-experts markers, kept so a refusal can name them.
  std::optional<std::int64_t> num_experts;        // qwen2_moe, qwen3_moe
  std::optional<std::int64_t> num_local_experts;  // mixtral
  std::optional<std::int64_t> n_routed_experts;   // deepseek
  // Multi-head latent attention markers (deepseek v2/v3).
  std::optional<std::int64_t> kv_lora_rank;
  std::optional<std::int64_t> q_lora_rank;

  // Facts that were not in the file and were filled from transformers'
  // documented defaults, e.g. "text_config.vocab_size".
  std::vector<std::string> defaulted;
};

// Names of the MoE / MLA keys present (non-null) in the config, empty when
// none. Any value counts: refusing a dense model that carries a stray marker
// is the safe mistake.
std::vector<std::string> mixture_of_experts_markers(const ModelFacts& facts);
std::vector<std::string> latent_attention_markers(const ModelFacts& facts);

}  // namespace algenta::facts
