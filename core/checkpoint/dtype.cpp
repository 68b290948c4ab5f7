#include "checkpoint/dtype.hpp"

#include <array>

namespace algenta::checkpoint {
namespace {

struct DtypeRow {
  Dtype dtype;
  std::string_view name;
  std::size_t element_size;
};

constexpr std::array kDtypes{
    DtypeRow{Dtype::BOOL, "BOOL", 1},       DtypeRow{Dtype::U8, "U8", 1},
    DtypeRow{Dtype::I8, "I8", 1},           DtypeRow{Dtype::F8_E4M3, "F8_E4M3", 1},
    DtypeRow{Dtype::F8_E5M2, "F8_E5M2", 1}, DtypeRow{Dtype::F8_E8M0, "F8_E8M0", 1},
    DtypeRow{Dtype::I16, "I16", 2},         DtypeRow{Dtype::U16, "U16", 2},
    DtypeRow{Dtype::F16, "F16", 2},         DtypeRow{Dtype::BF16, "BF16", 2},
    DtypeRow{Dtype::I32, "I32", 4},         DtypeRow{Dtype::U32, "U32", 4},
    DtypeRow{Dtype::F32, "F32", 4},         DtypeRow{Dtype::C64, "C64", 8},
    DtypeRow{Dtype::I64, "I64", 8},         DtypeRow{Dtype::U64, "U64", 8},
    DtypeRow{Dtype::F64, "F64", 8},
};

const DtypeRow& row_of(Dtype dtype) {
  for (const DtypeRow& row : kDtypes) {
    if (row.dtype == dtype) return row;
  }
  return kDtypes.front();  // unreachable: every enumerator has a row
}

}  // namespace

std::string_view dtype_name(Dtype dtype) { return row_of(dtype).name; }

std::size_t dtype_element_size(Dtype dtype) { return row_of(dtype).element_size; }

std::optional<Dtype> dtype_from_name(std::string_view name) {
  for (const DtypeRow& row : kDtypes) {
    if (row.name == name) return row.dtype;
  }
  return std::nullopt;
}

std::string allowed_dtype_names() {
  std::string names;
  for (const DtypeRow& row : kDtypes) {
    if (!names.empty()) names += ", ";
    names += row.name;
  }
  return names;
}

}  // namespace algenta::checkpoint
