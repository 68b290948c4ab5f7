// One strict JSON reader for every format the project parses (plugin
// manifests, config.json, safetensors headers, resident manifests).
// nlohmann accepts things these formats must refuse: it keeps the last of
// two equal keys without a word. This reader refuses repeated keys at any
// depth, nesting past a limit, and trailing data, and reports where.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace algenta::strict_json {

struct StrictJsonError : std::runtime_error {
  enum class Kind { syntax, too_deep, duplicate_key };

  StrictJsonError(Kind kind, std::vector<std::string> path, std::string key, std::string message)
      : std::runtime_error(std::move(message)),
        kind(kind),
        path(std::move(path)),
        key(std::move(key)) {}

  Kind kind;
  // The open containers where it happened, outermost first: object keys as
  // they are, array positions as "[i]".
  std::vector<std::string> path;
  std::string key;  // the repeated key (duplicate_key only)
};

// Throws StrictJsonError. For `syntax`, what() is nlohmann's message without
// its tag, in printable ASCII (it also covers numbers beyond a double), or
// names a byte-order mark or NUL byte, which are refused anywhere.
nlohmann::json parse(std::string_view text, std::size_t max_depth);

// "plugins[2].abi", or "" for the top level.
std::string dotted_path(const std::vector<std::string>& path);

// "an array", "a string", ... for messages.
const char* type_name(const nlohmann::json& value);

// A value as it may appear in a message: compact, ASCII-escaped, and cut
// after `max_chars` with "...".
std::string shown(const nlohmann::json& value, std::size_t max_chars = 60);

}  // namespace algenta::strict_json
