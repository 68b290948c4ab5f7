// The device argmax (the engine's greedy token) against the host's
// decoder::argmax_lowest_scalar, on the card: every row's token equal.
// Vocabularies at slice edges and of the real models; ties planted across
// slices (the lowest index must win), NaN and +-inf sprinkled, rows of all
// -inf and all NaN (token 0), the maximum first, last and on slice edges.
//   argmax_exactness
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "greedy_choice.hpp"
#include "launch.hpp"

namespace {

int cases = 0, failed = 0;

// Rows of one vocabulary, each made by `fill` from its row number.
template <typename Fill>
void run_case(const std::string& name, int vocab, int rows, Fill fill) {
  std::vector<float> logits(static_cast<size_t>(vocab) * rows);
  for (int r = 0; r < rows; ++r) fill(r, logits.data() + static_cast<size_t>(r) * vocab);
  float* d_logits = nullptr;
  void* d_partials = nullptr;
  std::int32_t* d_tokens = nullptr;
  CHECK_CUDA(cudaMalloc(&d_logits, logits.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_partials, rows * algenta::cuda::kArgmaxPartialBytes));
  CHECK_CUDA(cudaMalloc(&d_tokens, rows * sizeof(std::int32_t)));
  CHECK_CUDA(cudaMemcpy(d_logits, logits.data(), logits.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(algenta::cuda::launch_greedy_argmax(d_logits, rows, vocab, d_partials, d_tokens, 0));
  std::vector<std::int32_t> tokens(rows);
  CHECK_CUDA(cudaMemcpy(tokens.data(), d_tokens, rows * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    const std::int32_t expected =
        algenta::decoder::argmax_lowest_scalar(logits.data() + static_cast<size_t>(r) * vocab, vocab);
    if (tokens[r] != expected) {
      if (bad == 0) std::printf("  row %d: device %d, host %d\n", r, tokens[r], expected);
      ++bad;
    }
  }
  ++cases;
  if (bad != 0) ++failed;
  std::printf("%-56s %s  %d/%d rows\n", name.c_str(), bad == 0 ? "PASS" : "FAIL", rows - bad, rows);
  CHECK_CUDA(cudaFree(d_logits));
  CHECK_CUDA(cudaFree(d_partials));
  CHECK_CUDA(cudaFree(d_tokens));
}

}  // namespace

int main() {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.f, 3.f);
  const float nan = std::nanf("");
  const float inf = INFINITY;
  for (int vocab : {1, 31, 32, 33, 1000, 4099, 128256, 151936, 152064, 262144}) {
    const int per_slice = (vocab + algenta::cuda::kArgmaxSlices - 1) / algenta::cuda::kArgmaxSlices;
    const std::string v = " vocab=" + std::to_string(vocab);
    run_case("random" + v, vocab, 64, [&](int, float* row) {
      for (int i = 0; i < vocab; ++i) row[i] = normal(rng);
    });
    run_case("ties across slices" + v, vocab, 16, [&](int r, float* row) {
      for (int i = 0; i < vocab; ++i) row[i] = normal(rng);
      // The same maximum at r + 1 places, the first at a slice edge or later.
      std::uniform_int_distribution<int> at(0, vocab - 1);
      const int first = std::min(vocab - 1, (r % 4) * per_slice);
      row[first] = 100.f;
      for (int k = 0; k < r; ++k) row[std::max(first, at(rng))] = 100.f;
    });
    run_case("NaN and -inf sprinkled, max last" + v, vocab, 8, [&](int r, float* row) {
      for (int i = 0; i < vocab; ++i) row[i] = (i + r) % 3 == 0 ? nan : (i % 5 == 0 ? -inf : normal(rng));
      row[vocab - 1] = 50.f;
    });
    run_case("+inf twice" + v, vocab, 4, [&](int r, float* row) {
      for (int i = 0; i < vocab; ++i) row[i] = normal(rng);
      row[(r * 7919) % vocab] = inf;
      row[vocab - 1 - (r * 104729) % vocab] = inf;
    });
    run_case("all -inf, all NaN" + v, vocab, 2, [&](int r, float* row) {
      for (int i = 0; i < vocab; ++i) row[i] = r == 0 ? -inf : nan;
    });
  }
  std::printf("argmax: %d cases, %d failed\n", cases, failed);
  return failed == 0 ? 0 : 1;
}
