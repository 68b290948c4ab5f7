// Prefill attention on tensor cores (attention_prefill_mma.cu): what
// launch_attention_prefill runs where it applies.
#pragma once

#include <cuda_runtime_api.h>

#include "engine_layout.hpp"
#include "launch.hpp"

namespace algenta::cuda {

// The target has bf16 mma.sync (its weights are bf16: sm_80 and later), the
// head_dim is one the kernel is built for (16, 32, 64, 128) and the cache
// rows are 16-byte aligned.
bool prefill_mma_applies(const HeadShape& shape, bool vector_rows);

// Where prefill attention writes: fp32 values, or (hi set) the o GEMM's
// input halves as launch_split_hi_lo would split those values (lo null:
// hi alone).
struct PrefillOut {
  float* values = nullptr;
  Element* hi = nullptr;
  Element* lo = nullptr;
};

// launch_attention_prefill's contract (launch.hpp), on tensor cores.
cudaError_t launch_attention_prefill_mma(const float* qkv, int qkv_stride, const RowMeta* rows,
                                         int row_count, HeadShape shape, PagedKv kv, float scale,
                                         bool lo_halves, const PrefillOut& out,
                                         cudaStream_t stream);

}  // namespace algenta::cuda
