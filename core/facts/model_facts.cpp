// Names for the ModelFacts enums and the refusal markers.
#include "facts/model_facts.hpp"

namespace algenta::facts {

std::string_view family_name(Family family) {
  switch (family) {
    case Family::llama: return "llama";
    case Family::qwen2: return "qwen2";
    case Family::qwen3: return "qwen3";
    case Family::gemma3: return "gemma3";
    case Family::unknown: break;
  }
  return "unknown";
}

std::string_view rope_scaling_type_name(RopeScalingType type) {
  switch (type) {
    case RopeScalingType::linear: return "linear";
    case RopeScalingType::dynamic: return "dynamic";
    case RopeScalingType::yarn: return "yarn";
    case RopeScalingType::llama3: return "llama3";
    case RopeScalingType::other: return "other";
    case RopeScalingType::none: break;
  }
  return "none";
}

std::string_view layer_attention_name(LayerAttention kind) {
  switch (kind) {
    case LayerAttention::sliding: return "sliding_attention";
    case LayerAttention::other: return "other";
    case LayerAttention::full: break;
  }
  return "full_attention";
}

std::vector<std::string> mixture_of_experts_markers(const ModelFacts& facts) {
  std::vector<std::string> markers;
  if (facts.num_experts) markers.emplace_back("num_experts");
  if (facts.num_local_experts) markers.emplace_back("num_local_experts");
  if (facts.n_routed_experts) markers.emplace_back("n_routed_experts");
  return markers;
}

std::vector<std::string> latent_attention_markers(const ModelFacts& facts) {
  std::vector<std::string> markers;
  if (facts.kv_lora_rank) markers.emplace_back("kv_lora_rank");
  if (facts.q_lora_rank) markers.emplace_back("q_lora_rank");
  return markers;
}

}  // namespace algenta::facts
