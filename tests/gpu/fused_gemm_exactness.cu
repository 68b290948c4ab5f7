// The decode GEMMs with their neighbours fused, on the card: each must give
// the bits of the kernels it replaces, run one after another.
//   fused_gemm_exactness
//  - normed:   rmsnorm kernel, then the GEMM  ==  the GEMM with the norm inside
//  - gate_up:  (rmsnorm kernel,) the GEMM, swiglu kernel  ==  the gate_up GEMM
//              with SwiGLU in its epilogue (and the norm inside)
//  - residual: the GEMM, then the residual add (+ bias)  ==  the GEMM adding
//  - prefill halves: the norm (with its residual add) or SwiGLU kernel, then
//              split_hi_lo  ==  the kernel writing the hi / lo halves itself
// At the Qwen3-0.6B, Llama-3.2-1B and Qwen2.5-7B decode shapes, for 1 to the
// largest decode bucket's rows, both policies, plus a ragged K (scalar
// loads). Prints one line per case; exits non-zero on any mismatch.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "kernels/launch.hpp"

using algenta::cuda::Element;
namespace kernels = algenta::cuda;

namespace {

int g_failed = 0;
int g_cases = 0;

template <typename T>
struct DeviceBuffer {
  T* ptr = nullptr;
  explicit DeviceBuffer(size_t count) { CHECK_CUDA(cudaMalloc(&ptr, (count + 16) * sizeof(T))); }
  DeviceBuffer(const std::vector<T>& values) : DeviceBuffer(values.size()) {
    CHECK_CUDA(cudaMemcpy(ptr, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  std::vector<T> read(size_t count) const {
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<T> out(count);
    CHECK_CUDA(cudaMemcpy(out.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost));
    return out;
  }
};

std::vector<float> normals(std::mt19937& rng, size_t count, float scale) {
  std::normal_distribution<float> normal(0.f, scale);
  std::vector<float> v(count);
  for (float& x : v) x = normal(rng);
  return v;
}

std::vector<Element> weights(std::mt19937& rng, size_t count) {
  uint64_t state = rng();
  std::vector<Element> w(count);
  for (Element& v : w) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<Element>(0.1f * (static_cast<float>(state >> 40) / 8388608.0f - 1.0f));
  }
  return w;
}

void compare(const std::string& name, const std::vector<float>& unfused,
             const std::vector<float>& fused) {
  size_t bad = 0;
  for (size_t i = 0; i < unfused.size(); ++i)
    if (std::memcmp(&unfused[i], &fused[i], sizeof(float)) != 0) ++bad;
  ++g_cases;
  if (bad != 0) ++g_failed;
  std::printf("%-64s %s  %zu/%zu bit-identical\n", name.c_str(), bad == 0 ? "PASS" : "FAIL",
              unfused.size() - bad, unfused.size());
}

constexpr float kEps = 1e-6f;

// y = norm(x) w^T, M <= kMaxFusedNormRows.
void normed_case(std::mt19937& rng, const char* label, const DeviceBuffer<Element>& w, int M, int N,
                 int K, bool lo) {
  const DeviceBuffer<float> x(normals(rng, size_t(M) * K, 3.f));
  const DeviceBuffer<float> norm_weight(normals(rng, K, 1.f));
  DeviceBuffer<float> normed(size_t(M) * K), y_unfused(size_t(M) * N), y_fused(size_t(M) * N);
  CHECK_CUDA(kernels::launch_rmsnorm_residual(x.ptr, nullptr, nullptr, norm_weight.ptr, nullptr, M,
                                              K, kEps, normed.ptr, 0));
  CHECK_CUDA(kernels::launch_mma_gemm_f32(normed.ptr, w.ptr, y_unfused.ptr, M, N, K, lo, 0));
  CHECK_CUDA(kernels::launch_mma_gemm_normed({x.ptr, norm_weight.ptr, kEps}, w.ptr, y_fused.ptr, M,
                                             N, K, lo, 0));
  compare(std::string("normed ") + label + " M=" + std::to_string(M) + (lo ? " exact" : " bf16"),
          y_unfused.read(size_t(M) * N), y_fused.read(size_t(M) * N));
}

// activation = SwiGLU of (norm(x) or x) w^T, w [2 units, K].
void gate_up_case(std::mt19937& rng, const char* label, const DeviceBuffer<Element>& w, int M,
                  int units, int K, bool lo, bool normed_input) {
  const DeviceBuffer<float> x(normals(rng, size_t(M) * K, 3.f));
  const DeviceBuffer<float> norm_weight(normals(rng, K, 1.f));
  DeviceBuffer<float> normed(size_t(M) * K), gate_up(size_t(M) * 2 * units);
  DeviceBuffer<float> unfused(size_t(M) * units), fused(size_t(M) * units);
  const float* gemm_input = x.ptr;
  if (normed_input) {
    CHECK_CUDA(kernels::launch_rmsnorm_residual(x.ptr, nullptr, nullptr, norm_weight.ptr, nullptr,
                                                M, K, kEps, normed.ptr, 0));
    gemm_input = normed.ptr;
  }
  CHECK_CUDA(kernels::launch_mma_gemm_f32(gemm_input, w.ptr, gate_up.ptr, M, 2 * units, K, lo, 0));
  CHECK_CUDA(kernels::launch_swiglu(gate_up.ptr, M, units, unfused.ptr, 0));
  const kernels::DecodeGemmInput in{x.ptr, normed_input ? norm_weight.ptr : nullptr, kEps};
  CHECK_CUDA(kernels::launch_mma_gemm_gate_up_swiglu(in, w.ptr, fused.ptr, M, units, K, lo, 0));
  compare(std::string(normed_input ? "normed gate_up+SwiGLU " : "gate_up+SwiGLU ") + label +
              " M=" + std::to_string(M) + (lo ? " exact" : " bf16"),
          unfused.read(size_t(M) * units), fused.read(size_t(M) * units));
}

// x += input w^T (+ bias).
void residual_case(std::mt19937& rng, const char* label, const DeviceBuffer<Element>& w, int M,
                   int N, int K, bool lo, bool with_bias) {
  const std::vector<float> x0 = normals(rng, size_t(M) * N, 2.f);
  const DeviceBuffer<float> input(normals(rng, size_t(M) * K, 1.f));
  const DeviceBuffer<float> bias(normals(rng, N, 0.5f));
  DeviceBuffer<float> x_unfused(x0), x_fused(x0);
  DeviceBuffer<float> delta(size_t(M) * N), normed(size_t(M) * N);
  const DeviceBuffer<float> ones(std::vector<float>(N, 1.f));
  const float* b = with_bias ? bias.ptr : nullptr;
  CHECK_CUDA(kernels::launch_mma_gemm_f32(input.ptr, w.ptr, delta.ptr, M, N, K, lo, 0));
  // The unfused step's residual add is the norm kernel's first half.
  CHECK_CUDA(kernels::launch_rmsnorm_residual(x_unfused.ptr, delta.ptr, b, ones.ptr, nullptr, M, N,
                                              kEps, normed.ptr, 0));
  CHECK_CUDA(kernels::launch_mma_gemm_residual(input.ptr, w.ptr, b, x_fused.ptr, M, N, K, lo, 0));
  compare(std::string(with_bias ? "residual+bias " : "residual ") + label +
              " M=" + std::to_string(M) + (lo ? " exact" : " bf16"),
          x_unfused.read(size_t(M) * N), x_fused.read(size_t(M) * N));
}

std::vector<float> widened(const std::vector<Element>& halves) {
  std::vector<float> out(halves.size());
  for (size_t i = 0; i < halves.size(); ++i) out[i] = static_cast<float>(halves[i]);
  return out;
}

// A prefill GEMM's input halves: the norm (x += delta + bias first) or
// SwiGLU, then split_hi_lo, against the kernel writing them itself; and
// with the GEMM output given as two parts (hi and lo products apart), the
// kernel adding them against the kernel given their sum.
void prefill_halves_case(std::mt19937& rng, const char* label, int M, int K, int units, bool lo) {
  const std::string suffix = std::string(label) + " M=" + std::to_string(M) + (lo ? " exact" : " bf16");
  const size_t n = size_t(M) * K;
  const std::vector<float> x0 = normals(rng, n, 2.f);
  const std::vector<float> delta_hi = normals(rng, n, 1.f), delta_lo = normals(rng, n, 1e-3f);
  std::vector<float> delta_sum(n);
  for (size_t i = 0; i < n; ++i) delta_sum[i] = delta_hi[i] + delta_lo[i];  // fp32, round to nearest
  const DeviceBuffer<float> delta(delta_sum), delta_hi_part(delta_hi), delta_lo_part(delta_lo);
  const DeviceBuffer<float> bias(normals(rng, K, 0.5f));
  const DeviceBuffer<float> norm_weight(normals(rng, K, 1.f));
  DeviceBuffer<float> x_unfused(x0), x_fused(x0), x_parts(x0), normed(n);
  const size_t widest = size_t(M) * std::max(K, units);
  DeviceBuffer<Element> hi_unfused(widest), lo_unfused(widest), hi_fused(widest), lo_fused(widest);
  Element* lo_a = lo ? lo_unfused.ptr : nullptr;
  Element* lo_b = lo ? lo_fused.ptr : nullptr;
  auto same_halves = [&](const std::string& what, size_t count) {
    compare(what + ", hi " + suffix, widened(hi_unfused.read(count)), widened(hi_fused.read(count)));
    if (lo) compare(what + ", lo " + suffix, widened(lo_unfused.read(count)), widened(lo_fused.read(count)));
  };
  CHECK_CUDA(kernels::launch_rmsnorm_residual(x_unfused.ptr, delta.ptr, bias.ptr, norm_weight.ptr,
                                              nullptr, M, K, kEps, normed.ptr, 0));
  CHECK_CUDA(kernels::launch_split_hi_lo(normed.ptr, int64_t(n), hi_unfused.ptr, lo_a, 0));
  CHECK_CUDA(kernels::launch_rmsnorm_residual_hi_lo(x_fused.ptr, delta.ptr, nullptr, bias.ptr,
                                                    norm_weight.ptr, M, K, kEps, hi_fused.ptr,
                                                    lo_b, 0));
  same_halves("norm to halves", n);
  compare("norm to halves, residual " + suffix, x_unfused.read(n), x_fused.read(n));
  CHECK_CUDA(kernels::launch_rmsnorm_residual_hi_lo(x_parts.ptr, delta_hi_part.ptr,
                                                    delta_lo_part.ptr, bias.ptr, norm_weight.ptr, M,
                                                    K, kEps, hi_fused.ptr, lo_b, 0));
  same_halves("norm of delta in parts", n);
  compare("norm of delta in parts, residual " + suffix, x_unfused.read(n), x_parts.read(n));

  const size_t m = size_t(M) * units;
  const std::vector<float> gate_up_hi = normals(rng, 2 * m, 2.f), gate_up_lo = normals(rng, 2 * m, 1e-3f);
  std::vector<float> gate_up_sum(2 * m);
  for (size_t i = 0; i < 2 * m; ++i) gate_up_sum[i] = gate_up_hi[i] + gate_up_lo[i];
  const DeviceBuffer<float> gate_up(gate_up_sum), gate_up_hi_part(gate_up_hi), gate_up_lo_part(gate_up_lo);
  DeviceBuffer<float> activation(m);
  CHECK_CUDA(kernels::launch_swiglu(gate_up.ptr, M, units, activation.ptr, 0));
  CHECK_CUDA(kernels::launch_split_hi_lo(activation.ptr, int64_t(m), hi_unfused.ptr, lo_a, 0));
  CHECK_CUDA(kernels::launch_swiglu_hi_lo(gate_up.ptr, nullptr, M, units, hi_fused.ptr, lo_b, 0));
  same_halves("SwiGLU to halves", m);
  CHECK_CUDA(kernels::launch_swiglu_hi_lo(gate_up_hi_part.ptr, gate_up_lo_part.ptr, M, units,
                                          hi_fused.ptr, lo_b, 0));
  same_halves("SwiGLU of gate_up in parts", m);
}

struct DecodeShape {
  const char* config;
  int hidden, qkv, q_dim, intermediate;
};

}  // namespace

int main() {
  std::mt19937 rng(20261205);
  const DecodeShape shapes[] = {
      {"Qwen3-0.6B", 1024, (16 + 2 * 8) * 128, 16 * 128, 3072},
      {"Llama-3.2-1B", 2048, (32 + 2 * 8) * 64, 32 * 64, 8192},
      {"Qwen2.5-7B", 3584, (28 + 2 * 4) * 128, 28 * 128, 18944},
      {"ragged K", 1001, 72, 1001, 1001},
  };
  for (const DecodeShape& s : shapes) {
    // Each weight once per shape (the 7B gate_up is 136 M values).
    const DeviceBuffer<Element> qkv(weights(rng, size_t(s.qkv) * s.hidden));
    const DeviceBuffer<Element> gate_up(weights(rng, size_t(2) * s.intermediate * s.hidden));
    const DeviceBuffer<Element> o(weights(rng, size_t(s.hidden) * s.q_dim));
    const DeviceBuffer<Element> down(weights(rng, size_t(s.hidden) * s.intermediate));
    const std::string config = s.config;
    for (bool lo : {true, false}) {
      for (int M : {1, 3, 8, 16}) {
        normed_case(rng, (config + " qkv").c_str(), qkv, M, s.qkv, s.hidden, lo);
        gate_up_case(rng, (config + " gate_up").c_str(), gate_up, M, s.intermediate, s.hidden, lo,
                     true);
      }
      for (int M : {1, 8, 17, 64}) {
        gate_up_case(rng, (config + " gate_up").c_str(), gate_up, M, s.intermediate, s.hidden, lo,
                     false);
        residual_case(rng, (config + " o_proj").c_str(), o, M, s.hidden, s.q_dim, lo, true);
        residual_case(rng, (config + " down_proj").c_str(), down, M, s.hidden, s.intermediate, lo,
                      false);
      }
      for (int M : {1, 77, 256}) prefill_halves_case(rng, s.config, M, s.hidden, s.intermediate, lo);
    }
  }
  std::printf("fused_gemm: %d cases, %d failed\n", g_cases, g_failed);
  return g_failed == 0 ? 0 : 1;
}
