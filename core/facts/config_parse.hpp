// config.json text -> ModelFacts.
#pragma once

#include <string_view>

#include "facts/facts_error.hpp"
#include "facts/model_facts.hpp"

namespace algenta::facts {

// Reads every fact ModelFacts holds. Throws FactsError naming `source_name`,
// the fact and the value for: text that is not one JSON object (including
// trailing data and repeated keys), missing required facts, wrong JSON types,
// zero or negative sizes, a head_dim that cannot be derived, query heads that
// are not whole groups of key/value heads, layer lists of the wrong length.
//
// A gemma3 config (model_type "gemma3") keeps its language model in
// text_config; the facts then come from there, with transformers' Gemma3Text
// defaults for what it leaves out (family_defaults.hpp lists them).
//
// Support is not decided here: an unknown family or an MoE/MLA marker parses
// fine and is refused later by name.
ModelFacts parse_model_facts(std::string_view json_text, std::string_view source_name);

}  // namespace algenta::facts
