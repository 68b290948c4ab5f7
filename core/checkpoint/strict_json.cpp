#include "checkpoint/strict_json.hpp"

#include "checkpoint/checkpoint_error.hpp"
#include "json/strict_json.hpp"

namespace algenta::checkpoint {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxShownChars = 60;

// In safetensors headers the top-level keys are tensor names: a problem
// inside one tensor's entry is reported against that tensor.
CheckpointError checkpoint_error_for(const strict_json::StrictJsonError& error,
                                     const std::string& file, std::size_t max_depth,
                                     bool top_level_keys_are_tensors) {
  using Kind = strict_json::StrictJsonError::Kind;
  const std::string top_key = error.path.empty() ? std::string() : error.path.front();
  const std::string blamed = top_level_keys_are_tensors ? top_key : std::string();
  switch (error.kind) {
    case Kind::syntax:
      return CheckpointError(file, "", std::string("is not valid JSON: ") + error.what());
    case Kind::too_deep:
      return CheckpointError(file, blamed,
                             "JSON nests deeper than " + std::to_string(max_depth) +
                                 " levels, more than the format ever has");
    case Kind::duplicate_key:
      break;
  }
  const bool at_top = error.path.empty();
  if (at_top && top_level_keys_are_tensors) {
    return CheckpointError(file, error.key,
                           "appears more than once; every tensor name must be unique");
  }
  const std::string where = at_top                       ? std::string("at the top level")
                            : top_level_keys_are_tensors ? std::string("in its entry")
                                                         : "inside " + shown_text(top_key);
  return CheckpointError(file, blamed,
                         "key " + shown_text(error.key) + " appears more than once " + where +
                             "; every key must be unique");
}

}  // namespace

json parse_strict_json_object(std::string_view text, const std::string& file, std::size_t max_depth,
                              bool top_level_keys_are_tensors) {
  json document;
  try {
    document = strict_json::parse(text, max_depth);
  } catch (const strict_json::StrictJsonError& error) {
    throw checkpoint_error_for(error, file, max_depth, top_level_keys_are_tensors);
  }
  if (!document.is_object()) {
    throw CheckpointError(file, "",
                          std::string("JSON must be an object at the top level, got ") + json_type_name(document));
  }
  return document;
}

const char* json_type_name(const json& value) { return strict_json::type_name(value); }

std::string shown_json(const json& value) { return strict_json::shown(value, kMaxShownChars); }

}  // namespace algenta::checkpoint

