// Values transformers assumes when a config leaves a key out, for the keys we
// fill in. Each is copied from the config class's own defaults, at the commit
// named, in huggingface/transformers:
//
//   LlamaConfig   src/transformers/models/llama/configuration_llama.py     008e574391258935f3ecc3035c882e73bbcac419
//   Qwen2Config   src/transformers/models/qwen2/configuration_qwen2.py     008e574391258935f3ecc3035c882e73bbcac419
//   Qwen3Config   src/transformers/models/qwen3/configuration_qwen3.py     008e574391258935f3ecc3035c882e73bbcac419
//   MistralConfig src/transformers/models/mistral/configuration_mistral.py 001f85b38fb432858ace93f18622f07cec46d874
//   Gemma3TextConfig src/transformers/models/gemma3/configuration_gemma3.py 008f5c8c29be84d4721dc6d1e0fcd72300580be4
//
// Deliberately NOT filled in: defaults that are one model's shape rather than
// a rule (Qwen3 head_dim=128, Mistral num_key_value_heads=8 and
// sliding_window=4096, Gemma3Text hidden_size=2304, intermediate_size=9216,
// num_hidden_layers=26, num_attention_heads=8, num_key_value_heads=4,
// head_dim=256; Qwen2/Qwen3 sliding_window=4096 and max_window_layers=28 when
// sliding is switched on). A config that omits one of those is refused by
// name instead of being given some other model's shape.
#pragma once

#include <cstdint>
#include <string_view>

namespace algenta::facts::defaults {

// llama, mistral, qwen2, qwen3: hidden_act="silu", tie_word_embeddings=False;
// llama and qwen3 also attention_bias=False; llama mlp_bias=False. Rules, not
// constants: num_key_value_heads=num_attention_heads and (llama, mistral,
// qwen2) head_dim=hidden_size//num_attention_heads.
inline constexpr std::string_view kDecoderHiddenAct = "silu";
inline constexpr bool kDecoderTieWordEmbeddings = false;
inline constexpr bool kDecoderAttentionBias = false;
inline constexpr bool kLlamaMlpBias = false;
// qwen2, qwen3: use_sliding_window=False.
inline constexpr bool kQwenUseSlidingWindow = false;

// Gemma3TextConfig.__init__ keyword defaults. gemma-3-27b-it, for one, states
// neither vocab_size nor rope_theta nor rms_norm_eps in its text_config.
inline constexpr std::int64_t kGemma3VocabSize = 262'208;
inline constexpr std::int64_t kGemma3MaxPositionEmbeddings = 131'072;
inline constexpr double kGemma3RmsNormEps = 1e-6;
inline constexpr double kGemma3RopeTheta = 1'000'000.0;
inline constexpr double kGemma3RopeLocalBaseFreq = 10'000.0;
inline constexpr std::int64_t kGemma3SlidingWindow = 4096;
inline constexpr double kGemma3QueryPreAttnScalar = 256.0;
inline constexpr bool kGemma3AttentionBias = false;
inline constexpr bool kGemma3TieWordEmbeddings = true;
inline constexpr std::string_view kGemma3HiddenActivation = "gelu_pytorch_tanh";
// sliding_window_pattern=6: layer i is full attention when (i + 1) % 6 == 0,
// sliding otherwise. Later versions of the same file keep this rule when they
// derive layer_types: kwargs.get("sliding_window_pattern", 6).
inline constexpr std::int64_t kGemma3SlidingWindowPattern = 6;

}  // namespace algenta::facts::defaults
