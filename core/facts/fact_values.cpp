#include "facts/fact_values.hpp"

#include <algorithm>
#include <functional>
#include <map>

namespace algenta::facts {
namespace {

using Getter = std::function<FactValue(const ModelFacts&)>;

std::int64_t sliding_window_or_zero(const ModelFacts& f) {
  const bool any_sliding = std::any_of(f.layer_attention.begin(), f.layer_attention.end(),
                                       [](LayerAttention a) { return a == LayerAttention::sliding; });
  return any_sliding && f.sliding_window ? *f.sliding_window : 0;
}

const std::map<std::string_view, Getter>& getters() {
  static const std::map<std::string_view, Getter> table = {
      {"family", [](const ModelFacts& f) { return FactValue(std::string(family_name(f.family))); }},
      {"hidden_size", [](const ModelFacts& f) { return FactValue(f.hidden_size); }},
      {"num_hidden_layers", [](const ModelFacts& f) { return FactValue(f.num_hidden_layers); }},
      {"num_attention_heads", [](const ModelFacts& f) { return FactValue(f.num_attention_heads); }},
      {"num_key_value_heads", [](const ModelFacts& f) { return FactValue(f.num_key_value_heads); }},
      {"head_dim", [](const ModelFacts& f) { return FactValue(f.head_dim); }},
      {"intermediate_size", [](const ModelFacts& f) { return FactValue(f.intermediate_size); }},
      {"vocab_size", [](const ModelFacts& f) { return FactValue(f.vocab_size); }},
      {"max_position_embeddings",
       [](const ModelFacts& f) { return FactValue(f.max_position_embeddings); }},
      {"rope_scaling",
       [](const ModelFacts& f) {
         return FactValue(std::string(f.rope_scaling.type == RopeScalingType::other
                                          ? f.rope_scaling.name
                                          : rope_scaling_type_name(f.rope_scaling.type)));
       }},
      {"hidden_act", [](const ModelFacts& f) { return FactValue(f.hidden_act); }},
      // 0 when no layer slides.
      {"sliding_window", [](const ModelFacts& f) { return FactValue(sliding_window_or_zero(f)); }},
      {"mlp_kind",
       [](const ModelFacts& f) {
         return FactValue(std::string(mixture_of_experts_markers(f).empty() ? "dense"
                                                                            : "mixture_of_experts"));
       }},
      {"attention_kind",
       [](const ModelFacts& f) {
         return FactValue(std::string(latent_attention_markers(f).empty() ? "grouped_query"
                                                                          : "latent"));
       }},
      {"mlp_bias", [](const ModelFacts& f) { return FactValue(std::int64_t{f.mlp_bias}); }},
  };
  return table;
}

}  // namespace

std::optional<FactValue> fact_value(const ModelFacts& facts, std::string_view name) {
  const auto it = getters().find(name);
  if (it == getters().end()) return std::nullopt;
  return it->second(facts);
}

std::string fact_value_text(const FactValue& value) {
  if (const auto* number = std::get_if<std::int64_t>(&value)) return std::to_string(*number);
  return std::get<std::string>(value);
}

const std::vector<std::string_view>& known_fact_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const auto& [name, getter] : getters()) out.push_back(name);
    return out;
  }();
  return names;
}

}  // namespace algenta::facts
