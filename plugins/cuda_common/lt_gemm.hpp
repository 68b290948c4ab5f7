// Prefill GEMMs through cuBLASLt on tensor cores: y[M, N] (fp32) = x[M, K] *
// w[N, K]^T with Element inputs and fp32 accumulation. The algorithm is
// chosen once per weight shape (N, K), with split-K reductions excluded, and
// then pinned: every M runs that same algorithm, so a row's result depends
// on its own inputs only, not on how many rows share the call.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <map>
#include <utility>

#include "kernels/launch.hpp"

namespace algenta::cuda {

class LtGemm {
 public:
  LtGemm(cudaDataType_t element_type, void* workspace, std::size_t workspace_bytes);
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  // Picks and pins the algorithm for weights of shape [N, K].
  void pin(int n, int k);

  // y = x w^T (accumulate: y += x w^T). The shape must have been pinned.
  void run(const Element* x, const Element* w, float* y, int m, int n, int k, bool accumulate,
           cudaStream_t stream);

  // M the algorithm is chosen for: 1,024, or ALGENTA_CUDA_GEMM_PIN_ROWS
  // (16 to 8,192; for comparing choices on a card). Every M then runs it.
  static constexpr int kRepresentativeRows = 1024;

 private:
  struct Layouts {
    cublasLtMatrixLayout_t w = nullptr, x = nullptr, y = nullptr;
  };
  Layouts make_layouts(int m, int n, int k) const;
  static void destroy(Layouts& layouts);

  cudaDataType_t element_type_;
  void* workspace_;
  std::size_t workspace_bytes_;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t operation_ = nullptr;
  std::map<std::pair<int, int>, cublasLtMatmulAlgo_t> pinned_;
};

}  // namespace algenta::cuda
