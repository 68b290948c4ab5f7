// ModelFacts as JSON, for machine-readable reports (`conform --json`).
#pragma once

#include <nlohmann/json.hpp>

#include "facts/model_facts.hpp"

namespace algenta::facts {

// Every field, with enums as their names; absent optionals are null, so the
// set of keys does not depend on the model.
nlohmann::json facts_to_json(const ModelFacts& facts);

}  // namespace algenta::facts
