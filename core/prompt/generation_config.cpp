#include "prompt/generation_config.hpp"

#include <limits>

#include "json/strict_json.hpp"
#include "prompt/prompt_error.hpp"
#include "prompt/prompt_files.hpp"

namespace algenta::prompt {
namespace {

std::int32_t token_id(const nlohmann::json& value, const std::string& where, const std::string& name) {
  const bool integer = value.is_number_integer();  // JSON true/false are not
  if (integer && value.is_number_unsigned() &&
      value.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
    return static_cast<std::int32_t>(value.get<std::uint64_t>());
  }
  throw PromptError(name + ": " + where + " must be a token id (an integer from 0 to 2147483647), not " +
                    (integer ? std::string("the integer ") : std::string(strict_json::type_name(value)) + " ") +
                    strict_json::shown(value));
}

}  // namespace

std::vector<std::int32_t> generation_eos_ids(std::string_view text, const std::string& name) {
  const nlohmann::json config = parse_json_file(text, name);
  if (!config.is_object()) throw PromptError(name + " must hold a JSON object, not " + strict_json::type_name(config));
  std::vector<std::int32_t> ids;
  const auto field = config.find("eos_token_id");
  if (field == config.end() || field->is_null()) return ids;
  if (field->is_array()) {
    for (std::size_t i = 0; i < field->size(); ++i) {
      ids.push_back(token_id((*field)[i], "eos_token_id[" + std::to_string(i) + "]", name));
    }
  } else {
    ids.push_back(token_id(*field, "eos_token_id", name));
  }
  return ids;
}

}  // namespace algenta::prompt
