// Times the decode GEMM kernels against each other in one run, on the card:
// mma_gemm_x_a.cuh (the kernel the stream kernel replaced),
// mma_gemm_stream.cuh (the engine's; as it is and with the tile prefetch),
// mma_gemm_slices.cuh (a batched form meant to give
// the stream kernel's bits; up to 64 rows) and mma_gemm_ring.cuh (weights
// through a ring of cp.async stages, 4, 8 or 12 stages for 8-column tiles,
// half as many for 16; up to 8 rows), at every decode GEMM shape of
// the three benchmarked configs, M = 1, 8 and 32, exact policy, random bf16
// weights. Each time is the median of 7 CUDA graphs of 20 back-to-back
// launches (cycling through enough weight copies that they come from DRAM,
// not L2). Prints us per launch, the weights' GB/s, the ratios, and whether
// each other form's y equals the stream kernel's bit for bit (exit 1 when
// one does not); a development tool, not a gate.
//   decode_gemm_timing [--only CONFIG/GEMM] [M ...]
// (--only: the shapes whose "config/gemm" contains that text, e.g. for
// Nsight Compute on one shape.)
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
#include "kernels/mma_gemm_ring.cuh"
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

// The stream kernel with its option set here, not from the environment.
template <bool kPrefetchTile>
void launch_stream_with(const float* x, const Element* w, float* y, int M, int N, int K,
                        cudaStream_t stream) {
  algenta::cuda::StreamIo io;
  io.x = x;
  io.y = y;
  io.prefetch_tile = kPrefetchTile;
  algenta::cuda::launch_mma_gemm_stream_io<Element, true, false, algenta::cuda::StreamOut::store>(
      io, w, M, N, K, stream);
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

// A kernel timed beside the stream kernel; each but x_a must give its bits.
struct Form {
  const char* name;
  Launch launch;
  int max_rows;      // rows it takes
  bool same_bits;    // compared with the stream kernel's y
};

int main(int argc, char** argv) {
  std::vector<int> rows;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    else rows.push_back(std::atoi(argv[i]));
  }
  if (rows.empty()) rows = {1, 8, 32};
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.f, 0.02f);
  const Launch streamed = launch_stream_with<false>;
  const Form forms[] = {
      {"x_a", algenta::cuda::launch_mma_gemm_x_a<Element, true>, 1 << 30, false},
      {"stream", streamed, 1 << 30, true},
      {"prefetch", launch_stream_with<true>, 1 << 30, true},
      {"slices", launch_slices, algenta::cuda::kSliceMaxRows, true},
      {"ring4", algenta::cuda::launch_mma_gemm_ring<Element, true, 4, 2>, algenta::cuda::kRingMaxRows, true},
      {"ring8", algenta::cuda::launch_mma_gemm_ring<Element, true, 8, 4>, algenta::cuda::kRingMaxRows, true},
      {"ring12", algenta::cuda::launch_mma_gemm_ring<Element, true, 12, 6>, algenta::cuda::kRingMaxRows, true},
  };
  int differing = 0;
  std::printf("%-13s %-9s %6s %6s %3s %8s", "config", "gemm", "N", "K", "M", "str GB/s");
  for (const Form& form : forms) std::printf(" %9s", (std::string(form.name) + " us").c_str());
  for (const Form& form : forms) {
    if (form.launch != streamed) std::printf(" %8s", (std::string("st/") + form.name).c_str());
  }
  std::printf("  bits\n");
  for (const GemmShape& shape : kDecodeGemmShapes) {
    if (!only.empty() && (std::string(shape.config) + "/" + shape.weight).find(only) == std::string::npos) continue;
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
    const double bytes = static_cast<double>(count * sizeof(Element));
    for (int M : rows) {
      std::vector<double> us;
      for (const Form& form : forms)
        us.push_back(M <= form.max_rows ? median_us(form.launch, x, copies, y, M, shape.N, shape.K, stream) : 0.0);
      const std::vector<float> want = result_of(streamed, x, copies[0], y, M, shape.N, shape.K, stream);
      std::string bits;
      for (const Form& form : forms) {
        if (!form.same_bits || form.launch == streamed || M > form.max_rows) continue;
        const std::vector<float> got = result_of(form.launch, x, copies[0], y, M, shape.N, shape.K, stream);
        size_t differ = 0;
        for (size_t i = 0; i < want.size(); ++i) differ += std::memcmp(&want[i], &got[i], sizeof(float)) != 0;
        differing += differ != 0;
        bits += std::string(" ") + form.name + (differ == 0 ? " same" : (" " + std::to_string(differ) + " differ"));
      }
      const double stream_us = us[1];
      std::printf("%-13s %-9s %6d %6d %3d %8.0f", shape.config, shape.weight, shape.N, shape.K, M,
                  bytes / stream_us / 1e3);
      for (double t : us) {
        if (t > 0) std::printf(" %9.2f", t);
        else std::printf(" %9s", "-");
      }
      for (size_t f = 0; f < us.size(); ++f) {
        if (forms[f].launch == streamed) continue;
        if (us[f] > 0) std::printf(" %8.2f", stream_us / us[f]);
        else std::printf(" %8s", "-");
      }
      std::printf(" %s\n", bits.c_str());
    }
    for (auto* copy : copies) CHECK_CUDA(cudaFree(copy));
    CHECK_CUDA(cudaFree(x));
    CHECK_CUDA(cudaFree(y));
    CHECK_CUDA(cudaFree(g_partial));
  }
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("forms against the stream kernel: %d of the compared cases differ\n", differing);
  return differing == 0 ? 0 : 1;
}
