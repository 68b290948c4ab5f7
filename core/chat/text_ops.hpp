#pragma once
// Python str methods over UTF-8 text (indices and lengths in code points).
#include <optional>
#include <string>
#include <vector>

namespace algenta::chat {

std::vector<std::string> py_split(const std::string& s, const std::optional<std::string>& sep, long long maxsplit, bool from_right);
std::string py_strip_chars(const std::string& s, const std::string& chars, bool left, bool right);
std::string py_replace(const std::string& s, const std::string& old, const std::string& repl, long long count);
long long py_find(const std::string& s, const std::string& sub, bool from_right);  // code point index or -1
long long py_count(const std::string& s, const std::string& sub);
std::vector<std::string> py_splitlines(const std::string& s, bool keepends);
// Case mappings. upper/lower map all of Unicode (via ICU); title and
// capitalize refuse non-ASCII text (Python's titlecasing rules are not carried).
std::string py_upper(const std::string& s);
std::string py_lower(const std::string& s);
std::string py_capitalize(const std::string& s);
std::string py_title(const std::string& s);

}  // namespace algenta::chat
