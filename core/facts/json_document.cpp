#include "facts/json_document.hpp"

#include "facts/facts_error.hpp"
#include "json/strict_json.hpp"

namespace algenta::facts {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxShownChars = 60;
// config.json is at most 3 containers deep (text_config.rope_scaling); the
// cap only bounds what hostile input can cost.
constexpr std::size_t kMaxDepth = 32;

}  // namespace

const char* json_type_name(const json& value) { return strict_json::type_name(value); }

std::string shown_value(const json& value) { return strict_json::shown(value, kMaxShownChars); }

json read_json_object(std::string_view text, const std::string& file) {
  if (text.size() > kMaxConfigBytes) {
    throw FactsError(file, "document",
                     "is " + std::to_string(text.size()) + " bytes; a config.json may be at most " +
                         std::to_string(kMaxConfigBytes));
  }
  json document;
  try {
    document = strict_json::parse(text, kMaxDepth);
  } catch (const strict_json::StrictJsonError& error) {
    switch (error.kind) {
      case strict_json::StrictJsonError::Kind::duplicate_key:
        // A config that says hidden_size twice is ambiguous: name the key.
        throw FactsError(file, error.key, error.what());
      case strict_json::StrictJsonError::Kind::too_deep:
        throw FactsError(file, "document", error.what());
      case strict_json::StrictJsonError::Kind::syntax:
        break;
    }
    throw FactsError(file, "document", std::string("is not valid JSON: ") + error.what());
  }
  if (!document.is_object()) {
    throw FactsError(file, "document",
                     std::string("top level must be a JSON object, got ") + json_type_name(document));
  }
  return document;
}

}  // namespace algenta::facts
