// Element types of tensors as safetensors names them, with their sizes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace algenta::checkpoint {

// The byte-sized safetensors dtypes. Sub-byte packings (F4, F6_*) are not
// listed: their byte size is not element count * element size.
enum class Dtype {
  BOOL,
  U8,
  I8,
  F8_E4M3,
  F8_E5M2,
  F8_E8M0,
  I16,
  U16,
  F16,
  BF16,
  I32,
  U32,
  F32,
  C64,
  I64,
  U64,
  F64,
};

// "BF16", "F32", ...: the spelling safetensors headers use.
std::string_view dtype_name(Dtype dtype);
std::size_t dtype_element_size(Dtype dtype);
std::optional<Dtype> dtype_from_name(std::string_view name);

// "BOOL, U8, ..." for messages that list what is allowed.
std::string allowed_dtype_names();

}  // namespace algenta::checkpoint
