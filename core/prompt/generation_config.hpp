// The eos_token_id of generation_config.json: the ids that end generation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace algenta::prompt {

// eos_token_id as an int or a list of ints (absent or null: none). Throws
// PromptError naming `name` for anything else or an id outside 0..2^31-1.
std::vector<std::int32_t> generation_eos_ids(std::string_view text, const std::string& name);

}  // namespace algenta::prompt
