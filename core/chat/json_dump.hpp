#pragma once
// Python's json.dumps for template values, as transformers' tojson filter
// calls it (ensure_ascii=False by default, indent, separators, sort_keys).
#include <optional>
#include <string>

#include "chat/value.hpp"

namespace algenta::chat {

struct JsonDumpOptions {
  bool ensure_ascii = false;
  std::optional<std::string> indent;  // None: one line; else the per-level indent text
  std::optional<std::pair<std::string, std::string>> separators;  // item, key
  bool sort_keys = false;
};

std::string json_dumps(const Value& v, const JsonDumpOptions& options, std::size_t max_depth);

}  // namespace algenta::chat
