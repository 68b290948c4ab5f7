// What both tensor-core GEMM kernels share: packing two Element values into
// an mma word, the m16n8k8 mma itself (bf16 from sm_80, f16 on sm_75), and
// the split of fp32 activations into hi and lo halves.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace algenta::cuda {

template <typename Element>
__device__ __forceinline__ uint32_t pack_pair(Element first, Element second) {
  union {
    Element e[2];
    uint32_t u;
  } v;
  v.e[0] = first;  // lower k in the low half, as mma expects
  v.e[1] = second;
  return v.u;
}

// c += A (16 x 8, rows g and g + 8 in a0 / a1) * B (8 x 8, column g in b).
template <typename Element>
__device__ __forceinline__ void mma_16x8x8(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t b) {
  if constexpr (std::is_same_v<Element, __nv_bfloat16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(b));
  } else {
    static_assert(std::is_same_v<Element, __half>, "mma_gemm takes bf16 or f16 weights");
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(b));
  }
}

// The hi and lo halves of the pair (a, b) as mma words (round to nearest even,
// as a cast; without kLo, lo is not made).
template <typename Element, bool kLo>
__device__ __forceinline__ void split_pair(float a, float b, uint32_t& hi, uint32_t& lo) {
  const Element a_hi = static_cast<Element>(a);
  const Element b_hi = static_cast<Element>(b);
  hi = pack_pair(a_hi, b_hi);
  if constexpr (kLo) {
    lo = pack_pair(static_cast<Element>(__fsub_rn(a, static_cast<float>(a_hi))),
                   static_cast<Element>(__fsub_rn(b, static_cast<float>(b_hi))));
  }
}

// 16 consecutive values from p (valid: how many exist; the rest are 0).
template <typename T>
union Sixteen {
  uint4 raw[16 * sizeof(T) / 16];
  T v[16];
};

template <typename T, bool kVec>
__device__ __forceinline__ void load16(const T* p, int valid, Sixteen<T>& out) {
  if (kVec && valid >= 16) {
#pragma unroll
    for (int i = 0; i < static_cast<int>(16 * sizeof(T) / 16); ++i)
      out.raw[i] = reinterpret_cast<const uint4*>(p)[i];
  } else {
#pragma unroll
    for (int j = 0; j < 16; ++j) out.v[j] = j < valid ? p[j] : static_cast<T>(0.f);
  }
}

// Rows of x (fp32) and w (Element) may be read 16 bytes at a time: both
// bases 16-byte aligned and K a multiple of 8. Both load paths give the same bits.
template <typename Element>
bool gemm_rows_aligned(const float* x, const Element* w, int K) {
  return K % 8 == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 &&
         reinterpret_cast<uintptr_t>(w) % 16 == 0;
}

// The planted gemm_lo engine drops the lo halves under the exact policy.
#if defined(ALGENTA_CUDA_PLANTED_BUG) && ALGENTA_CUDA_PLANTED_BUG == 4
inline constexpr bool kPlantedDropsLo = true;
#else
inline constexpr bool kPlantedDropsLo = false;
#endif


}  // namespace algenta::cuda
