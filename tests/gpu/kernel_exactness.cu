// Exactness and batch invariance of the CUDA engine's kernels, on the card.
//   kernel_exactness [SUMMARY_JSON]
// mma_gemm (the tensor-core GEMM of decode rows and logits), two kinds of
// check:
//  - exact: small-integer inputs, so every product and partial sum is an exact
//    fp32 integer and any summation order gives the same value; the result
//    must equal an integer reference bit for bit (ragged shapes).
//  - invariant: real random values, where the order does matter; row m
//    computed alone (M = 1) must be bit-identical to the same row inside
//    M = 8 and M = 64 batches, and the 16-byte and scalar load paths (same K,
//    unaligned copies of the same data) must agree bit for bit; and the
//    same at every decode GEMM shape of the three benchmarked configs.
// Prints one line per case; exits non-zero on any mismatch.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "decode_gemm_shapes.hpp"
#include "kernels/mma_gemm.cuh"
#include "target_policy.hpp"

using Element = TargetPolicy::Element;

namespace {

struct CaseResult {
  std::string name;
  bool passed;
  double worst_delta;
};

std::vector<CaseResult> g_results;

void report(const std::string& name, size_t mismatches, size_t count, double worst_delta) {
  const bool passed = mismatches == 0;
  g_results.push_back({name, passed, worst_delta});
  std::printf("%-52s %s  %zu/%zu bit-identical, worst delta %.3g\n", name.c_str(),
              passed ? "PASS" : "FAIL", count - mismatches, count, worst_delta);
}

bool same_bits(float a, float b) {
  uint32_t ua, ub;
  std::memcpy(&ua, &a, 4);
  std::memcpy(&ub, &b, 4);
  return ua == ub;
}

// Device buffer that frees itself.
template <typename T>
struct DeviceBuffer {
  T* ptr = nullptr;
  explicit DeviceBuffer(size_t count) { CHECK_CUDA(cudaMalloc(&ptr, (count + 16) * sizeof(T))); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

template <typename T>
void upload(T* dst, const std::vector<T>& src) {
  CHECK_CUDA(cudaMemcpy(dst, src.data(), src.size() * sizeof(T), cudaMemcpyHostToDevice));
}

// Runs mma_gemm (x fp32 [M, K], w Element [N, K]) and returns y [M, N].
std::vector<float> run_gemm(const float* x, const Element* w, int M, int N, int K) {
  DeviceBuffer<float> y(static_cast<size_t>(M) * N);
  // Poison the output so an unwritten element cannot pass.
  CHECK_CUDA(cudaMemset(y.ptr, 0xff, static_cast<size_t>(M) * N * sizeof(float)));
  const cudaError_t launched = algenta::cuda::launch_mma_gemm<Element>(x, w, y.ptr, M, N, K, /*lo_halves=*/true, 0);
  CHECK_CUDA(launched);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> out(static_cast<size_t>(M) * N);
  CHECK_CUDA(cudaMemcpy(out.data(), y.ptr, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return out;
}

constexpr int kMaxM = 64;
constexpr int kMaxN = 257;

// Small integers in [-4, 4]: |sum| <= 16 * 4099 < 2^24, exact in fp32, and
// the lo half of every x is exactly 0.
void exact_cases(std::mt19937& rng) {
  std::uniform_int_distribution<int> small(-4, 4);
  const int ks[] = {1, 7, 33, 1000, 1024, 4099};
  const int ns[] = {1, 3, 64, 257};
  const int ms[] = {1, 2, 3, 8, 17, 64};
  for (int K : ks) {
    // One x [64, K] and W [257, K] per K; smaller shapes use their leading rows.
    std::vector<int> xi(static_cast<size_t>(kMaxM) * K), wi(static_cast<size_t>(kMaxN) * K);
    for (int& v : xi) v = small(rng);
    for (int& v : wi) v = small(rng);
    std::vector<float> xf(xi.begin(), xi.end());
    std::vector<Element> we(wi.size());
    for (size_t i = 0; i < wi.size(); ++i) we[i] = static_cast<Element>(static_cast<float>(wi[i]));
    std::vector<int64_t> ref(static_cast<size_t>(kMaxM) * kMaxN);
    for (int m = 0; m < kMaxM; ++m)
      for (int n = 0; n < kMaxN; ++n) {
        int64_t s = 0;
        for (int k = 0; k < K; ++k)
          s += static_cast<int64_t>(xi[static_cast<size_t>(m) * K + k]) *
               wi[static_cast<size_t>(n) * K + k];
        ref[static_cast<size_t>(m) * kMaxN + n] = s;
      }

    DeviceBuffer<float> x(xf.size());
    DeviceBuffer<Element> w(we.size());
    upload(x.ptr, xf);
    upload(w.ptr, we);
    for (int N : ns)
      for (int M : ms) {
        const std::vector<float> y = run_gemm(x.ptr, w.ptr, M, N, K);
        size_t bad = 0;
        double worst = 0;
        for (int m = 0; m < M; ++m)
          for (int n = 0; n < N; ++n) {
            const int64_t r = ref[static_cast<size_t>(m) * kMaxN + n];
            const float got = y[static_cast<size_t>(m) * N + n];
            const double d = std::isnan(got) ? INFINITY : std::fabs(double(got) - double(r));
            if (!same_bits(got, static_cast<float>(r))) ++bad;
            if (d > worst) worst = d;
          }
        char name[96];
        std::snprintf(name, sizeof name, "mma_gemm exact K=%d N=%d M=%d", K, N, M);
        report(name, bad, static_cast<size_t>(M) * N, worst);
      }
  }
}

// Compares rows [0, rows) of a [*, N] result with the same rows of another.
void compare_rows(const std::string& name, const std::vector<float>& a, const std::vector<float>& b,
                  int rows, int N) {
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < static_cast<size_t>(rows) * N; ++i) {
    if (!same_bits(a[i], b[i])) ++bad;
    const double d = std::fabs(double(a[i]) - double(b[i]));
    if (!(d <= worst)) worst = d;  // NaN counts as worst
  }
  report(name, bad, static_cast<size_t>(rows) * N, worst);
}

// Against a double reference (order-dependent, so not exact): x enters as
// hi + lo Element halves (~2^-16 relative) and the tensor cores sum in their
// own way, hence a looser bound than plain fp32 FMAs. Columns 0, step, 2 step
// ... of rows [0, rows).
void report_accuracy(const std::string& name, const std::vector<float>& xf,
                     const std::vector<Element>& we, const std::vector<float>& y, int rows, int N,
                     int K, int step) {
  double worst_rel = 0;
  for (int m = 0; m < rows; ++m)
    for (int n = 0; n < N; n += step) {
      double s = 0, mag = 0;
      for (int k = 0; k < K; ++k) {
        const double p = double(xf[static_cast<size_t>(m) * K + k]) *
                         double(static_cast<float>(we[static_cast<size_t>(n) * K + k]));
        s += p;
        mag += std::fabs(p);
      }
      const double rel = std::fabs(y[static_cast<size_t>(m) * N + n] - s) / (mag + 1e-30);
      if (!(rel <= worst_rel)) worst_rel = rel;
    }
  const double bound = 1e-5;  // measured on the H200: 2.2e-6 at K = 4096
  const bool close = worst_rel < bound;
  g_results.push_back({name, close, 0.0});
  std::printf("%-52s %s  worst error %.3g of sum|x*w| (bound %.0e)\n", name.c_str(),
              close ? "PASS" : "FAIL", worst_rel, bound);
}

// Real random values (fp32 x that bf16 cannot hold), where the summation
// order changes the last bits.
void invariance_cases(std::mt19937& rng) {
  std::normal_distribution<float> normal(0.f, 1.f);
  const int N = kMaxN;
  for (int K : {4096, 4099, 1000}) {
    std::vector<float> xf(static_cast<size_t>(kMaxM) * K);
    std::vector<Element> we(static_cast<size_t>(N) * K);
    for (float& v : xf) v = normal(rng);
    for (Element& v : we) v = static_cast<Element>(0.05f * normal(rng));
    DeviceBuffer<float> x(xf.size());
    DeviceBuffer<Element> w(we.size());
    upload(x.ptr, xf);
    upload(w.ptr, we);

    const std::vector<float> y64 = run_gemm(x.ptr, w.ptr, 64, N, K);
    const std::vector<float> y8 = run_gemm(x.ptr, w.ptr, 8, N, K);
    // Every row alone, as a single request would compute it.
    std::vector<float> alone(static_cast<size_t>(kMaxM) * N);
    for (int m = 0; m < kMaxM; ++m) {
      const std::vector<float> y1 = run_gemm(x.ptr + static_cast<size_t>(m) * K, w.ptr, 1, N, K);
      std::copy(y1.begin(), y1.end(), alone.begin() + static_cast<size_t>(m) * N);
    }
    char name[96];
    std::snprintf(name, sizeof name, "mma_gemm invariant K=%d row 0: M=1 vs M=8", K);
    compare_rows(name, alone, y8, 1, N);
    std::snprintf(name, sizeof name, "mma_gemm invariant K=%d row 0: M=1 vs M=64", K);
    compare_rows(name, alone, y64, 1, N);
    std::snprintf(name, sizeof name, "mma_gemm invariant K=%d rows 0-7: M=8 vs M=64", K);
    compare_rows(name, y8, y64, 8, N);
    std::snprintf(name, sizeof name, "mma_gemm invariant K=%d rows 0-63: alone vs M=64", K);
    compare_rows(name, alone, y64, kMaxM, N);

    // Same data at addresses off the 16-byte grid: forces the scalar loads.
    if (K % 8 == 0) {
      DeviceBuffer<float> xs(xf.size() + 1);
      DeviceBuffer<Element> ws(we.size() + 1);
      upload(xs.ptr + 1, xf);
      upload(ws.ptr + 1, we);
      const std::vector<float> ys = run_gemm(xs.ptr + 1, ws.ptr + 1, 64, N, K);
      std::snprintf(name, sizeof name, "mma_gemm invariant K=%d M=64: 16-byte vs scalar loads", K);
      compare_rows(name, y64, ys, kMaxM, N);
    }

    std::snprintf(name, sizeof name, "mma_gemm accuracy K=%d M=64 vs double", K);
    report_accuracy(name, xf, we, y64, kMaxM, N, K, 1);
  }
}

// Every decode GEMM shape of the three benchmarked configs
// (tests/fixtures/configs: Qwen3-0.6B, Llama-3.2-1B, Qwen2.5-7B-Instruct),
// with the engine's fused q/k/v and gate/up weights and the lm_head: a row
// alone equals the same row among 8 and among 64 (the decode buckets'
// ends), and 8 rows are within the accuracy bound of a double reference on
// 97 columns spread over N.
void model_shape_cases(std::mt19937& rng) {
  std::normal_distribution<float> normal(0.f, 1.f);
  for (const GemmShape& shape : kDecodeGemmShapes) {
    const int N = shape.N, K = shape.K;
    std::vector<float> xf(static_cast<size_t>(kMaxM) * K);
    for (float& v : xf) v = normal(rng);
    // Up to 545 M weights: a cheap generator (uniform in [-0.1, 0.1)).
    std::vector<Element> we(static_cast<size_t>(N) * K);
    uint64_t state = rng();
    for (Element& v : we) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      v = static_cast<Element>(0.1f * (static_cast<float>(state >> 40) / 8388608.0f - 1.0f));
    }
    DeviceBuffer<float> x(xf.size());
    DeviceBuffer<Element> w(we.size());
    upload(x.ptr, xf);
    upload(w.ptr, we);
    const std::vector<float> y1 = run_gemm(x.ptr, w.ptr, 1, N, K);
    const std::vector<float> y8 = run_gemm(x.ptr, w.ptr, 8, N, K);
    const std::vector<float> y64 = run_gemm(x.ptr, w.ptr, kMaxM, N, K);
    char name[96];
    std::snprintf(name, sizeof name, "mma_gemm %s %s N=%d K=%d: M=1 vs M=8", shape.config,
                  shape.weight, N, K);
    compare_rows(name, y1, y8, 1, N);
    std::snprintf(name, sizeof name, "mma_gemm %s %s N=%d K=%d: M=8 vs M=64", shape.config,
                  shape.weight, N, K);
    compare_rows(name, y8, y64, 8, N);
    std::snprintf(name, sizeof name, "mma_gemm %s %s accuracy M=8 vs double", shape.config,
                  shape.weight);
    report_accuracy(name, xf, we, y8, 8, N, K, N / 97 + 1);
  }
}

void write_summary(const char* path, double worst, size_t failed) {
  FILE* f = std::fopen(path, "w");
  if (f == nullptr) {
    std::perror(path);
    return;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::fprintf(f, "{\n  \"kernel\": \"mma_gemm_kernel\",\n  \"target\": \"%s\",\n",
               TargetPolicy::kTarget);
  std::fprintf(f, "  \"device\": \"%s\",\n  \"element\": \"%s\",\n", prop.name,
               TargetPolicy::kComputeDtype);
  std::fprintf(f, "  \"cases\": %zu,\n  \"failed\": %zu,\n  \"worst_delta\": %.9g,\n",
               g_results.size(), failed, std::isfinite(worst) ? worst : 1e308);
  std::fprintf(f, "  \"passed\": %s,\n  \"results\": [\n", failed == 0 ? "true" : "false");
  for (size_t i = 0; i < g_results.size(); ++i)
    std::fprintf(f, "    {\"name\": \"%s\", \"passed\": %s, \"worst_delta\": %.9g}%s\n",
                 g_results[i].name.c_str(), g_results[i].passed ? "true" : "false",
                 std::isfinite(g_results[i].worst_delta) ? g_results[i].worst_delta : 1e308,
                 i + 1 < g_results.size() ? "," : "");
  std::fprintf(f, "  ]\n}\n");
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  std::mt19937 rng(20240611);
  exact_cases(rng);
  invariance_cases(rng);
  model_shape_cases(rng);

  size_t failed = 0;
  double worst = 0;
  for (const CaseResult& r : g_results) {
    failed += r.passed ? 0 : 1;
    if (!(r.worst_delta <= worst)) worst = r.worst_delta;
  }
  std::printf("mma_gemm: %zu cases, %zu failed, worst delta %.3g\n", g_results.size(), failed,
              worst);
  if (argc > 1) write_summary(argv[1], worst, failed);
  return failed == 0 ? 0 : 1;
}
