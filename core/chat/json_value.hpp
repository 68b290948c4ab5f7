#pragma once
// JSON (as Python's json.loads reads it) to template values.
#include <nlohmann/json.hpp>

#include "chat/value.hpp"

namespace algenta::chat {

Value value_from_json(const nlohmann::ordered_json& j, std::size_t max_depth);

}  // namespace algenta::chat
