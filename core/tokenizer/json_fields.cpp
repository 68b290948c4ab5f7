#include "tokenizer/json_fields.hpp"

#include "json/strict_json.hpp"
#include "tokenizer/tokenizer_error.hpp"
#include "tokenizer/utf8.hpp"

namespace algenta::tokenizer::json_fields {

std::string child_path(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : std::string(parent) + "." + std::string(key);
}

std::string index_path(std::string_view parent, std::size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

void refuse(std::string_view path, std::string_view problem) {
  throw TokenizerError("tokenizer.json: " + std::string(path) + ": " + std::string(problem));
}

namespace {

[[noreturn]] void wrong_type(const json& value, std::string_view path, std::string_view expected) {
  refuse(path, "expected " + std::string(expected) + ", found " + strict_json::type_name(value) + " " +
                   strict_json::shown(value));
}

}  // namespace

const json& object_at(const json& value, std::string_view path) {
  if (!value.is_object()) wrong_type(value, path, "an object");
  return value;
}

const json& required(const json& object, std::string_view key, std::string_view path) {
  const auto it = object.find(std::string(key));
  if (it == object.end()) refuse(path, "has no \"" + std::string(key) + "\"");
  return *it;
}

const json* optional(const json& object, std::string_view key) {
  const auto it = object.find(std::string(key));
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string string_at(const json& value, std::string_view path) {
  if (!value.is_string()) wrong_type(value, path, "a string");
  return value.get<std::string>();
}

std::string required_string(const json& object, std::string_view key, std::string_view path) {
  return string_at(required(object, key, path), child_path(path, key));
}

std::optional<std::string> optional_string(const json& object, std::string_view key, std::string_view path) {
  const json* value = optional(object, key);
  if (value == nullptr) return std::nullopt;
  return string_at(*value, child_path(path, key));
}

bool bool_or(const json& object, std::string_view key, std::string_view path, bool fallback) {
  const json* value = optional(object, key);
  if (value == nullptr) return fallback;
  if (!value->is_boolean()) wrong_type(*value, child_path(path, key), "true or false");
  return value->get<bool>();
}

std::uint32_t id_at(const json& value, std::string_view path) {
  if (!value.is_number_unsigned() || value.get<std::uint64_t>() > 0xFFFFFFFFull) {
    wrong_type(value, path, "a token id (an integer from 0 to 4294967295)");
  }
  return static_cast<std::uint32_t>(value.get<std::uint64_t>());
}

std::uint64_t count_or(const json& object, std::string_view key, std::string_view path, std::uint64_t fallback) {
  const json* value = optional(object, key);
  if (value == nullptr) return fallback;
  if (!value->is_number_unsigned()) wrong_type(*value, child_path(path, key), "a non-negative integer");
  return value->get<std::uint64_t>();
}

char32_t char_field(const json& object, std::string_view key, std::string_view path) {
  const std::string text = required_string(object, key, path);
  std::size_t pos = 0;
  if (text.empty()) refuse(child_path(path, key), "is empty; one character is needed");
  const char32_t c = utf8::next_char(text, pos);
  if (pos != text.size()) refuse(child_path(path, key), "\"" + text + "\" is more than one character");
  return c;
}

std::string type_of(const json& component, std::string_view path) {
  object_at(component, path);
  return required_string(component, "type", path);
}

}  // namespace algenta::tokenizer::json_fields
