#pragma once
// UTF-8 <-> code points, and Python's notion of whitespace (str.isspace).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace algenta::chat {

std::vector<char32_t> decode_utf8(std::string_view text);  // invalid bytes -> runtime error
std::string encode_utf8(const std::vector<char32_t>& cps, std::size_t begin = 0, std::size_t end = SIZE_MAX);
void append_utf8(std::string& out, char32_t cp);
bool is_ascii(std::string_view text);
std::size_t code_point_count(std::string_view text);
bool is_py_space(char32_t cp);

// str.strip/lstrip/rstrip without arguments (Unicode whitespace).
std::string py_strip(std::string_view text, bool left, bool right);

}  // namespace algenta::chat
