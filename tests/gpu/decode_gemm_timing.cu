// Times the decode GEMM kernels against each other in one run, on the card:
// mma_gemm_x_a.cuh (the kernel the stream kernel replaced),
// mma_gemm_stream.cuh (the engine's) and mma_gemm_slices.cuh (a batched
// form meant to give the stream kernel's bits; up to 64 rows), at every
// decode GEMM shape of the three benchmarked configs, M = 1, 8 and 32, exact
// policy, random bf16 weights. Each time is the median of 7 CUDA graphs of
// 20 back-to-back launches (cycling through enough weight copies that they
// come from DRAM, not L2). Prints us per launch, the weights' GB/s, the
// ratios, and whether the slices' y equals the stream kernel's bit for bit
// (exit 1 when it does not); a development tool, not a gate.
//   decode_gemm_timing [M ...]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "decode_gemm_shapes.hpp"
#include "kernels/mma_gemm_slices.cuh"
#include "kernels/mma_gemm_stream.cuh"
#include "kernels/mma_gemm_x_a.cuh"
#include "target_policy.hpp"

using Element = TargetPolicy::Element;

namespace {

constexpr int kLaunches = 20;
constexpr int kGraphs = 7;
constexpr size_t kColdBytes = size_t{256} << 20;  // more than L2: copies cycle through DRAM

using Launch = void (*)(const float*, const Element*, float*, int, int, int, cudaStream_t);

float* g_partial = nullptr;  // the slices' partial sums, for the shape being timed

void launch_slices(const float* x, const Element* w, float* y, int M, int N, int K,
                   cudaStream_t stream) {
  algenta::cuda::launch_mma_gemm_slices<Element, true>(x, w, y, g_partial, M, N, K, stream);
}

// y of one launch on the first weight copy.
std::vector<float> result_of(Launch launch, const float* x, const Element* w, float* y, int M, int N,
                             int K, cudaStream_t stream) {
  CHECK_CUDA(cudaMemset(y, 0xff, sizeof(float) * M * N));
  launch(x, w, y, M, N, K, stream);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<float> out(static_cast<size_t>(M) * N);
  CHECK_CUDA(cudaMemcpy(out.data(), y, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return out;
}

// Random bf16 weights, fast enough for the 545 M of Qwen2.5-7B's lm_head: a
// table of normal values, read in a scrambled order.
std::vector<Element> random_weights(size_t count, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.f, 0.02f);
  std::vector<Element> table(1 << 16);
  for (auto& v : table) v = static_cast<Element>(normal(rng));
  std::vector<Element> out(count);
  uint64_t state = rng();
  for (auto& v : out) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = table[state >> 48];
  }
  return out;
}

double median_us(Launch launch, const float* x, const std::vector<Element*>& copies, float* y,
                 int M, int N, int K, cudaStream_t stream) {
  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < kLaunches; ++i) launch(x, copies[i % copies.size()], y, M, N, K, stream);
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));  // warm-up
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  std::vector<double> times;
  for (int r = 0; r < kGraphs; ++r) {
    CHECK_CUDA(cudaEventRecord(start, stream));
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaEventRecord(stop, stream));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0.f;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(1000.0 * ms / kLaunches);
  }
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> rows;
  for (int i = 1; i < argc; ++i) rows.push_back(std::atoi(argv[i]));
  if (rows.empty()) rows = {1, 8, 32};
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.f, 0.02f);
  const Launch certified = algenta::cuda::launch_mma_gemm_x_a<Element, true>;
  const Launch streamed = algenta::cuda::launch_mma_gemm_stream<Element, true>;
  int differing = 0;
  std::printf("%-13s %-9s %6s %6s %3s  %9s %9s %9s  %8s %8s  %6s %6s  %s\n", "config", "gemm", "N", "K",
              "M", "x_a us", "str us", "slices us", "str GB/s", "sl GB/s", "x_a/st", "st/sl", "bits");
  for (const GemmShape& shape : kDecodeGemmShapes) {
    const size_t count = size_t{static_cast<unsigned>(shape.N)} * shape.K;
    const std::vector<Element> host = random_weights(count, rng);
    const size_t copies_needed = std::max<size_t>(1, std::min<size_t>(kLaunches, kColdBytes / (count * sizeof(Element)) + 1));
    std::vector<Element*> copies(copies_needed);
    for (auto& copy : copies) {
      CHECK_CUDA(cudaMalloc(&copy, count * sizeof(Element)));
      CHECK_CUDA(cudaMemcpy(copy, host.data(), count * sizeof(Element), cudaMemcpyHostToDevice));
    }
    const int max_rows = *std::max_element(rows.begin(), rows.end());
    std::vector<float> xs(size_t{static_cast<unsigned>(max_rows)} * shape.K);
    for (auto& v : xs) v = normal(rng) * 50.f;
    float* x = nullptr;
    float* y = nullptr;
    CHECK_CUDA(cudaMalloc(&x, xs.size() * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(x, xs.data(), xs.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMalloc(&y, size_t{static_cast<unsigned>(max_rows)} * shape.N * sizeof(float)));
    const int slice_rows = std::min(max_rows, algenta::cuda::kSliceMaxRows);
    CHECK_CUDA(cudaMalloc(&g_partial, sizeof(float) * algenta::cuda::kSliceCount * slice_rows * shape.N));
    for (int M : rows) {
      const double a = median_us(certified, x, copies, y, M, shape.N, shape.K, stream);
      const double b = median_us(streamed, x, copies, y, M, shape.N, shape.K, stream);
      const double bytes = static_cast<double>(count * sizeof(Element));
      if (M > algenta::cuda::kSliceMaxRows) {
        std::printf("%-13s %-9s %6d %6d %3d  %9.2f %9.2f %9s  %8.0f %8s  %6.2f %6s  -\n", shape.config,
                    shape.weight, shape.N, shape.K, M, a, b, "-", bytes / b / 1e3, "-", a / b, "-");
        continue;
      }
      const double c = median_us(launch_slices, x, copies, y, M, shape.N, shape.K, stream);
      const std::vector<float> want = result_of(streamed, x, copies[0], y, M, shape.N, shape.K, stream);
      const std::vector<float> got = result_of(launch_slices, x, copies[0], y, M, shape.N, shape.K, stream);
      size_t differ = 0;
      for (size_t i = 0; i < want.size(); ++i) differ += std::memcmp(&want[i], &got[i], sizeof(float)) != 0;
      differing += differ != 0;
      std::printf("%-13s %-9s %6d %6d %3d  %9.2f %9.2f %9.2f  %8.0f %8.0f  %6.2f %6.2f  %s\n", shape.config,
                  shape.weight, shape.N, shape.K, M, a, b, c, bytes / b / 1e3, bytes / c / 1e3, a / b, b / c,
                  differ == 0 ? "same" : (std::to_string(differ) + " differ").c_str());
    }
    for (auto* copy : copies) CHECK_CUDA(cudaFree(copy));
    CHECK_CUDA(cudaFree(x));
    CHECK_CUDA(cudaFree(y));
    CHECK_CUDA(cudaFree(g_partial));
  }
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("slices against the stream kernel: %d of the timed cases differ\n", differing);
  return differing == 0 ? 0 : 1;
}
