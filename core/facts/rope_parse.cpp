#include "facts/rope_parse.hpp"

#include <string>

#include "facts/json_document.hpp"

namespace algenta::facts {
namespace {

using nlohmann::json;

RopeScalingType scaling_type_of(const std::string& name) {
  if (name == "default") return RopeScalingType::none;  // transformers: plain RoPE
  if (name == "linear") return RopeScalingType::linear;
  if (name == "dynamic") return RopeScalingType::dynamic;
  if (name == "yarn") return RopeScalingType::yarn;
  if (name == "llama3") return RopeScalingType::llama3;
  return RopeScalingType::other;
}

// Both "rope_type" and the legacy "type" occur; when both are written they
// must agree.
std::optional<std::string> scaling_name(const FieldReader& block) {
  const auto rope_type = block.string("rope_type");
  const auto legacy_type = block.string("type");
  if (rope_type && legacy_type && *rope_type != *legacy_type) {
    block.fail("rope_type", "is \"" + *rope_type + "\" but \"type\" says \"" + *legacy_type + "\"");
  }
  return rope_type ? rope_type : legacy_type;
}

RopeScaling read_scaling(const FieldReader& block, const std::string& name) {
  RopeScaling scaling;
  scaling.name = name;
  scaling.type = scaling_type_of(name);
  scaling.factor = block.positive_number("factor");
  scaling.low_freq_factor = block.positive_number("low_freq_factor");
  scaling.high_freq_factor = block.positive_number("high_freq_factor");
  scaling.original_max_position_embeddings =
      block.positive_integer("original_max_position_embeddings");
  scaling.beta_fast = block.positive_number("beta_fast");
  scaling.beta_slow = block.positive_number("beta_slow");

  // The parameters each kind cannot work without (transformers'
  // rope_config_validation asks for the same).
  const bool needs_factor = scaling.type == RopeScalingType::linear ||
                            scaling.type == RopeScalingType::dynamic ||
                            scaling.type == RopeScalingType::yarn ||
                            scaling.type == RopeScalingType::llama3;
  if (needs_factor && !scaling.factor) block.fail("factor", "missing for " + name + " scaling");
  if (scaling.type == RopeScalingType::llama3) {
    for (const char* key : {"low_freq_factor", "high_freq_factor",
                            "original_max_position_embeddings"}) {
      if (!block.has(key)) block.fail(key, "missing for llama3 scaling");
    }
  }
  return scaling;
}

// "rope_scaling": {...}: a type is required, since nothing else says which
// formula the numbers belong to.
RopeScaling read_rope_scaling_block(const FieldReader& block) {
  const auto name = scaling_name(block);
  if (!name) block.fail("rope_type", "missing (neither \"rope_type\" nor \"type\" is given)");
  return read_scaling(block, *name);
}

// One "rope_parameters" entry: theta plus an optional scaling kind.
struct RopeParameters {
  std::optional<double> theta;
  RopeScaling scaling;
};

RopeParameters read_parameters_entry(const FieldReader& entry) {
  RopeParameters parameters;
  parameters.theta = entry.positive_number("rope_theta");
  if (const auto name = scaling_name(entry)) parameters.scaling = read_scaling(entry, *name);
  return parameters;
}

void require_same_theta(const FieldReader& config, double top_level, double nested,
                        const char* nested_key) {
  if (top_level != nested) {
    config.fail("rope_theta", "is " + shown_value(json(top_level)) + " but " + nested_key +
                                  " says " + shown_value(json(nested)));
  }
}

}  // namespace

RopeFacts read_rope(const FieldReader& config) {
  RopeFacts rope;
  rope.theta = config.positive_number("rope_theta");
  if (const json* block = config.object("rope_scaling")) {
    rope.scaling = read_rope_scaling_block(config.nested(*block, "rope_scaling"));
  }

  const json* parameters = config.object("rope_parameters");
  if (parameters == nullptr) return rope;
  const FieldReader by_kind = config.nested(*parameters, "rope_parameters");

  // gemma3 in transformers 5: {"full_attention": {...}, "sliding_attention": {...}}.
  RopeParameters global;
  const char* global_key = "rope_parameters.rope_theta";
  if (const json* full = by_kind.object("full_attention")) {
    global = read_parameters_entry(by_kind.nested(*full, "full_attention"));
    global_key = "rope_parameters.full_attention.rope_theta";
    if (const json* sliding = by_kind.object("sliding_attention")) {
      rope.local_theta =
          read_parameters_entry(by_kind.nested(*sliding, "sliding_attention")).theta;
    }
  } else {
    global = read_parameters_entry(by_kind);
  }

  if (rope.theta && global.theta) require_same_theta(config, *rope.theta, *global.theta, global_key);
  if (!rope.theta) rope.theta = global.theta;
  if (rope.scaling.type == RopeScalingType::none && rope.scaling.name.empty()) {
    rope.scaling = global.scaling;
  }
  return rope;
}

}  // namespace algenta::facts
