// The prefill GEMM's two forms on the card, bit for bit: the hi halves'
// product, then the lo halves' accumulated onto it (beta = 1), against one
// GEMM over the stacked halves (lo's rows after hi's) whose two products are
// added afterwards in fp32, as the kernels reading a stacked output add them.
// The pinned algorithm (lt_gemm.hpp) at every weight shape of the three
// benchmarked configs and a ragged one, M = 1 to 1,024.
//   prefill_gemm_exactness [SUMMARY_JSON]
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "lt_gemm.hpp"

namespace {

using algenta::cuda::Element;

int cases = 0, failed = 0;

template <typename T>
T* device_copy(const std::vector<T>& host) {
  T* ptr = nullptr;
  CHECK_CUDA(cudaMalloc(&ptr, host.size() * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return ptr;
}

std::vector<float> host_copy(const float* ptr, size_t count) {
  std::vector<float> host(count);
  CHECK_CUDA(cudaMemcpy(host.data(), ptr, count * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

struct WeightShape {
  const char* name;
  int n, k;
};

void run_shape(algenta::cuda::LtGemm& gemm, const WeightShape& shape, std::mt19937& rng) {
  const int n = shape.n, k = shape.k;
  constexpr int kMostRows = 1024;
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<Element> w(size_t(n) * k);
  for (Element& v : w) v = static_cast<Element>(0.05f * normal(rng));
  // x's halves, stacked: hi rows [0, M), lo rows [M, 2M), as the engine's
  // split writes them (lo = x - hi, rounded).
  std::vector<float> x(size_t(kMostRows) * k);
  for (float& v : x) v = normal(rng);
  Element* d_w = device_copy(w);
  Element* d_halves = nullptr;
  float *d_accumulated = nullptr, *d_stacked = nullptr;
  CHECK_CUDA(cudaMalloc(&d_halves, size_t(2) * kMostRows * k * sizeof(Element)));
  CHECK_CUDA(cudaMalloc(&d_accumulated, size_t(kMostRows) * n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_stacked, size_t(2) * kMostRows * n * sizeof(float)));
  gemm.pin(n, k);
  for (int m : {1, 77, 256, 1024}) {
    std::vector<Element> halves(size_t(2) * m * k);
    for (size_t i = 0; i < size_t(m) * k; ++i) {
      const Element hi = static_cast<Element>(x[i]);
      halves[i] = hi;
      halves[size_t(m) * k + i] = static_cast<Element>(x[i] - static_cast<float>(hi));
    }
    CHECK_CUDA(cudaMemcpy(d_halves, halves.data(), halves.size() * sizeof(Element),
                          cudaMemcpyHostToDevice));
    const Element* hi = d_halves;
    const Element* lo = d_halves + size_t(m) * k;
    gemm.run(hi, d_w, d_accumulated, m, n, k, /*accumulate=*/false, 0);
    gemm.run(lo, d_w, d_accumulated, m, n, k, /*accumulate=*/true, 0);
    gemm.run(hi, d_w, d_stacked, 2 * m, n, k, /*accumulate=*/false, 0);
    CHECK_CUDA(cudaDeviceSynchronize());
    const std::vector<float> accumulated = host_copy(d_accumulated, size_t(m) * n);
    const std::vector<float> stacked = host_copy(d_stacked, size_t(2) * m * n);
    size_t bad = 0;
    for (size_t i = 0; i < accumulated.size(); ++i) {
      const float sum = stacked[i] + stacked[accumulated.size() + i];  // fp32, round to nearest
      if (std::memcmp(&sum, &accumulated[i], sizeof(float)) != 0) ++bad;
    }
    ++cases;
    if (bad != 0) ++failed;
    std::printf("%-44s M=%-5d %s  %zu/%zu bit-identical\n", shape.name, m, bad == 0 ? "PASS" : "FAIL",
                accumulated.size() - bad, accumulated.size());
  }
  cudaFree(d_w);
  cudaFree(d_halves);
  cudaFree(d_accumulated);
  cudaFree(d_stacked);
}

}  // namespace

int main(int argc, char** argv) {
  constexpr std::size_t kWorkspaceBytes = 32u << 20;  // the engine's (kGemmWorkspaceBytes)
  void* workspace = nullptr;
  CHECK_CUDA(cudaMalloc(&workspace, kWorkspaceBytes));
  algenta::cuda::LtGemm gemm(CUDA_R_16BF, workspace, kWorkspaceBytes);
  std::mt19937 rng(11);
  const WeightShape shapes[] = {
      {"Qwen3-0.6B qkv [4096, 1024]", 4096, 1024},
      {"Qwen3-0.6B o_proj [1024, 2048]", 1024, 2048},
      {"Qwen3-0.6B gate_up [6144, 1024]", 6144, 1024},
      {"Qwen3-0.6B down_proj [1024, 3072]", 1024, 3072},
      {"Llama-3.2-1B qkv [3072, 2048]", 3072, 2048},
      {"Llama-3.2-1B o_proj [2048, 2048]", 2048, 2048},
      {"Llama-3.2-1B gate_up [16384, 2048]", 16384, 2048},
      {"Llama-3.2-1B down_proj [2048, 8192]", 2048, 8192},
      {"Qwen2.5-7B qkv [4608, 3584]", 4608, 3584},
      {"Qwen2.5-7B o_proj [3584, 3584]", 3584, 3584},
      {"Qwen2.5-7B gate_up [37888, 3584]", 37888, 3584},
      {"Qwen2.5-7B down_proj [3584, 18944]", 3584, 18944},
      {"ragged [72, 1001]", 72, 1001},
  };
  for (const WeightShape& shape : shapes) run_shape(gemm, shape, rng);
  std::printf("prefill_gemm: %d cases, %d failed\n", cases, failed);
  write_check_summary(argc > 1 ? argv[1] : nullptr, "prefill_gemm", cases, failed);
  cudaFree(workspace);
  return failed == 0 ? 0 : 1;
}
