// Parses checkpoint JSON (safetensors headers, shard indexes, resident
// manifests) refusing what a lenient parser would quietly accept: repeated
// keys (nlohmann keeps the last one), nesting deeper than the format has,
// trailing data, anything but an object at the top.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace algenta::checkpoint {

// Throws CheckpointError naming `file`. A key repeated inside the value of
// top-level key K is reported against K as the tensor (in safetensors the
// top-level keys are tensor names); `top_level_keys_are_tensors` says so.
nlohmann::json parse_strict_json_object(std::string_view text, const std::string& file,
                                        std::size_t max_depth, bool top_level_keys_are_tensors);

// "an array", "a string", ... for messages.
const char* json_type_name(const nlohmann::json& value);

// A JSON value as it may appear in a message: ASCII-escaped and bounded.
std::string shown_json(const nlohmann::json& value);

}  // namespace algenta::checkpoint
