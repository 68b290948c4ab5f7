#include "facts/field_reader.hpp"

#include <limits>
#include <utility>

#include "facts/facts_error.hpp"
#include "facts/json_document.hpp"

namespace algenta::facts {

using nlohmann::json;

FieldReader::FieldReader(const json& object, std::string file, std::string prefix)
    : object_(object), file_(std::move(file)), prefix_(std::move(prefix)) {}

std::string FieldReader::fact(std::string_view key) const {
  return prefix_ + std::string(key);
}

void FieldReader::fail(std::string_view key, const std::string& message) const {
  throw FactsError(file_, fact(key), message);
}

void FieldReader::fail_missing(std::string_view key) const {
  if (present(key)) fail(key, "must not be null");
  fail(key, missing_hint_.empty() ? "missing" : "missing " + missing_hint_);
}

void FieldReader::fail_type(std::string_view key, const char* wanted, const json& value) const {
  fail(key, std::string("must be ") + wanted + ", got " + json_type_name(value) + " " +
                shown_value(value));
}

const json* FieldReader::find(std::string_view key) const {
  const auto it = object_.find(std::string(key));
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

bool FieldReader::has(std::string_view key) const { return find(key) != nullptr; }

bool FieldReader::present(std::string_view key) const {
  return object_.contains(std::string(key));
}

std::optional<std::int64_t> FieldReader::integer(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (value->is_number_unsigned()) {
    const auto raw = value->get<std::uint64_t>();
    if (raw > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail(key, "is too large: " + shown_value(*value));
    }
    return static_cast<std::int64_t>(raw);
  }
  if (!value->is_number_integer()) fail_type(key, "an integer", *value);
  return value->get<std::int64_t>();
}

std::optional<std::int64_t> FieldReader::positive_integer(std::string_view key) const {
  const auto value = integer(key);
  if (value && *value <= 0) {
    fail(key, "must be a positive integer, got " + std::to_string(*value));
  }
  return value;
}

std::optional<double> FieldReader::number(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number()) fail_type(key, "a number", *value);
  return value->get<double>();
}

std::optional<double> FieldReader::positive_number(std::string_view key) const {
  const auto value = number(key);
  if (value && !(*value > 0.0)) {
    fail(key, "must be a positive number, got " + shown_value(*find(key)));
  }
  return value;
}

std::optional<bool> FieldReader::boolean(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_boolean()) fail_type(key, "true or false", *value);
  return value->get<bool>();
}

std::optional<std::string> FieldReader::string(std::string_view key) const {
  const json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) fail_type(key, "a string", *value);
  return value->get<std::string>();
}

const json* FieldReader::object(std::string_view key) const {
  const json* value = find(key);
  if (value != nullptr && !value->is_object()) fail_type(key, "an object", *value);
  return value;
}

const json* FieldReader::array(std::string_view key) const {
  const json* value = find(key);
  if (value != nullptr && !value->is_array()) fail_type(key, "an array", *value);
  return value;
}

FieldReader FieldReader::nested(const json& child, std::string_view key) const {
  FieldReader reader(child, file_, fact(key) + ".");
  reader.missing_hint_ = missing_hint_;
  return reader;
}

std::int64_t FieldReader::required_positive_integer(std::string_view key) const {
  const auto value = positive_integer(key);
  if (!value) fail_missing(key);
  return *value;
}

double FieldReader::required_positive_number(std::string_view key) const {
  const auto value = positive_number(key);
  if (!value) fail_missing(key);
  return *value;
}

std::string FieldReader::required_string(std::string_view key) const {
  auto value = string(key);
  if (!value) fail_missing(key);
  if (value->empty()) fail(key, "must not be empty");
  return std::move(*value);
}

}  // namespace algenta::facts
