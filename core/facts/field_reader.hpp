// Typed reads of one JSON object's fields. Every failure is a FactsError that
// names the file, the key path and the offending value. JSON null reads as
// absent, as transformers treats it.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace algenta::facts {

class FieldReader {
 public:
  // `prefix` is prepended to key names in messages, e.g. "text_config.".
  FieldReader(const nlohmann::json& object, std::string file, std::string prefix = {});

  // Appended to "missing" messages so a refusal of an unknown config says
  // what it was, e.g. "(model_type \"llava\")".
  void set_missing_hint(std::string hint) { missing_hint_ = std::move(hint); }

  const std::string& file() const noexcept { return file_; }
  std::string fact(std::string_view key) const;
  [[noreturn]] void fail(std::string_view key, const std::string& message) const;

  bool has(std::string_view key) const;      // present and not null
  bool present(std::string_view key) const;  // present, null included

  std::optional<std::int64_t> integer(std::string_view key) const;
  std::optional<std::int64_t> positive_integer(std::string_view key) const;
  std::optional<double> number(std::string_view key) const;  // integer or float
  std::optional<double> positive_number(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<std::string> string(std::string_view key) const;
  const nlohmann::json* object(std::string_view key) const;  // nullptr when absent
  const nlohmann::json* array(std::string_view key) const;   // nullptr when absent

  // A reader for the object under `key` (from object()), named "<prefix><key>.".
  FieldReader nested(const nlohmann::json& child, std::string_view key) const;

  std::int64_t required_positive_integer(std::string_view key) const;
  double required_positive_number(std::string_view key) const;
  std::string required_string(std::string_view key) const;

 private:
  const nlohmann::json* find(std::string_view key) const;
  [[noreturn]] void fail_missing(std::string_view key) const;
  [[noreturn]] void fail_type(std::string_view key, const char* wanted,
                              const nlohmann::json& value) const;

  const nlohmann::json& object_;
  std::string file_;
  std::string prefix_;
  std::string missing_hint_;
};

}  // namespace algenta::facts
