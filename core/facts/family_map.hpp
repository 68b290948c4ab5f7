// model_type -> Family. Mistral shares llama's layer layout, so it is a llama;
// gemma3 is both the multimodal wrapper and its text model. Everything else
// is `unknown` here and is refused elsewhere, by its model_type.
#pragma once

#include <string_view>

#include "facts/model_facts.hpp"

namespace algenta::facts {

Family family_for_model_type(std::string_view model_type);

}  // namespace algenta::facts
