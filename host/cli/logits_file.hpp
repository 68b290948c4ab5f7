// Writes logits as a one-tensor safetensors file ("logits", F32, [rows,
// vocab]), which numpy, torch and the safetensors library read directly.
#pragma once

#include <cstddef>
#include <filesystem>
#include <vector>

namespace algenta::host {

void write_logits_safetensors(const std::filesystem::path& file, const std::vector<float>& logits,
                              std::size_t rows, std::size_t vocab);

}  // namespace algenta::host
