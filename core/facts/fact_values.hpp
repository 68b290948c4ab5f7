// Facts by name, as the plugins' declared fact ranges spell them. This is
// the one place that maps a range row's fact name to a ModelFacts field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "facts/model_facts.hpp"

namespace algenta::facts {

using FactValue = std::variant<std::int64_t, std::string>;

// nullopt for a name no plugin may use (so a typo in a table refuses).
std::optional<FactValue> fact_value(const ModelFacts& facts, std::string_view name);

std::string fact_value_text(const FactValue& value);

// Every name fact_value() knows, for --table and for messages.
const std::vector<std::string_view>& known_fact_names();

}  // namespace algenta::facts
