// Exactness of the attention kernels (prefill and split-K decode) over the
// paged cache, on the card, against a CPU reference, bit for bit:
//  - uniform: q = 0, so every score is 0 and every weight exp(0) = 1; the
//    output is the exact integer sum of V over keys 0..p times 1/(p + 1),
//    the same two fp32 operations on both sides;
//  - peaked: one key per row scores 2^13 above the others, whose weights
//    underflow to exactly 0; the output is that key's V exactly.
// Ragged lengths (1, 31, 32, 33, 100, 600, 1100: block and slice edges),
// scrambled block tables, GQA (8 query heads over 2 kv heads), head_dim 16
// and 128. A wrong mask, block lookup, slot, head mapping or slice merge
// changes the bits. Then prefill rows with random inputs: the same bits
// computed together, one at a time and interleaved with another sequence.
// Prefill attention writing the o GEMM's input halves against split_hi_lo
// (head_dim 96: the tiled kernel and the split after it). Then decode with
// qkv_rope_cache's work inside against the two kernels.
//   attention_exactness [SUMMARY_JSON]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "launch.hpp"

namespace {

using namespace algenta::cuda;

template <typename T>
T* device_copy(const std::vector<T>& host) {
  T* ptr = nullptr;
  CHECK_CUDA(cudaMalloc(&ptr, std::max<size_t>(host.size(), 1) * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return ptr;
}

template <typename T>
std::vector<T> host_copy(const T* ptr, size_t count) {
  std::vector<T> host(count);
  CHECK_CUDA(cudaMemcpy(host.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

int cases = 0, failed = 0;

void report(const std::string& name, size_t bad, size_t count) {
  ++cases;
  if (bad != 0) ++failed;
  std::printf("%-60s %s  %zu/%zu bit-identical\n", name.c_str(), bad == 0 ? "PASS" : "FAIL",
              count - bad, count);
}

void run_case(int length, int head_dim, bool peaked, std::mt19937& rng) {
  const HeadShape shape{8, 2, head_dim};
  const int max_blocks = (length + kKvBlockTokens - 1) / kKvBlockTokens;
  const int pool_blocks = max_blocks + 5;
  const size_t block_floats = size_t(shape.kv_heads) * kKvBlockTokens * head_dim;
  std::vector<int32_t> table(pool_blocks);
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), rng);
  table.resize(max_blocks);

  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<float> keys(pool_blocks * block_floats, 0.f), values(pool_blocks * block_floats, 0.f);
  auto at = [&](std::vector<float>& pool, int kv_head, int position) {
    const int block = table[position / kKvBlockTokens];
    return pool.data() +
           ((size_t(block) * shape.kv_heads + kv_head) * kKvBlockTokens + position % kKvBlockTokens) *
               head_dim;
  };
  for (int p = 0; p < length; ++p)
    for (int h = 0; h < shape.kv_heads; ++h)
      for (int d = 0; d < head_dim; ++d) at(values, h, p)[d] = float(small(rng));

  // Rows: a spread of positions of one sequence (slot 0).
  std::vector<RowMeta> rows;
  for (int p : {0, 1, length / 3, length / 2, length - 2, length - 1})
    if (p >= 0 && p < length) rows.push_back({0, p, 0, 0});
  const int n = int(rows.size());
  const int qkv_stride = (shape.heads + 2 * shape.kv_heads) * head_dim;
  std::vector<float> qkv(size_t(n) * qkv_stride, 0.f);
  // peaked: row r's head h looks for key target(r, h) <= position
  std::vector<int> target(size_t(n) * shape.heads);
  if (peaked) {
    for (int r = 0; r < n; ++r)
      for (int h = 0; h < shape.heads; ++h) {
        const int t = std::uniform_int_distribution<int>(0, rows[r].position)(rng);
        target[r * shape.heads + h] = t;
        // q has a 1 at dimension (h % head_dim), scaled; only the target key
        // of that kv head carries the matching component.
        qkv[size_t(r) * qkv_stride + h * head_dim + (h % head_dim)] = 1.0f;
      }
  }
  // Keys: distinct per (position, kv head) component so each target is unique.
  // score(target) = 2^13 * sqrt(head_dim) * scale = 2^13; all others 0.
  const float scale = 1.0f / std::sqrt(float(head_dim));
  if (peaked) {
    for (int r = 0; r < n; ++r)
      for (int h = 0; h < shape.heads; ++h) {
        const int kv_head = h / (shape.heads / shape.kv_heads);
        at(keys, kv_head, target[r * shape.heads + h])[h % head_dim] = 8192.0f * std::sqrt(float(head_dim));
      }
  }

  // CPU reference
  std::vector<float> expect(size_t(n) * shape.heads * head_dim);
  for (int r = 0; r < n; ++r)
    for (int h = 0; h < shape.heads; ++h) {
      const int kv_head = h / (shape.heads / shape.kv_heads);
      const int p = rows[r].position;
      for (int d = 0; d < head_dim; ++d) {
        float out;
        if (peaked) {
          // Several heads of one row may share a key component; the key
          // with the largest score wins, ties split exactly.
          std::vector<int> winners;
          float best = -1;
          for (int t = 0; t <= p; ++t) {
            float s = 0;
            for (int e = 0; e < head_dim; ++e)
              s += qkv[size_t(r) * qkv_stride + h * head_dim + e] * at(keys, kv_head, t)[e];
            if (s > best) { best = s; winners = {t}; }
            else if (s == best) winners.push_back(t);
          }
          double sum = 0;
          for (int t : winners) sum += at(values, kv_head, t)[d];
          out = float(sum) * (1.0f / float(winners.size()));
        } else {
          int64_t sum = 0;
          for (int t = 0; t <= p; ++t) sum += int64_t(at(values, kv_head, t)[d]);
          out = float(sum) * (1.0f / float(p + 1));
        }
        expect[(size_t(r) * shape.heads + h) * head_dim + d] = out;
      }
    }

  float* d_keys = device_copy(keys);
  float* d_values = device_copy(values);
  int32_t* d_table = device_copy(table);
  RowMeta* d_rows = device_copy(rows);
  float* d_qkv = device_copy(qkv);
  const PagedKv kv{d_keys, d_values, d_table, max_blocks, shape.kv_heads, head_dim};
  const int max_splits = (max_blocks + kDecodeSplitBlocks - 1) / kDecodeSplitBlocks;
  float* d_out = nullptr;
  float* d_partials = nullptr;
  CHECK_CUDA(cudaMalloc(&d_out, expect.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_partials, size_t(n) * shape.heads * max_splits * (head_dim + 2) * 4));
  unsigned int* d_tickets = nullptr;  // 0 before a decode launch, and left 0 by it
  CHECK_CUDA(cudaMalloc(&d_tickets, size_t(n) * shape.heads * sizeof(unsigned int)));
  CHECK_CUDA(cudaMemset(d_tickets, 0, size_t(n) * shape.heads * sizeof(unsigned int)));

  // Decode at the grid the engine uses for these rows (the longest row's
  // slices) and at the context's maximum: the same bits. Each decode launch
  // finds the tickets the one before left behind.
  int longest = 0;
  for (const RowMeta& row : rows) longest = std::max(longest, row.position);
  const int live_splits = decode_slices_for(longest);
  char name[160];
  // 0: prefill (exact policy), -1: prefill with the bf16 policy's hi halves
  // alone (these inputs are bf16 values: the same bits).
  for (int splits : {0, -1, live_splits, max_splits}) {
    const bool decode = splits > 0;
    CHECK_CUDA(cudaMemset(d_out, 0xff, expect.size() * sizeof(float)));
    if (decode) {
      CHECK_CUDA(launch_attention_decode(d_qkv, qkv_stride, d_rows, n, shape, kv, nullptr, scale,
                                         splits, d_partials, d_tickets, d_out, 0));
    } else {
      CHECK_CUDA(launch_attention_prefill(d_qkv, qkv_stride, d_rows, n, shape, kv, scale,
                                          /*lo_halves=*/splits == 0, d_out, 0));
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    const std::vector<float> got = host_copy(d_out, expect.size());
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) bad += same_bits(got[i], expect[i]) ? 0 : 1;
    if (decode) {
      std::snprintf(name, sizeof name, "attention decode  %s L=%d head_dim=%d splits=%d",
                    peaked ? "peaked " : "uniform", length, head_dim, splits);
    } else {
      std::snprintf(name, sizeof name, "attention prefill %s L=%d head_dim=%d%s",
                    peaked ? "peaked " : "uniform", length, head_dim,
                    splits == 0 ? "" : " bf16 policy");
    }
    report(name, bad, got.size());
  }
  const std::vector<unsigned int> tickets = host_copy(d_tickets, size_t(n) * shape.heads);
  const size_t left = size_t(std::count_if(tickets.begin(), tickets.end(),
                                           [](unsigned int t) { return t != 0; }));
  std::snprintf(name, sizeof name, "attention decode tickets left at 0, L=%d head_dim=%d",
                length, head_dim);
  report(name, left, tickets.size());
  cudaFree(d_keys);
  cudaFree(d_values);
  cudaFree(d_table);
  cudaFree(d_rows);
  cudaFree(d_qkv);
  cudaFree(d_out);
  cudaFree(d_partials);
  cudaFree(d_tickets);
}

// Prefill attention writing the o projection's input halves itself against
// the fp32 values split by split_hi_lo, bit for bit, in either policy.
void check_prefill_halves(const std::vector<RowMeta>& rows, const std::vector<float>& qkv,
                          const HeadShape& shape, const PagedKv& kv, bool lo_halves) {
  const int n = int(rows.size());
  const int qkv_stride = (shape.heads + 2 * shape.kv_heads) * shape.head_dim;
  const size_t count = size_t(n) * shape.heads * shape.head_dim;
  const float scale = 1.0f / std::sqrt(float(shape.head_dim));
  RowMeta* d_rows = device_copy(rows);
  float* d_qkv = device_copy(qkv);
  float *d_out = nullptr, *d_scratch = nullptr;
  Element* d_halves = nullptr;  // [split hi, split lo, fused hi, fused lo]
  CHECK_CUDA(cudaMalloc(&d_out, count * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_scratch, count * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_halves, 4 * count * sizeof(Element)));
  CHECK_CUDA(cudaMemset(d_halves, 0xff, 4 * count * sizeof(Element)));
  Element* split_lo = lo_halves ? d_halves + count : nullptr;
  Element* fused_lo = lo_halves ? d_halves + 3 * count : nullptr;
  CHECK_CUDA(launch_attention_prefill(d_qkv, qkv_stride, d_rows, n, shape, kv, scale, lo_halves,
                                      d_out, 0));
  CHECK_CUDA(launch_split_hi_lo(d_out, int64_t(count), d_halves, split_lo, 0));
  CHECK_CUDA(launch_attention_prefill_hi_lo(d_qkv, qkv_stride, d_rows, n, shape, kv, scale,
                                            lo_halves, d_scratch, d_halves + 2 * count, fused_lo,
                                            0));
  CHECK_CUDA(cudaDeviceSynchronize());
  const std::vector<Element> got = host_copy(d_halves, 4 * count);
  const size_t compared = lo_halves ? 2 * count : count;  // the bf16 policy writes no lo
  size_t bad = 0;
  for (size_t i = 0; i < compared; ++i)
    bad += std::memcmp(&got[i], &got[2 * count + i], sizeof(Element)) == 0 ? 0 : 1;
  char name[160];
  std::snprintf(name, sizeof name, "attention prefill writing its halves = split, head_dim=%d%s",
                shape.head_dim, lo_halves ? "" : " bf16 policy");
  report(name, bad, compared);
  cudaFree(d_rows);
  cudaFree(d_qkv);
  cudaFree(d_out);
  cudaFree(d_scratch);
  cudaFree(d_halves);
}

// Prefill rows computed together, each alone, and among another sequence's
// rows give the same bits: with random fp32 inputs a row's result must not
// depend on which rows share its tile (tensor-core tiles, masked keys).
void run_batch_invariance(int head_dim, std::mt19937& rng) {
  const HeadShape shape{8, 2, head_dim};
  const int length = 300;
  const int max_blocks = (length + kKvBlockTokens - 1) / kKvBlockTokens;
  const int pool_blocks = 2 * max_blocks;
  const size_t pool_floats = size_t(pool_blocks) * shape.kv_heads * kKvBlockTokens * head_dim;
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> keys(pool_floats), values(pool_floats);
  for (float& x : keys) x = normal(rng);
  for (float& x : values) x = normal(rng);
  std::vector<int32_t> table(pool_blocks);  // slot 0: blocks 0.., slot 1: the rest, shuffled
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), rng);
  const int qkv_stride = (shape.heads + 2 * shape.kv_heads) * head_dim;
  // 100 rows of slot 0 (positions 200..299) and 70 rows of slot 1 (0..69).
  std::vector<RowMeta> own, mixed;
  for (int p = 200; p < length; ++p) own.push_back({0, p, 0, 200});
  for (size_t i = 0; i < own.size(); ++i) {
    mixed.push_back(own[i]);
    if (i < 70) mixed.push_back({0, int(i), 1, 0});
  }
  std::vector<float> qkv_own(own.size() * qkv_stride), qkv_mixed(mixed.size() * qkv_stride);
  for (float& x : qkv_own) x = normal(rng);
  for (size_t i = 0, r = 0; r < mixed.size(); ++r) {
    float* row = qkv_mixed.data() + r * qkv_stride;
    if (mixed[r].slot == 0) {
      std::copy_n(qkv_own.data() + i * qkv_stride, qkv_stride, row);
      ++i;
    } else {
      for (int k = 0; k < qkv_stride; ++k) row[k] = normal(rng);
    }
  }
  float* d_keys = device_copy(keys);
  float* d_values = device_copy(values);
  int32_t* d_table = device_copy(table);
  const PagedKv kv{d_keys, d_values, d_table, max_blocks, shape.kv_heads, head_dim};
  const float scale = 1.0f / std::sqrt(float(head_dim));
  const size_t row_out = size_t(shape.heads) * head_dim;
  auto run = [&](const std::vector<RowMeta>& rows, const std::vector<float>& qkv) {
    RowMeta* d_rows = device_copy(rows);
    float* d_qkv = device_copy(qkv);
    float* d_out = nullptr;
    CHECK_CUDA(cudaMalloc(&d_out, rows.size() * row_out * sizeof(float)));
    CHECK_CUDA(launch_attention_prefill(d_qkv, qkv_stride, d_rows, int(rows.size()), shape, kv,
                                        scale, /*lo_halves=*/true, d_out, 0));
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<float> got = host_copy(d_out, rows.size() * row_out);
    cudaFree(d_rows);
    cudaFree(d_qkv);
    cudaFree(d_out);
    return got;
  };
  const std::vector<float> together = run(own, qkv_own);
  const std::vector<float> among = run(mixed, qkv_mixed);
  for (bool lo_halves : {true, false}) check_prefill_halves(own, qkv_own, shape, kv, lo_halves);
  size_t bad_alone = 0, bad_among = 0, count = 0;
  for (size_t i = 0, r = 0; r < mixed.size(); ++r) {
    if (mixed[r].slot != 0) continue;
    const float* expect = together.data() + i * row_out;
    const std::vector<float> alone = run({own[i]}, std::vector<float>(
        qkv_own.begin() + i * qkv_stride, qkv_own.begin() + (i + 1) * qkv_stride));
    for (size_t k = 0; k < row_out; ++k) {
      bad_alone += same_bits(alone[k], expect[k]) ? 0 : 1;
      bad_among += same_bits(among[r * row_out + k], expect[k]) ? 0 : 1;
      count += std::isfinite(expect[k]) ? 1 : 0;
    }
    ++i;
  }
  char name[160];
  std::snprintf(name, sizeof name, "attention prefill rows alone = together, head_dim=%d", head_dim);
  report(name, bad_alone + (count == own.size() * row_out ? 0 : 1), own.size() * row_out);
  std::snprintf(name, sizeof name, "attention prefill rows among another sequence's, head_dim=%d",
                head_dim);
  report(name, bad_among, own.size() * row_out);
  cudaFree(d_keys);
  cudaFree(d_values);
  cudaFree(d_table);
}

// The head transform's inputs on the card (random biases and q/k norm
// weights near 1, RoPE tables of real angles at theta 1e6), freed with it.
struct DeviceTransform {
  float *bias, *q_norm, *k_norm, *cos, *sin;
  DeviceTransform(const HeadShape& shape, int positions, std::mt19937& rng) {
    std::normal_distribution<float> normal(0.f, 1.f);
    const int hd = shape.head_dim, half = hd / 2;
    std::vector<float> b((shape.heads + 2 * shape.kv_heads) * hd), qn(hd), kn(hd);
    for (float& x : b) x = normal(rng);
    for (float& x : qn) x = 1.f + 0.25f * normal(rng);
    for (float& x : kn) x = 1.f + 0.25f * normal(rng);
    std::vector<float> c(size_t(positions) * half), s(c.size());
    for (int p = 0; p < positions; ++p)
      for (int i = 0; i < half; ++i) {
        const double angle = p * std::pow(1e6, -2.0 * i / hd);
        c[size_t(p) * half + i] = float(std::cos(angle));
        s[size_t(p) * half + i] = float(std::sin(angle));
      }
    bias = device_copy(b);
    q_norm = device_copy(qn);
    k_norm = device_copy(kn);
    cos = device_copy(c);
    sin = device_copy(s);
  }
  ~DeviceTransform() {
    for (float* ptr : {bias, q_norm, k_norm, cos, sin}) cudaFree(ptr);
  }
  DeviceTransform(const DeviceTransform&) = delete;
  DeviceTransform& operator=(const DeviceTransform&) = delete;
  HeadTransform with(bool biases, bool norms, bool bf16_inputs) const {
    return {biases ? bias : nullptr, norms ? q_norm : nullptr, norms ? k_norm : nullptr, 1e-6f,
            cos, sin, bf16_inputs};
  }
};

// Decode attention doing qkv_rope_cache's work in its prologue against the
// two kernels one after the other: random projections, biases, q/k norms and
// keys and values before each row's position, real RoPE tables; one row per
// sequence at block, warp and slice edges; both policies. The outputs and
// the whole cache (the row's key and value written, nothing else touched),
// bit for bit.
void run_rope_in_attention(int head_dim, bool with_bias, bool with_norms, bool bf16_inputs,
                           std::mt19937& rng) {
  const HeadShape shape{8, 2, head_dim};
  const std::vector<int> positions{0, 1, 7, 8, 31, 32, 127, 128, 129, 300, 1100};
  const int n = int(positions.size());
  const int max_blocks = (positions.back() + kKvBlockTokens) / kKvBlockTokens;
  const int pool_blocks = n * max_blocks;
  const size_t pool_floats = size_t(pool_blocks) * shape.kv_heads * kKvBlockTokens * head_dim;
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> keys(pool_floats), values(pool_floats);
  for (float& x : keys) x = normal(rng);
  for (float& x : values) x = normal(rng);
  std::vector<int32_t> table(pool_blocks);
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), rng);
  std::vector<RowMeta> rows;
  for (int r = 0; r < n; ++r) rows.push_back({0, positions[r], r, positions[r]});
  const int qkv_width = (shape.heads + 2 * shape.kv_heads) * head_dim;
  std::vector<float> qkv(size_t(n) * qkv_width);
  for (float& x : qkv) x = normal(rng);
  const DeviceTransform inputs(shape, positions.back() + 1, rng);
  int32_t* d_table = device_copy(table);
  RowMeta* d_rows = device_copy(rows);
  const HeadTransform transform = inputs.with(with_bias, with_norms, bf16_inputs);
  const float scale = 1.0f / std::sqrt(float(head_dim));
  const int splits = decode_slices_for(positions.back());
  const size_t out_floats = size_t(n) * shape.heads * head_dim;
  struct Result {
    std::vector<float> out, keys, values;
  };
  auto run = [&](bool fused) {
    float* d_keys = device_copy(keys);
    float* d_values = device_copy(values);
    float* d_qkv = device_copy(qkv);
    float* d_out = nullptr;
    float* d_partials = nullptr;
    unsigned int* d_tickets = nullptr;
    CHECK_CUDA(cudaMalloc(&d_out, out_floats * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d_partials, size_t(n) * shape.heads * splits * (head_dim + 2) * 4));
    CHECK_CUDA(cudaMalloc(&d_tickets, size_t(n) * shape.heads * sizeof(unsigned int)));
    CHECK_CUDA(cudaMemset(d_tickets, 0, size_t(n) * shape.heads * sizeof(unsigned int)));
    const PagedKv kv{d_keys, d_values, d_table, max_blocks, shape.kv_heads, head_dim};
    if (!fused) CHECK_CUDA(launch_qkv_rope_cache(d_qkv, nullptr, transform, d_rows, n, shape, kv, 0));
    CHECK_CUDA(launch_attention_decode(d_qkv, qkv_width, d_rows, n, shape, kv,
                                       fused ? &transform : nullptr, scale, splits, d_partials,
                                       d_tickets, d_out, 0));
    CHECK_CUDA(cudaDeviceSynchronize());
    Result result{host_copy(d_out, out_floats), host_copy(d_keys, pool_floats),
                  host_copy(d_values, pool_floats)};
    for (void* ptr : {(void*)d_keys, (void*)d_values, (void*)d_qkv, (void*)d_out,
                      (void*)d_partials, (void*)d_tickets})
      cudaFree(ptr);
    return result;
  };
  const Result apart = run(false), fused = run(true);
  auto differing = [](const std::vector<float>& a, const std::vector<float>& b) {
    size_t bad = 0;
    for (size_t i = 0; i < a.size(); ++i) bad += same_bits(a[i], b[i]) ? 0 : 1;
    return bad;
  };
  char name[160];
  const char* form = with_bias ? "bias" : with_norms ? "q/k norms" : "plain";
  std::snprintf(name, sizeof name, "decode with RoPE inside = qkv_rope_cache + decode, hd=%d %s%s",
                head_dim, form, bf16_inputs ? " bf16" : "");
  report(name, differing(apart.out, fused.out), out_floats);
  std::snprintf(name, sizeof name, "  and the same cache, hd=%d %s%s", head_dim, form,
                bf16_inputs ? " bf16" : "");
  report(name, differing(apart.keys, fused.keys) + differing(apart.values, fused.values),
         2 * pool_floats);
  cudaFree(d_table);
  cudaFree(d_rows);
}

// qkv_rope_cache given the projection as two parts (the hi and lo products
// of a stacked prefill GEMM, lo's rows after hi's) against it given their
// sum: the same queries and the same cache, bit for bit.
void run_rope_parts(int head_dim, bool with_bias, std::mt19937& rng) {
  const HeadShape shape{8, 2, head_dim};
  const int n = 70, max_blocks = 3;  // one sequence, positions 0..69
  const int qkv_width = (shape.heads + 2 * shape.kv_heads) * head_dim;
  const size_t pool_floats = size_t(max_blocks) * shape.kv_heads * kKvBlockTokens * head_dim;
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> parts(size_t(2) * n * qkv_width), whole(size_t(n) * qkv_width);
  for (size_t i = 0; i < whole.size(); ++i) {
    parts[i] = normal(rng);
    parts[whole.size() + i] = 1e-3f * normal(rng);
    whole[i] = parts[i] + parts[whole.size() + i];  // as the accumulating GEMM's epilogue adds
  }
  std::vector<RowMeta> rows;
  for (int p = 0; p < n; ++p) rows.push_back({0, p, 0, 0});
  const std::vector<int32_t> table{2, 0, 1};
  const DeviceTransform inputs(shape, n, rng);
  int32_t* d_table = device_copy(table);
  RowMeta* d_rows = device_copy(rows);
  const HeadTransform transform = inputs.with(with_bias, /*norms=*/true, /*bf16_inputs=*/false);
  auto run = [&](const std::vector<float>& qkv, bool in_parts) {
    const std::vector<float> zeros(pool_floats, 0.f);
    float* d_keys = device_copy(zeros);
    float* d_values = device_copy(zeros);
    float* d_qkv = device_copy(qkv);
    const PagedKv kv{d_keys, d_values, d_table, max_blocks, shape.kv_heads, head_dim};
    CHECK_CUDA(launch_qkv_rope_cache(d_qkv, in_parts ? d_qkv + size_t(n) * qkv_width : nullptr,
                                     transform, d_rows, n, shape, kv, 0));
    CHECK_CUDA(cudaDeviceSynchronize());
    // The queries written back (the k and v columns are left as given: the
    // caches below hold what the kernel made of them).
    const std::vector<float> all_qkv = host_copy(d_qkv, size_t(n) * qkv_width);
    std::vector<float> got;
    const int q_width = shape.heads * head_dim;
    for (int r = 0; r < n; ++r)
      got.insert(got.end(), all_qkv.begin() + size_t(r) * qkv_width,
                 all_qkv.begin() + size_t(r) * qkv_width + q_width);
    const std::vector<float> keys = host_copy(d_keys, pool_floats);
    const std::vector<float> values = host_copy(d_values, pool_floats);
    got.insert(got.end(), keys.begin(), keys.end());
    got.insert(got.end(), values.begin(), values.end());
    for (float* ptr : {d_keys, d_values, d_qkv}) cudaFree(ptr);
    return got;
  };
  const std::vector<float> from_whole = run(whole, false), from_parts = run(parts, true);
  size_t bad = 0;
  for (size_t i = 0; i < from_whole.size(); ++i) bad += same_bits(from_whole[i], from_parts[i]) ? 0 : 1;
  char name[160];
  std::snprintf(name, sizeof name, "qkv_rope_cache of the projection in parts = of its sum, hd=%d%s",
                head_dim, with_bias ? " bias" : "");
  report(name, bad, from_whole.size());
  cudaFree(d_table);
  cudaFree(d_rows);
}

}  // namespace

int main(int argc, char** argv) {
  std::mt19937 rng(7);
  for (int head_dim : {16, 128})
    for (int length : {1, 31, 32, 33, 100, 600, 1100})
      for (bool peaked : {false, true}) run_case(length, head_dim, peaked, rng);
  for (int head_dim : {16, 64, 96, 128}) run_batch_invariance(head_dim, rng);
  for (int head_dim : {18, 64, 128, 256})
    for (int form = 0; form < 3; ++form)
      for (bool bf16_inputs : {false, true})
        run_rope_in_attention(head_dim, form == 1, form == 2, bf16_inputs, rng);
  for (int head_dim : {64, 128})
    for (bool with_bias : {false, true}) run_rope_parts(head_dim, with_bias, rng);
  std::printf("attention: %d cases, %d failed\n", cases, failed);
  write_check_summary(argc > 1 ? argv[1] : nullptr, "attention", cases, failed);
  return failed == 0 ? 0 : 1;
}
