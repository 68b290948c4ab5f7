// Typed reads of tokenizer.json fields; every failure names the field's
// path (e.g. "pre_tokenizer.pretokenizers[1].behavior") and what was found.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace algenta::tokenizer::json_fields {

using nlohmann::json;

std::string child_path(std::string_view parent, std::string_view key);
std::string index_path(std::string_view parent, std::size_t index);

[[noreturn]] void refuse(std::string_view path, std::string_view problem);

const json& object_at(const json& value, std::string_view path);
const json& required(const json& object, std::string_view key, std::string_view path);
// Null when absent or null.
const json* optional(const json& object, std::string_view key);

std::string string_at(const json& value, std::string_view path);
std::string required_string(const json& object, std::string_view key, std::string_view path);
std::optional<std::string> optional_string(const json& object, std::string_view key, std::string_view path);
bool bool_or(const json& object, std::string_view key, std::string_view path, bool fallback);
std::uint32_t id_at(const json& value, std::string_view path);
std::uint64_t count_or(const json& object, std::string_view key, std::string_view path, std::uint64_t fallback);
// A single-character string (Metaspace replacement, Strip content).
char32_t char_field(const json& object, std::string_view key, std::string_view path);

// The "type" of a component, e.g. "Sequence".
std::string type_of(const json& component, std::string_view path);

}  // namespace algenta::tokenizer::json_fields
