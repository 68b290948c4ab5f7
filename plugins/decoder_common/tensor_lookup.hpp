// A checkpoint tensor by its transformers name, with the shape the model
// needs; anything else is refused (INVALID_ARGUMENT naming the tensor).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checkpoint/resident_reader.hpp"

namespace algenta::decoder {

checkpoint::ResidentTensor require_tensor(const checkpoint::ResidentCheckpoint& checkpoint,
                                          const std::string& name,
                                          const std::vector<std::int64_t>& shape);

[[noreturn]] void refuse_tensor(const std::string& name, const std::string& problem);

}  // namespace algenta::decoder
