// The host sampler's pipeline on the device, one block per row
// (core/sampling/SAMPLING.md states each step; sampler.cpp is the host's):
//   prepare: scores = logits as double, banned ids -inf, checks, penalties,
//            greedy argmax when temperature 0, else scores / temperature
//   rank:    sort (score desc, id asc) for rows with top-k or top-p
//   draw:    top-k threshold, top-p cut (W over 1,024 lanes, prefix masses
//            over chunks of 128 ranks), min-p, Gumbel-max with Philox noise
//   logprobs: log_softmax of the raw logits, top logprobs by exclusion rounds
// Decisions are comparisons or draw_math.hpp's double arithmetic in the
// host's order (built with -fmad=false), so they are the host's bits.
// Reductions are argmax / min / max (order-free) except the logprob sum,
// which is reported, not decided on.
// CUB's cache_modified_input_iterator.cuh includes <iostream>, whose static
// std::ios_base::Init object (GCC 12) gives this file a static initializer
// named after nvcc's temporary file: a different name in every build, so
// the plugin would not be reproducible. It needs only <ostream>.
#include <ostream>
#define _GLIBCXX_IOSTREAM 1
#include <cub/device/device_segmented_radix_sort.cuh>

#include <climits>
#include <cmath>

#include "device_sampling.hpp"
#include "sampling/draw_math.hpp"

namespace algenta::cuda {
namespace {

namespace dm = sampling::draw_math;

constexpr int kWarps = kSamplerThreads / 32;

// The better of two candidates: the larger score, then the lower id.
struct Best {
  double score;
  int id;
};

__device__ __forceinline__ Best better(Best a, Best b) {
  return b.score > a.score || (b.score == a.score && b.id < a.id) ? b : a;
}

__device__ __forceinline__ int shuffle_down(int value, int offset) {
  return __shfl_down_sync(0xffffffffu, value, offset);
}
__device__ __forceinline__ double shuffle_down(double value, int offset) {
  return __shfl_down_sync(0xffffffffu, value, offset);
}
__device__ __forceinline__ Best shuffle_down(Best value, int offset) {
  return {shuffle_down(value.score, offset), shuffle_down(value.id, offset)};
}

// A block-wide reduction, every thread getting the answer: a fixed tree
// (within each warp, then the warps' results in warp order), so the same
// bits every run. Starts and ends with __syncthreads, so it may follow or
// precede any other.
template <typename T, typename Combine>
__device__ T block_reduce(T value, Combine combine) {
  __shared__ T warp_results[kWarps];
  __shared__ T answer;
  for (int offset = 16; offset > 0; offset /= 2) value = combine(value, shuffle_down(value, offset));
  __syncthreads();
  if (threadIdx.x % 32 == 0) warp_results[threadIdx.x / 32] = value;
  __syncthreads();
  if (threadIdx.x == 0) {
    T all = warp_results[0];
    for (int w = 1; w < kWarps; ++w) all = combine(all, warp_results[w]);
    answer = all;
  }
  __syncthreads();
  return answer;
}

__device__ Best block_best(Best best) { return block_reduce(best, better); }
__device__ int block_min(int value) {
  return block_reduce(value, [](int a, int b) { return min(a, b); });
}
__device__ int block_count(int value) {
  return block_reduce(value, [](int a, int b) { return a + b; });
}
__device__ double block_sum(double value) {
  return block_reduce(value, [](double a, double b) { return a + b; });
}

__device__ void refuse(SamplingRowResult& out, SamplingStatus status, int index) {
  if (threadIdx.x == 0) {
    out.status = status;
    out.status_index = index;
    out.drawn = 1;
  }
}

// The penalties of one history token, in sampler.cpp's order (repetition
// once per distinct token; frequency then presence over output counts).
__device__ double penalized(double v, const SamplingRowParams& p, int output_count) {
  if (p.repetition_penalty != 1.0) v = v > 0.0 ? v / p.repetition_penalty : v * p.repetition_penalty;
  if ((p.frequency_penalty != 0.0 || p.presence_penalty != 0.0) && output_count > 0) {
    v = v - p.frequency_penalty * static_cast<double>(output_count);
    v = v - p.presence_penalty;
  }
  return v;
}

__global__ void __launch_bounds__(kSamplerThreads)
    sampler_prepare_kernel(const float* __restrict__ logits, int vocab,
                           const SamplingRowParams* __restrict__ params,
                           const HistoryToken* __restrict__ history,
                           const std::int32_t* __restrict__ banned, SamplerBuffers buffers,
                           SamplingRowResult* __restrict__ results) {
  const int row = blockIdx.x;
  const SamplingRowParams p = params[row];
  SamplingRowResult& out = results[row];
  const float* raw = logits + static_cast<std::int64_t>(p.logits_row) * vocab;
  double* z = buffers.scores + static_cast<std::int64_t>(row) * vocab;
  if (threadIdx.x == 0) {
    out.token = -1;
    out.status = kSampled;
    out.status_index = -1;
    out.top_count = 0;
    out.drawn = 0;
    buffers.segment_begin[row] = row * vocab;
    buffers.segment_end[row] = row * vocab;  // unsorted unless top-k/top-p need it
  }
  for (int i = threadIdx.x; i < vocab; i += kSamplerThreads) z[i] = static_cast<double>(raw[i]);
  __syncthreads();
  for (int j = threadIdx.x; j < p.banned_count; j += kSamplerThreads)
    z[banned[p.banned_offset + j]] = -INFINITY;
  __syncthreads();

  // Checked after banning, as the host checks the row it draws from.
  int bad = INT_MAX, allowed = 0;
  for (int i = threadIdx.x; i < vocab; i += kSamplerThreads) {
    const double v = z[i];
    if (isnan(v) || v == INFINITY) bad = min(bad, i);
    allowed += v != -INFINITY;
  }
  bad = block_min(bad);
  allowed = block_count(allowed);
  if (bad != INT_MAX) return refuse(out, isnan(z[bad]) ? kNanLogit : kInfiniteLogit, bad);
  if (allowed == 0) return refuse(out, kNoAllowedToken, vocab);

  // History tokens are distinct, so no two threads write one score.
  int overflow = INT_MAX;
  for (int j = threadIdx.x; j < p.history_count; j += kSamplerThreads) {
    const HistoryToken h = history[p.history_offset + j];
    const double v = z[h.token];
    if (v == -INFINITY) continue;  // banned or not allowed: stays -inf
    const double after = penalized(v, p, h.output_count);
    if (!isfinite(after)) overflow = min(overflow, h.token);
    z[h.token] = after;
  }
  overflow = block_min(overflow);
  if (overflow != INT_MAX) return refuse(out, kPenaltyOverflow, overflow);

  if (p.temperature == 0.0) {
    Best best{-INFINITY, INT_MAX};
    for (int i = threadIdx.x; i < vocab; i += kSamplerThreads)
      if (z[i] != -INFINITY) best = better(best, {z[i], i});
    best = block_best(best);
    if (threadIdx.x == 0) {
      out.token = best.id;
      out.drawn = 1;
    }
    return;
  }

  double z_max = -INFINITY;
  for (int i = threadIdx.x; i < vocab; i += kSamplerThreads) {
    if (z[i] == -INFINITY) continue;
    const double v = z[i] / p.temperature;
    if (!isfinite(v)) overflow = min(overflow, i);
    z[i] = v;
    z_max = fmax(z_max, v);
  }
  overflow = block_min(overflow);
  if (overflow != INT_MAX) return refuse(out, kTemperatureOverflow, overflow);
  const Best largest = block_best({z_max, 0});
  if (threadIdx.x == 0) {
    out.z_max = largest.score;
    out.allowed = allowed;
    const bool top_k = p.top_k > 0 && p.top_k < allowed;
    if (top_k || p.top_p < 1.0) buffers.segment_end[row] = row * vocab + vocab;
  }
}

// Rank of the first score below `threshold` among sorted[from, to), or to.
__device__ int first_below(const double* sorted, int from, int to, double threshold) {
  while (from < to) {
    const int mid = from + (to - from) / 2;
    if (sorted[mid] < threshold) {
      to = mid;
    } else {
      from = mid + 1;
    }
  }
  return from;
}

// top-p's cut: the number of leading ranks (of `ranked`) that stay.
__device__ int nucleus_size(const double* z, const std::int32_t* sorted_ids, int ranked,
                            double threshold, double z_max, double top_p, int vocab,
                            double* chunk_sums) {
  __shared__ double lanes[kSamplerThreads];
  __shared__ double mass;
  // W: lane = thread, ids of this lane in ascending order; lanes in order.
  double lane = 0.0;
  for (int i = threadIdx.x; i < vocab; i += kSamplerThreads)
    if (z[i] != -INFINITY && z[i] >= threshold) lane = lane + dm::exp(z[i] - z_max);
  lanes[threadIdx.x] = lane;
  __syncthreads();
  if (threadIdx.x == 0) {
    double total = 0.0;
    for (int l = 0; l < kSamplerThreads; ++l) total = total + lanes[l];
    mass = top_p * total;
  }
  // Each chunk of ranks summed in rank order from 0, by one thread.
  const int chunks = (ranked + kNucleusChunkRanks - 1) / kNucleusChunkRanks;
  for (int c = threadIdx.x; c < chunks; c += kSamplerThreads) {
    const int end = min(ranked, (c + 1) * kNucleusChunkRanks);
    double sum = 0.0;
    for (int r = c * kNucleusChunkRanks; r < end; ++r) sum = sum + dm::exp(z[sorted_ids[r]] - z_max);
    chunk_sums[c] = sum;
  }
  __syncthreads();
  if (threadIdx.x == 0) {  // the chunks' sums before each chunk, in rank order
    double before = 0.0;
    for (int c = 0; c < chunks; ++c) {
      const double sum = chunk_sums[c];
      chunk_sums[c] = before;
      before = before + sum;
    }
  }
  __syncthreads();
  int cut = ranked;
  for (int c = threadIdx.x; c < chunks; c += kSamplerThreads) {
    const int end = min(ranked, (c + 1) * kNucleusChunkRanks);
    const double before = chunk_sums[c];
    double in_chunk = 0.0;
    for (int r = c * kNucleusChunkRanks; r < end; ++r) {
      if (r > 0 && !(before + in_chunk < mass)) {
        cut = min(cut, r);
        break;
      }
      in_chunk = in_chunk + dm::exp(z[sorted_ids[r]] - z_max);
    }
  }
  return block_min(cut);
}

__global__ void __launch_bounds__(kSamplerThreads)
    sampler_draw_kernel(int vocab, const SamplingRowParams* __restrict__ params,
                        SamplerBuffers buffers, SamplingRowResult* __restrict__ results) {
  const int row = blockIdx.x;
  SamplingRowResult& out = results[row];
  if (out.status != kSampled || out.drawn) return;
  const SamplingRowParams p = params[row];
  const std::int64_t base = static_cast<std::int64_t>(row) * vocab;
  const double* z = buffers.scores + base;
  const double* sorted = buffers.sorted_scores + base;
  const std::int32_t* sorted_ids = buffers.sorted_ids + base;
  const double z_max = out.z_max;
  const int allowed = out.allowed;

  // top-k: keep z >= the k-th largest (ties stay): a prefix of the ranks.
  double threshold = -INFINITY;
  int ranked = allowed;
  if (p.top_k > 0 && p.top_k < allowed) {
    threshold = sorted[p.top_k - 1];
    ranked = first_below(sorted, p.top_k, allowed, threshold);
  }
  // top-p: keep the ranks before the cut: (z, id) at or before the last kept.
  double cut_score = -INFINITY;
  int cut_id = INT_MAX;
  if (p.top_p < 1.0) {
    const int kept = nucleus_size(z, sorted_ids, ranked, threshold, z_max, p.top_p, vocab,
                                  buffers.chunk_sums + static_cast<std::int64_t>(row) * buffers.chunks_per_row);
    cut_id = sorted_ids[kept - 1];
    cut_score = z[cut_id];
  }
  const auto survives = [&](int i) {
    const double v = z[i];
    if (v == -INFINITY || v < threshold) return false;
    if (v < cut_score || (v == cut_score && i > cut_id)) return false;
    return p.min_p <= 0.0 || dm::exp(v - z_max) >= p.min_p;
  };
  // Gumbel-max: one Philox call per four consecutive ids.
  Best best{-INFINITY, INT_MAX};
  for (int quad = threadIdx.x; quad * 4 < vocab; quad += kSamplerThreads) {
    bool any = false;
    bool keep[4];
    for (int k = 0; k < 4; ++k) {
      const int i = quad * 4 + k;
      keep[k] = i < vocab && survives(i);
      any = any || keep[k];
    }
    if (!any) continue;
    std::uint32_t words[4];
    dm::noise_words(p.seed, p.position, static_cast<std::uint32_t>(quad), words);
    for (int k = 0; k < 4; ++k) {
      if (!keep[k]) continue;
      const int i = quad * 4 + k;
      best = better(best, {z[i] + dm::gumbel_from_word(words[k]), i});
    }
  }
  best = block_best(best);
  if (threadIdx.x == 0) {
    out.token = best.id;
    out.drawn = 1;
  }
}

// log_softmax of the raw logits (not banned, no penalties), as the host
// reports it: the drawn token's and the top_logprobs largest, by exclusion
// rounds (each round's best ranks strictly after the last one's).
__global__ void __launch_bounds__(kSamplerThreads)
    sampler_logprobs_kernel(const float* __restrict__ logits, int vocab,
                            const SamplingRowParams* __restrict__ params,
                            SamplingRowResult* __restrict__ results) {
  const int row = blockIdx.x;
  SamplingRowResult& out = results[row];
  const SamplingRowParams p = params[row];
  if (out.status != kSampled || p.want_logprob != 1) return;
  const float* raw = logits + static_cast<std::int64_t>(p.logits_row) * vocab;
  double largest = -INFINITY;
  for (int i = threadIdx.x; i < vocab; i += kSamplerThreads)
    if (!isnan(raw[i])) largest = fmax(largest, static_cast<double>(raw[i]));
  const double m = block_best({largest, 0}).score;
  double sum = 0.0;
  for (int i = threadIdx.x; i < vocab; i += kSamplerThreads)
    if (raw[i] != -INFINITY && !isnan(raw[i])) sum += ::exp(static_cast<double>(raw[i]) - m);
  const double log_sum = ::log(block_sum(sum));
  const auto logprob = [&](int i) {
    const double l = raw[i];
    return l == -INFINITY ? -INFINITY : (l - m) - log_sum;
  };
  if (threadIdx.x == 0) out.logprob = logprob(out.token);
  const int wanted = min(p.top_logprobs, kSamplerMaxTopLogprobs);
  double last_value = INFINITY;
  int last_id = -1, count = 0;
  for (; count < wanted; ++count) {
    Best best{-INFINITY, INT_MAX};
    for (int i = threadIdx.x; i < vocab; i += kSamplerThreads) {
      const double l = raw[i];
      if (l == -INFINITY || isnan(l)) continue;
      if (l < last_value || (l == last_value && i > last_id)) best = better(best, {l, i});
    }
    best = block_best(best);
    if (best.id == INT_MAX) break;
    if (threadIdx.x == 0) {
      out.top_tokens[count] = best.id;
      out.top_values[count] = logprob(best.id);
    }
    last_value = best.score;
    last_id = best.id;
  }
  if (threadIdx.x == 0) out.top_count = count;
}

__global__ void sampler_ids_kernel(std::int32_t* ids, int vocab) {
  std::int32_t* row = ids + static_cast<std::int64_t>(blockIdx.y) * vocab;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < vocab; i += gridDim.x * blockDim.x) row[i] = i;
}

}  // namespace

cudaError_t sampler_sort_temp_bytes(int rows, int vocab, std::size_t* bytes) {
  // Sizing only: CUB reads no pointer but the offsets' types.
  return cub::DeviceSegmentedRadixSort::SortPairsDescending(
      nullptr, *bytes, static_cast<const double*>(nullptr), static_cast<double*>(nullptr),
      static_cast<const std::int32_t*>(nullptr), static_cast<std::int32_t*>(nullptr), rows * vocab,
      rows, static_cast<const std::int32_t*>(nullptr), static_cast<const std::int32_t*>(nullptr));
}

cudaError_t launch_sampler_ids(const SamplerBuffers& buffers, int rows, int vocab,
                               cudaStream_t stream) {
  if (rows <= 0 || vocab <= 0) return cudaErrorInvalidValue;
  sampler_ids_kernel<<<dim3(64, rows), 256, 0, stream>>>(buffers.ids, vocab);
  return cudaGetLastError();
}

cudaError_t launch_sampler(const float* logits, int rows, int vocab, const SamplingRowParams* params,
                           const HistoryToken* history, const std::int32_t* banned,
                           const SamplerBuffers& buffers, bool rank, bool logprobs,
                           SamplingRowResult* results, cudaStream_t stream) {
  if (rows < 0 || vocab <= 0) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;
  sampler_prepare_kernel<<<rows, kSamplerThreads, 0, stream>>>(logits, vocab, params, history,
                                                               banned, buffers, results);
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) return status;
  if (rank) {
    // Stable: equal scores keep ascending id order (and -0.0 ties +0.0).
    std::size_t temp_bytes = buffers.sort_temp_bytes;
    status = cub::DeviceSegmentedRadixSort::SortPairsDescending(
        buffers.sort_temp, temp_bytes, static_cast<const double*>(buffers.scores),
        buffers.sorted_scores, static_cast<const std::int32_t*>(buffers.ids),
        buffers.sorted_ids, rows * vocab, rows, static_cast<const std::int32_t*>(buffers.segment_begin),
        static_cast<const std::int32_t*>(buffers.segment_end), 0,
        static_cast<int>(sizeof(double) * 8), stream);
    if (status != cudaSuccess) return status;
  }
  sampler_draw_kernel<<<rows, kSamplerThreads, 0, stream>>>(vocab, params, buffers, results);
  status = cudaGetLastError();
  if (status != cudaSuccess || !logprobs) return status;
  sampler_logprobs_kernel<<<rows, kSamplerThreads, 0, stream>>>(logits, vocab, params, results);
  return cudaGetLastError();
}

}  // namespace algenta::cuda
