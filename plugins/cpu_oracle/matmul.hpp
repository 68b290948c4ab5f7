// Matrix products with one fixed reduction order.
//
// Every output element is one dot product, reduced the same way whatever the
// thread count, the batch it sits in or the CPU: 16 lane accumulators take k
// in strides of 16 (lane l sums k = l, l + 16, ... in increasing k), then a
// fixed pairwise tree folds the lanes (8, 4, 2, 1). The sources are compiled
// without floating-point contraction, so the AVX-512 build of the loop (16
// lanes per instruction), the AVX2 build (8) and the generic build (4) do
// the same IEEE multiplies and adds and give the same bits.
//
// Weights stay in their stored element type and are widened to f32 one
// element at a time at use; bf16 and f16 widen exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace algenta::oracle {

enum class ElementType { f32, bf16, f16 };

std::string_view element_type_name(ElementType type);
std::size_t element_size(ElementType type);

// A row-major [rows, cols] matrix in its stored element type.
struct MatrixView {
  const std::byte* data = nullptr;
  ElementType type = ElementType::f32;
  std::size_t rows = 0;
  std::size_t cols = 0;
};

// The exact f32 value of one stored element.
float widen_bf16(std::uint16_t bits);
float widen_f16(std::uint16_t bits);

// Row `row` of `m`, widened to f32 (cols floats).
void widen_row(const MatrixView& m, std::size_t row, float* out);

// Which build of the dot-product loop runs; all give the same bits.
enum class Isa { generic, avx2, avx512 };

std::string_view isa_name(Isa isa);
// The builds this CPU can run, generic first.
std::vector<Isa> available_isas();
// The widest of them.
Isa detect_isa();

// For every input t and every row r in [row_begin, row_end):
//   outputs[t][r] = dot(row r of w, inputs[t])   (w.cols elements each)
// Inputs share each weight row while it is in cache; the result of one
// element does not depend on the other inputs or on the row range.
void matmul_rows(Isa isa, const MatrixView& w, std::span<const float* const> inputs,
                 std::span<float* const> outputs, std::size_t row_begin, std::size_t row_end);

// dot(a, b) over n floats, in the same lane order.
float dot(const float* a, const float* b, std::size_t n);

}  // namespace algenta::oracle
