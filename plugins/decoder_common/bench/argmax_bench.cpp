// The greedy choice's cost on one vocabulary-wide row, the vectorized scan
// beside the scalar one in the same run (both must give the same index):
//   algenta_argmax_bench [VOCAB] [CALLS]     (default 151936, 2000)
// Rows are seeded normal logits; each call nudges one entry so that no call
// can be skipped.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "greedy_choice.hpp"

namespace {

using Clock = std::chrono::steady_clock;

template <typename Scan>
double microseconds_per_call(std::vector<float>& row, int calls, Scan scan, long long& checksum) {
  const auto start = Clock::now();
  for (int c = 0; c < calls; ++c) {
    row[static_cast<std::size_t>(c) % row.size()] += 1e-3f;
    checksum += scan(row.data(), row.size());
  }
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count() / calls;
}

}  // namespace

int main(int argc, char** argv) {
  const long vocab = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 151936;
  const int calls = argc > 2 ? static_cast<int>(std::strtol(argv[2], nullptr, 10)) : 2000;
  if (vocab < 1 || calls < 1) {
    std::fprintf(stderr, "usage: algenta_argmax_bench [VOCAB >= 1] [CALLS >= 1]\n");
    return 2;
  }
  std::vector<float> row(static_cast<std::size_t>(vocab));
  std::mt19937 engine(1);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (float& v : row) v = normal(engine);
  std::vector<float> same = row;
  long long scalar_sum = 0, vector_sum = 0;
  const double scalar = microseconds_per_call(row, calls, algenta::decoder::argmax_lowest_scalar, scalar_sum);
  const double vectorized = microseconds_per_call(same, calls, algenta::decoder::argmax_lowest, vector_sum);
  std::printf("argmax over %ld logits, %d calls: scalar %.2f us, vectorized %.2f us (%.1fx), %s\n",
              vocab, calls, scalar, vectorized, scalar / vectorized,
              scalar_sum == vector_sum ? "same indices" : "INDICES DIFFER");
  return scalar_sum == vector_sum ? 0 : 1;
}
