// Typed, range-checked reads of one JSON object's fields, each refusal a 400
// naming the field, what it must be and what it was. Every field read is
// remembered, so that whatever nobody read can be refused as unknown.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "openai/errors.hpp"

namespace algenta::openai {

class FieldReader {
 public:
  // `prefix` names the object in messages ("", "messages[2].", ...).
  FieldReader(const nlohmann::json& object, std::string prefix);

  // The value, or nullptr when absent or JSON null (OpenAI treats null as
  // "not given").
  const nlohmann::json* get(const std::string& key);

  std::optional<std::string> string(const std::string& key);
  std::optional<bool> boolean(const std::string& key);
  std::optional<double> number(const std::string& key, double min, double max,
                               bool min_exclusive = false);
  std::optional<std::int64_t> integer(const std::string& key, std::int64_t min, std::int64_t max);

  // A field this server cannot honour: refused unless absent, null, or
  // equal to its no-effect value (`harmless`, e.g. n: 1, echo: false).
  void refuse_unless(const std::string& key, const nlohmann::json& harmless,
                     const std::string& why);
  void refuse_unless_empty(const std::string& key, const std::string& why);

  // Refuses the first field nobody read.
  void refuse_unknown() const;

  std::string name(const std::string& key) const { return prefix_ + key; }
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  [[noreturn]] void wrong_type(const std::string& key, const char* expected,
                               const nlohmann::json& got) const;

 private:
  const nlohmann::json& object_;
  std::string prefix_;
  std::set<std::string> read_;
};

}  // namespace algenta::openai
