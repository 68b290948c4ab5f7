// Fuzzes the strict safetensors header parser. The first 8 bytes (little
// endian) are the data region size, the rest is the header text. Any input
// must either parse or raise CheckpointError; a crash, a sanitizer report or
// another exception is a bug. A header that parses must tile the region.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "checkpoint/checkpoint_error.hpp"
#include "checkpoint/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace algenta::checkpoint;
  if (size < 8) return 0;
  std::uint64_t data_region_size = 0;
  for (std::size_t i = 8; i-- > 0;) data_region_size = (data_region_size << 8) | data[i];
  const std::string_view header(reinterpret_cast<const char*>(data + 8), size - 8);
  try {
    const SafetensorsHeader parsed = parse_safetensors_header(header, data_region_size, "fuzz.safetensors");
    std::uint64_t covered_to = 0;
    for (const TensorInfo& tensor : parsed.tensors()) {
      if (tensor.data_begin != covered_to || tensor.data_end < tensor.data_begin) std::abort();
      if (parsed.find(tensor.name) != &tensor) std::abort();
      covered_to = tensor.data_end;
    }
    if (covered_to != data_region_size) std::abort();
  } catch (const CheckpointError&) {
    // Refusing bad input is the expected outcome.
  }
  return 0;
}
