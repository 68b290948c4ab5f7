// Reads config.json text into a JSON object, refusing what a lenient parser
// would quietly accept: trailing data, repeated keys, deep nesting, huge files.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace algenta::facts {

// Real configs are a few KiB; the largest seen (per-layer lists of 100+
// layers) stay far below this.
inline constexpr std::size_t kMaxConfigBytes = 4u << 20;

// Throws FactsError with fact "document" (or the repeated key) on failure.
nlohmann::json read_json_object(std::string_view text, const std::string& file);

// A JSON value as it may appear in a message: ASCII-escaped and bounded.
std::string shown_value(const nlohmann::json& value);

// "an array", "a string", ... for messages.
const char* json_type_name(const nlohmann::json& value);

}  // namespace algenta::facts
