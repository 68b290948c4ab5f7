#pragma once
// Builds the statement tree from tokens, following jinja2's grammar and
// operator precedence. Tags, filters and tests outside the subset are refused
// here, at parse time, naming the construct and its line:column.
#include <string_view>

#include "chat/ast.hpp"

namespace algenta::chat {

struct ParseLimits {
  std::size_t max_nesting = 128;  // expression and block nesting
};

ParsedTemplate parse_template(std::string_view source, const ParseLimits& limits = {});

// The names the evaluator implements; the parser refuses any other.
bool is_supported_filter(const std::string& name);
bool is_supported_test(const std::string& name);

}  // namespace algenta::chat
