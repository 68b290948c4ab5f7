// Causal attention over the paged cache, flash style: keys are visited in
// fixed blocks of kKvBlockTokens from position 0 with an online softmax, so
// no score matrix is ever stored (workspace is O(rows x heads x head_dim)).
// Prefill runs on tensor cores where the target has bf16 mma.sync
// (attention_prefill_mma.cu); otherwise, and below, one warp per (row, query
// head): lane j scores key j of a block (staged in shared memory by the
// whole warp), the block's max and sum use the fixed butterfly, and every
// lane then accumulates its head_dim slice over the block's keys in
// increasing order. Decode: one thread block per (row, query head, slice of
// kDecodeSplitBlocks blocks), 8 keys per warp; the slice's max is taken
// before any weight, then the warps and the slices are merged in key order
// (attention_decode_kernel says how). GQA maps query head h to kv head
// h / (heads / kv_heads). Both forms below reduce in an order fixed by the
// row's position alone: never by the batch, the chunking of the prompt, the
// decode grid's slice count, or other sequences.
#include <cfloat>
#include <type_traits>

#include "attention_prefill_mma.hpp"
#include "attention_common.cuh"
#include "dependent_launch.cuh"
#include "head_transform.cuh"
#include "launch.hpp"
#include "warp_reduce.cuh"

namespace algenta::cuda {
namespace {

constexpr int kWarpsPerBlock = 4;

struct RunningSoftmax {
  float max = -FLT_MAX;  // finite: exp(max - new_max) stays well defined
  float sum = 0.f;
  float acc[kMaxHeadDimPerLane] = {};
};

__device__ __forceinline__ const float* block_base(const float* base, const PagedKv& kv, int slot,
                                                   int kv_head, int block_index) {
  const int block = kv.block_tables[slot * kv.max_blocks + block_index];
  return base + (static_cast<int64_t>(block) * kv.kv_heads + kv_head) * kKvBlockTokens * kv.head_dim;
}

// Shared memory per warp for staging keys: 16 keys of head_dim 128 (8 of
// 256), each row padded by one float so that lane j reading row j, column d
// hits bank (j + d) % 32: no conflicts.
constexpr int kKeyStageFloats = 16 * (128 + 1);

// Row and column of a flat index i = row * per_row + column, moved on by a
// fixed step without dividing again: the staging loops below visit i, i +
// step, i + 2 step, ..., and an integer division is about twenty
// instructions, which in a decode step's short warps cost more than the copies.
struct FlatCursor {
  int row, column;
  int row_step, column_step, per_row;
  __device__ FlatCursor(int i, int step, int per_row_) : per_row(per_row_) {
    row = i / per_row;
    column = i - row * per_row;
    row_step = step / per_row;
    column_step = step - row_step * per_row;
  }
  __device__ __forceinline__ void advance() {
    row += row_step;
    column += column_step;
    if (column >= per_row) {
      column -= per_row;
      ++row;
    }
  }
};

// Keys [first, first + count) of a block, copied whole-warp and coalesced
// (consecutive lanes read consecutive floats) into `stage` rows of `pitch`.
// Each lane issues kStageLoads loads before it stores any, so a warp keeps
// that many cache lines in flight instead of one.
constexpr int kStageLoads = 8;
__device__ void stage_keys(const float* keys, int first, int count, int hd, int pitch, float* stage) {
  const float* source = keys + first * hd;
  const int total = count * hd;
  __syncwarp();  // the previous pass is done reading
  FlatCursor at(threadIdx.x % 32, 32, hd);
  for (int base = threadIdx.x % 32; base < total; base += 32 * kStageLoads) {
    float loaded[kStageLoads];
#pragma unroll
    for (int u = 0; u < kStageLoads; ++u) {
      const int i = base + 32 * u;
      loaded[u] = i < total ? source[i] : 0.f;
    }
#pragma unroll
    for (int u = 0; u < kStageLoads; ++u) {
      if (base + 32 * u < total) stage[at.row * pitch + at.column] = loaded[u];
      at.advance();
    }
  }
  __syncwarp();
}

// acc[i] += w_j * value_j[lane + 32 i] for the block's keys j = first ..
// first + count - 1 in that order; `values` points at key `first`'s row and
// lane j holds key j's weight. Values are loaded kValueLoads keys at a time
// before any is multiplied (loads in flight); the additions keep the order of j.
constexpr int kValueLoads = 4;
__device__ __forceinline__ void accumulate_values(const float* values, int first, int count,
                                                  int hd, float weight, RunningSoftmax& state) {
  const int lane = threadIdx.x % 32;
  for (int j0 = 0; j0 < count; j0 += kValueLoads) {
    float loaded[kValueLoads][kMaxHeadDimPerLane];
#pragma unroll
    for (int u = 0; u < kValueLoads; ++u) {
      const float* value = values + (j0 + u) * hd;
#pragma unroll
      for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
        const int d = lane + 32 * i;
        loaded[u][i] = (j0 + u < count && d < hd) ? value[d] : 0.f;
      }
    }
#pragma unroll
    for (int u = 0; u < kValueLoads; ++u) {
      // Every lane shuffles (the source lane must take part), then the keys
      // past `count` are skipped, as the one-key-at-a-time loop never saw them.
      const float w = __shfl_sync(0xffffffffu, weight, (first + j0 + u) % 32);
      if (j0 + u >= count) break;
#pragma unroll
      for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
        if (lane + 32 * i < hd) state.acc[i] = __fmaf_rn(w, loaded[u][i], state.acc[i]);
      }
    }
  }
}

// query . key over d = 0 .. hd-1 as four running sums (d mod 4), added
// (s0 + s1) + (s2 + s3): four independent chains instead of one long one.
__device__ __forceinline__ float dot_product(const float* query, const float* key, int hd) {
  float sums[4] = {0.f, 0.f, 0.f, 0.f};
  int d = 0;
  for (; d + 4 <= hd; d += 4) {
#pragma unroll
    for (int u = 0; u < 4; ++u) sums[u] = __fmaf_rn(query[d + u], key[d + u], sums[u]);
  }
  for (; d < hd; ++d) sums[0] = __fmaf_rn(query[d], key[d], sums[0]);
  return __fadd_rn(__fadd_rn(sums[0], sums[1]), __fadd_rn(sums[2], sums[3]));
}

// Staged copies of keys and values: every load of a pass is issued before
// any is stored, so a warp (or block) waits for memory once per pass instead
// of once per few keys. With head_dim % 4 == 0 the copies and the key reads
// are 16 bytes wide and key rows are padded by 4 floats (lanes 8 apart in a
// quarter warp land in different banks); otherwise one float at a time and
// rows padded by 1.
template <bool kVec>
struct DecodeStage {
  static constexpr int kWidth = kVec ? 4 : 1;  // floats per load
};

// What one load moves: 16 bytes, or one float.
template <bool kVec>
using ChunkOf = typename std::conditional<kVec, float4, float>::type;

// sums[c] += q.c * k.c by component (one sum for a scalar chunk).
__device__ __forceinline__ void add_products(float4 q, float4 k, float (&sums)[4]) {
  sums[0] = __fmaf_rn(q.x, k.x, sums[0]);
  sums[1] = __fmaf_rn(q.y, k.y, sums[1]);
  sums[2] = __fmaf_rn(q.z, k.z, sums[2]);
  sums[3] = __fmaf_rn(q.w, k.w, sums[3]);
}
__device__ __forceinline__ void add_products(float q, float k, float (&sums)[4]) {
  sums[0] = __fmaf_rn(q, k, sums[0]);
}

// rows [0, count) of `source` (rows of hd floats, contiguous) into `stage`
// rows of `pitch` floats, by the whole warp.
template <bool kVec>
__device__ void copy_rows(const float* source, int count, int hd, int pitch, float* stage) {
  constexpr int kWidth = DecodeStage<kVec>::kWidth;
  using Chunk = ChunkOf<kVec>;
  constexpr int kCopyLoads = 16;  // loads in flight per lane
  const int per_row = hd / kWidth;
  const int total = count * per_row;
  const Chunk* from = reinterpret_cast<const Chunk*>(source);
  __syncwarp();  // the previous pass is done reading the stage
  FlatCursor at(threadIdx.x % 32, 32, per_row);
  for (int base = threadIdx.x % 32; base < total; base += 32 * kCopyLoads) {
    Chunk loaded[kCopyLoads];
#pragma unroll
    for (int u = 0; u < kCopyLoads; ++u) {
      const int i = base + 32 * u;
      if (i < total) loaded[u] = from[i];
    }
#pragma unroll
    for (int u = 0; u < kCopyLoads; ++u) {
      if (base + 32 * u < total) {
        *reinterpret_cast<Chunk*>(stage + at.row * pitch + at.column * kWidth) = loaded[u];
      }
      at.advance();
    }
  }
  __syncwarp();
}

// query . key as dot_product computes it (four sums by d mod 4, added
// (s0 + s1) + (s2 + s3)), reading four floats at a time.
__device__ __forceinline__ float dot_product_vec4(const float* query, const float* key, int hd) {
  float sums[4] = {0.f, 0.f, 0.f, 0.f};
  for (int d = 0; d < hd; d += 4) {
    add_products(*reinterpret_cast<const float4*>(query + d),
                 *reinterpret_cast<const float4*>(key + d), sums);
  }
  return __fadd_rn(__fadd_rn(sums[0], sums[1]), __fadd_rn(sums[2], sums[3]));
}

// The softmax half of one block's online step: lane j holds key j's score
// (-FLT_MAX past `valid`); returns lane j's weight exp(score_j - new max),
// rescales the running sum and accumulators, and moves the running max.
// The values are added next, by accumulate_values, in key order.
__device__ __forceinline__ float block_softmax_weights(float score, int valid,
                                                       RunningSoftmax& state) {
  const int lane = threadIdx.x % 32;
  const float new_max = fmaxf(state.max, warp_max(score));
  const float rescale = expf(__fsub_rn(state.max, new_max));
  const float weight = lane < valid ? expf(__fsub_rn(score, new_max)) : 0.f;
  state.sum = __fadd_rn(__fmul_rn(state.sum, rescale), warp_sum(weight));
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) state.acc[i] = __fmul_rn(state.acc[i], rescale);
  state.max = new_max;
  return weight;
}

// One block's online-softmax step for the warp: lane j holds key j's score
// (-FLT_MAX past `valid`), value j sits at values + j * hd.
__device__ __forceinline__ void block_softmax_update(float score, const float* values, int valid,
                                                     int hd, RunningSoftmax& state) {
  const float weight = block_softmax_weights(score, valid, state);
  accumulate_values(values, 0, valid, hd, weight, state);
}

// Adds keys [first_block * B, min(end_block * B, last + 1)) to `state`.
// Lane j scores key j from a shared-memory copy of the block (read coalesced
// instead of one key row per lane); its dot product runs d = 0, 1, ... in
// order, so the staging changes no bit.
__device__ void attend_blocks(const float* query, const PagedKv& kv, int slot, int kv_head,
                              int first_block, int end_block, int last, float scale,
                              RunningSoftmax& state, float* key_stage) {
  const int lane = threadIdx.x % 32;
  const int hd = kv.head_dim;
  const int pitch = hd + 1;
  const int keys_per_pass = min(kKvBlockTokens, kKeyStageFloats / pitch);
  for (int b = first_block; b < end_block; ++b) {
    const float* keys = block_base(kv.keys, kv, slot, kv_head, b);
    const float* values = block_base(kv.values, kv, slot, kv_head, b);
    const int valid = min(kKvBlockTokens, last - b * kKvBlockTokens + 1);

    float score = -FLT_MAX;
    for (int first = 0; first < valid; first += keys_per_pass) {
      const int count = min(keys_per_pass, valid - first);
      stage_keys(keys, first, count, hd, pitch, key_stage);
      if (lane >= first && lane < first + count) {
        const float* key = key_stage + (lane - first) * pitch;
        score = __fmul_rn(dot_product(query, key, hd), scale);
      }
    }
    block_softmax_update(score, values, valid, hd, state);
  }
}

// The warp's query head, copied to shared memory for broadcast reads.
__device__ const float* stage_query(const float* qkv, int qkv_stride, int row, int head, int hd,
                                    float (*staging)[kMaxHeadDim]) {
  const int warp = threadIdx.x / 32;
  const float* source = qkv + static_cast<int64_t>(row) * qkv_stride + head * hd;
  for (int d = threadIdx.x % 32; d < hd; d += 32) staging[warp][d] = source[d];
  __syncwarp();
  return staging[warp];
}

__device__ void write_head(float* out, int row, int head, const HeadShape& shape,
                           const RunningSoftmax& state, float inverse_sum) {
  float* target = out + (static_cast<int64_t>(row) * shape.heads + head) * shape.head_dim;
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    const int d = lane + 32 * i;
    if (d < shape.head_dim) target[d] = __fmul_rn(state.acc[i], inverse_sum);
  }
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    attention_prefill_kernel(const float* __restrict__ qkv, int qkv_stride,
                             const RowMeta* __restrict__ rows, HeadShape shape, PagedKv kv,
                             float scale, float* __restrict__ out) {
  __shared__ float staging[kWarpsPerBlock][kMaxHeadDim];
  __shared__ float key_stage[kWarpsPerBlock][kKeyStageFloats];
  const int head = blockIdx.y * kWarpsPerBlock + threadIdx.x / 32;
  const RowMeta row = rows[blockIdx.x];
  if (head >= shape.heads || row.position < 0) return;
  const float* query = stage_query(qkv, qkv_stride, blockIdx.x, head, shape.head_dim, staging);
  RunningSoftmax state;
  attend_blocks(query, kv, row.slot, kv_head_of(head, shape), 0,
                row.position / kKvBlockTokens + 1, row.position, scale, state,
                key_stage[threadIdx.x / 32]);
  write_head(out, blockIdx.x, head, shape, state, 1.0f / state.sum);
}

// Prefill with shared key/value tiles: kPrefillRows query rows (one warp
// each) of one head share every staged block of their sequence, so each
// block is read from L2 once per kPrefillRows rows instead of once per row.
// A warp does exactly what attend_blocks does for its row (same scores, same
// order), so the bits equal the one-row-per-warp form. Rows of several
// sequences in one tile are served one sequence after another.
constexpr int kPrefillRows = 8;
constexpr int kTileHeadDim = 128;  // wider heads take attention_prefill_kernel
constexpr int kTileKeyPitch = kTileHeadDim + 4;  // 16-byte rows

// Block `block` of (slot, kv_head): keys [0, count) into key_tile rows of
// kTileKeyPitch, values packed, by the whole thread block (16-byte copies
// when kVec; kTileLoads of each in flight per thread).
constexpr int kTileLoads = 4;  // 32 keys x 128 floats over 256 threads: one pass of float4s
template <bool kVec>
__device__ void stage_tile(const PagedKv& kv, int slot, int kv_head, int block, int count,
                           float* key_tile, float* value_tile) {
  constexpr int kWidth = DecodeStage<kVec>::kWidth;
  using Chunk = ChunkOf<kVec>;
  const Chunk* keys = reinterpret_cast<const Chunk*>(block_base(kv.keys, kv, slot, kv_head, block));
  const Chunk* values =
      reinterpret_cast<const Chunk*>(block_base(kv.values, kv, slot, kv_head, block));
  const int per_row = kv.head_dim / kWidth;
  const int total = count * per_row;
  FlatCursor at(threadIdx.x, blockDim.x, per_row);
  for (int base = threadIdx.x; base < total; base += blockDim.x * kTileLoads) {
    Chunk k[kTileLoads], v[kTileLoads];
#pragma unroll
    for (int u = 0; u < kTileLoads; ++u) {
      const int i = base + u * blockDim.x;
      if (i < total) {
        k[u] = keys[i];
        v[u] = values[i];
      }
    }
#pragma unroll
    for (int u = 0; u < kTileLoads; ++u) {
      const int i = base + u * blockDim.x;
      if (i < total) {
        *reinterpret_cast<Chunk*>(key_tile + at.row * kTileKeyPitch + at.column * kWidth) = k[u];
        reinterpret_cast<Chunk*>(value_tile)[i] = v[u];
      }
      at.advance();
    }
  }
}

template <bool kVec>
__global__ void __launch_bounds__(kPrefillRows * 32)
    attention_prefill_tiled_kernel(const float* __restrict__ qkv, int qkv_stride,
                                   const RowMeta* __restrict__ rows, int row_count,
                                   HeadShape shape, PagedKv kv, float scale,
                                   float* __restrict__ out) {
  __shared__ __align__(16) float queries[kPrefillRows][kTileHeadDim];
  __shared__ __align__(16) float key_tile[kKvBlockTokens * kTileKeyPitch];
  __shared__ __align__(16) float value_tile[kKvBlockTokens * kTileHeadDim];
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int head = blockIdx.y;
  const int hd = shape.head_dim;
  const int kv_head = kv_head_of(head, shape);
  const int first_row = blockIdx.x * kPrefillRows;
  const RowMeta row = row_or_padding(rows, row_count, first_row + warp);
  const bool active = row.position >= 0;
  if (active) {
    const float* source = qkv + static_cast<int64_t>(first_row + warp) * qkv_stride + head * hd;
    for (int d = lane; d < hd; d += 32) queries[warp][d] = source[d];
  }
  RunningSoftmax state;
  // Each sequence of the tile once, in the order its first row appears.
  for (int leader = 0; leader < kPrefillRows; ++leader) {
    const RowMeta lead = row_or_padding(rows, row_count, first_row + leader);
    if (lead.position < 0) continue;
    bool seen = false;
    int last = -1;
    for (int e = 0; e < kPrefillRows; ++e) {
      const RowMeta other = row_or_padding(rows, row_count, first_row + e);
      if (other.position < 0 || other.slot != lead.slot) continue;
      if (e < leader) seen = true;
      last = max(last, other.position);
    }
    if (seen) continue;
    const bool mine = active && row.slot == lead.slot;
    for (int b = 0; b <= last / kKvBlockTokens; ++b) {
      __syncthreads();  // the previous tile is consumed (and the queries are staged)
      stage_tile<kVec>(kv, lead.slot, kv_head, b, min(kKvBlockTokens, last - b * kKvBlockTokens + 1),
                 key_tile, value_tile);
      __syncthreads();
      if (!mine || b * kKvBlockTokens > row.position) continue;
      const int valid = min(kKvBlockTokens, row.position - b * kKvBlockTokens + 1);
      float score = -FLT_MAX;
      if (lane < valid) {
        const float* key = key_tile + lane * kTileKeyPitch;
        score = __fmul_rn(
            kVec ? dot_product_vec4(queries[warp], key, hd) : dot_product(queries[warp], key, hd),
            scale);
      }
      block_softmax_update(score, value_tile, valid, hd, state);
    }
  }
  if (active) write_head(out, first_row + warp, head, shape, state, 1.0f / state.sum);
}

// Decode (flash-decoding): thread block (row, query head, slice z) takes the
// slice's kDecodeSplitBlocks KV blocks, kDecodeKeysPerWarp keys per warp
// (warp w: keys 8w .. 8w + 7 of the slice), so a short context still spreads
// over many warps and each warp's chain is short. Every load of a warp's keys
// and values is issued before any is used (a pass: 32 chunks of each row,
// 128 floats in 16-byte chunks; wider rows take more passes), so a block
// waits for memory once, not once per 16 keys.
// The order, fixed by the row's position alone:
//  - score of key j: lane 4k + p adds query x key over its chunks p, p + 4,
//    ... of every pass (four sums by component of a 16-byte chunk, added
//    (s0 + s1) + (s2 + s3)), then the 4 lanes of the key add theirs in a
//    fixed butterfly; times scale;
//  - the slice's max M over its keys; weight_j = exp(score_j - M);
//  - each warp adds weight_j * value_j over its keys in order, then the
//    block adds the warps' sums (and their weight sums) in warp order, i.e.
//    key order, into partials[row][head][slice] = [M, sum, acc[head_dim]];
//  - the row's last slice to finish (a ticket per (row, head), reset by that
//    slice for the next launch) merges every slice in slice order, online
//    softmax style, and writes the head's output; a row of one slice writes
//    it directly (the merge of one slice would change no bit).
// Keys past the position are never read or added; slices past the row's
// keys do nothing.
constexpr int kDecodeKeysPerWarp = 8;
constexpr int kDecodeLanesPerKey = 32 / kDecodeKeysPerWarp;
constexpr int kDecodeWarps = kDecodeSplitBlocks * kKvBlockTokens / kDecodeKeysPerWarp;
constexpr int kDecodePassChunks = 32;  // chunks of a row per pass: one per lane for values
constexpr int kDecodeKeyChunks = kDecodePassChunks / kDecodeLanesPerKey;  // per lane per pass
static_assert(kKvBlockTokens % kDecodeKeysPerWarp == 0, "a warp's keys lie in one KV block");
static_assert(kDecodeWarps <= 32, "one lane per warp merges the warps' maxima");
static_assert(kMaxHeadDim <= kDecodeWarps * 32, "a thread per dimension merges the warps");

// acc += weight * value, component by component.
__device__ __forceinline__ void add_weighted(float weight, float4 value, float4& acc) {
  acc.x = __fmaf_rn(weight, value.x, acc.x);
  acc.y = __fmaf_rn(weight, value.y, acc.y);
  acc.z = __fmaf_rn(weight, value.z, acc.z);
  acc.w = __fmaf_rn(weight, value.w, acc.w);
}
__device__ __forceinline__ void add_weighted(float weight, float value, float& acc) {
  acc = __fmaf_rn(weight, value, acc);
}

// Butterflies over the lanes of one key (p) and over the keys (k) of lane
// 4k + p: every lane ends with the same bits, as in warp_sum.
__device__ __forceinline__ float sum_over_parts(float value) {
#pragma unroll
  for (int offset = 1; offset < kDecodeLanesPerKey; offset *= 2)
    value = __fadd_rn(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}
__device__ __forceinline__ float sum_over_keys(float value) {
#pragma unroll
  for (int offset = 16; offset >= kDecodeLanesPerKey; offset /= 2)
    value = __fadd_rn(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}

// The warp's keys of slice `first_block`: rows first .. first + 7 of one KV
// block, `live` of them at or before the row's position (0: none). Key
// `fresh` (the row's own position, when its block computed it) is read from
// the block's shared copy instead of the cache.
struct WarpKeys {
  const float* keys;    // the warp's first key row (null when live is 0)
  const float* values;
  int live;
  int fresh = -1;
  const float* fresh_key = nullptr;
  const float* fresh_value = nullptr;
};

__device__ WarpKeys warp_keys(const PagedKv& kv, const RowMeta& row, int kv_head, int first_block) {
  const int position = first_block * kKvBlockTokens + threadIdx.x / 32 * kDecodeKeysPerWarp;
  WarpKeys mine{nullptr, nullptr, min(kDecodeKeysPerWarp, max(0, row.position - position + 1))};
  if (mine.live > 0) {
    const int block = kv.block_tables[row.slot * kv.max_blocks + position / kKvBlockTokens];
    const int64_t offset =
        ((static_cast<int64_t>(block) * kv.kv_heads + kv_head) * kKvBlockTokens +
         position % kKvBlockTokens) * kv.head_dim;
    mine.keys = kv.keys + offset;
    mine.values = kv.values + offset;
  }
  return mine;
}

// Pass `pass` of the warp's key rows (`chunks` chunks a row): lane 4k + p
// takes chunks p, p + 4, ..., p + 28 of the pass of key k, so 4 neighbouring
// lanes read 4 neighbouring chunks.
template <bool kVec>
__device__ __forceinline__ void load_key_chunks(const WarpKeys& mine, int chunks, int pass,
                                                ChunkOf<kVec> (&out)[kDecodeKeyChunks]) {
  const int lane = threadIdx.x % 32;
  const int key = lane / kDecodeLanesPerKey;
  const int first = pass * kDecodePassChunks + lane % kDecodeLanesPerKey;
  const ChunkOf<kVec>* rows = reinterpret_cast<const ChunkOf<kVec>*>(mine.keys);
  const ChunkOf<kVec>* fresh = reinterpret_cast<const ChunkOf<kVec>*>(mine.fresh_key);
#pragma unroll
  for (int i = 0; i < kDecodeKeyChunks; ++i) {
    const int c = first + kDecodeLanesPerKey * i;
    out[i] = key < mine.live && c < chunks ? (key == mine.fresh ? fresh[c] : rows[key * chunks + c])
                                           : ChunkOf<kVec>{};
  }
}

// Pass `pass` of the warp's value rows: lane i takes chunk i of the pass of
// every key (a warp reads a row's pass in one go).
template <bool kVec>
__device__ __forceinline__ void load_value_chunks(const WarpKeys& mine, int chunks, int pass,
                                                  ChunkOf<kVec> (&out)[kDecodeKeysPerWarp]) {
  const int c = pass * kDecodePassChunks + threadIdx.x % 32;
  const ChunkOf<kVec>* rows = reinterpret_cast<const ChunkOf<kVec>*>(mine.values);
  const ChunkOf<kVec>* fresh = reinterpret_cast<const ChunkOf<kVec>*>(mine.fresh_value);
#pragma unroll
  for (int k = 0; k < kDecodeKeysPerWarp; ++k)
    out[k] = k < mine.live && c < chunks ? (k == mine.fresh ? fresh[c] : rows[k * chunks + c])
                                         : ChunkOf<kVec>{};
}

// Lane 4k + p's part of key k's dot product over one pass, chunks in order.
template <bool kVec>
__device__ __forceinline__ void add_key_products(const float* query, int chunks, int pass,
                                                 const ChunkOf<kVec> (&keys)[kDecodeKeyChunks],
                                                 float (&sums)[4]) {
  const int first = pass * kDecodePassChunks + threadIdx.x % kDecodeLanesPerKey;
  const ChunkOf<kVec>* q = reinterpret_cast<const ChunkOf<kVec>*>(query);
#pragma unroll
  for (int i = 0; i < kDecodeKeyChunks; ++i) {
    const int c = first + kDecodeLanesPerKey * i;
    if (c < chunks) add_products(q[c], keys[i], sums);
  }
}

// sum_k weight_k * values[k] over the warp's live keys in order; lane 4k
// holds key k's weight.
template <bool kVec>
__device__ __forceinline__ ChunkOf<kVec> weighted_values(const ChunkOf<kVec> (&values)[kDecodeKeysPerWarp],
                                                         float weight, int live) {
  ChunkOf<kVec> acc{};
#pragma unroll
  for (int k = 0; k < kDecodeKeysPerWarp; ++k) {
    const float w = __shfl_sync(0xffffffffu, weight, k * kDecodeLanesPerKey);
    if (k < live) add_weighted(w, values[k], acc);
  }
  return acc;
}

// Dimension d = threadIdx.x of the accumulators of slices s0 .. s0 + 7 of
// the row (0 past `count` or head_dim).
__device__ __forceinline__ void load_slice_parts(const float* first, int s0, int count, int stride,
                                                 int hd, float (&parts)[8]) {
  const int d = threadIdx.x;
#pragma unroll
  for (int u = 0; u < 8; ++u)
    parts[u] = s0 + u < count && d < hd ? __ldcg(first + (s0 + u) * stride + 2 + d) : 0.f;
}

// The row's `count` slices [max, sum, acc[head_dim]], `stride` floats apart,
// merged in slice order as an online softmax takes them: factor_s =
// exp(max_s - max), sum and acc += part_s * factor_s; thread d owns dimension
// d and writes acc * (1 / sum) to target[d]. Lane i of each warp holds slice
// s0 + i's max, sum and factor (32 slices at a time), and the first 8 slices'
// accumulators are loaded with the maxima: up to 8 slices wait for memory once.
__device__ void merge_slices(const float* first, int count, int stride, int hd, float* target) {
  const int lane = threadIdx.x % 32;
  const int d = threadIdx.x;
  float parts[8];
  load_slice_parts(first, 0, count, stride, hd, parts);
  float slice_max = -FLT_MAX, slice_sum = 0.f;
  if (lane < count) {
    slice_max = __ldcg(first + lane * stride);
    slice_sum = __ldcg(first + lane * stride + 1);
  }
  float merged_max = slice_max;
  for (int s = lane + 32; s < count; s += 32) merged_max = fmaxf(merged_max, __ldcg(first + s * stride));
  merged_max = warp_max(merged_max);

  float sum = 0.f, acc = 0.f, factor = 0.f;
  for (int s0 = 0; s0 < count; s0 += 8) {
    if (s0 % 32 == 0) {  // lane i moves on to slice s0 + i
      if (s0 > 0 && s0 + lane < count) {
        slice_max = __ldcg(first + (s0 + lane) * stride);
        slice_sum = __ldcg(first + (s0 + lane) * stride + 1);
      }
      factor = s0 + lane < count ? expf(__fsub_rn(slice_max, merged_max)) : 0.f;
    }
    if (s0 > 0) load_slice_parts(first, s0, count, stride, hd, parts);
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      const float f = __shfl_sync(0xffffffffu, factor, s0 % 32 + u);
      const float part_sum = __shfl_sync(0xffffffffu, slice_sum, s0 % 32 + u);
      if (s0 + u < count) {
        sum = __fmaf_rn(part_sum, f, sum);
        acc = __fmaf_rn(parts[u], f, acc);
      }
    }
  }
  if (d < hd) target[d] = __fmul_rn(acc, 1.0f / sum);
}

// The row's query head `head` as decode attention reads it (qkv_rope_cache's
// arithmetic, head_transform.cuh), into `query`, by one warp.
__device__ __forceinline__ void stage_fresh_query(const float* row_qkv, const HeadTransform& t,
                                                  const HeadShape& shape, const RowMeta& row,
                                                  int head, float* scratch, float* query) {
  const int lane = threadIdx.x % 32;
  const int hd = shape.head_dim;
  const HeadTables tables = load_head_tables(t, shape, head, rope_angle_position(row, true));
  HeadInputs in = load_head_inputs(row_qkv + head * hd, nullptr, hd);
  float rotated[kMaxHeadDimPerLane], unused[kMaxHeadDimPerLane];
  transform_head(in, tables, false, t.bias != nullptr, t.q_norm != nullptr, t.eps, hd,
                 t.bf16_inputs, scratch, rotated, unused);
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    if (lane + 32 * i < hd) query[lane + 32 * i] = rotated[i];
  }
}

// The row's key and value of kv head `kv_head` into `key` and `value`, by
// one warp; with `writes_cache`, into the cache slot of the row's position too.
__device__ __forceinline__ void stage_fresh_key(const float* row_qkv, const HeadTransform& t,
                                                const HeadShape& shape, const PagedKv& kv,
                                                const RowMeta& row, int kv_head, bool writes_cache,
                                                float* scratch, float* key, float* value) {
  const int lane = threadIdx.x % 32;
  const int hd = shape.head_dim;
  const int head = shape.heads + kv_head;  // in [q | k | v]
  const HeadTables tables = load_head_tables(t, shape, head, rope_angle_position(row, false));
  HeadInputs in = load_head_inputs(row_qkv + head * hd, row_qkv + (head + shape.kv_heads) * hd, hd);
  float rotated[kMaxHeadDimPerLane], value_out[kMaxHeadDimPerLane];
  transform_head(in, tables, true, t.bias != nullptr, t.k_norm != nullptr, t.eps, hd,
                 t.bf16_inputs, scratch, rotated, value_out);
  const int slot_position = cache_slot_position(row);
  float* cache_key =
      writes_cache ? cache_row(kv.keys, kv, row.slot, kv_head, slot_position) : nullptr;
  float* cache_value =
      writes_cache ? cache_row(kv.values, kv, row.slot, kv_head, slot_position) : nullptr;
#pragma unroll
  for (int i = 0; i < kMaxHeadDimPerLane; ++i) {
    const int d = lane + 32 * i;
    if (d >= hd) break;
    key[d] = rotated[i];
    value[d] = value_out[i];
    if (writes_cache) {
      cache_key[d] = rotated[i];
      cache_value[d] = value_out[i];
    }
  }
  __syncwarp();
}

// kFresh: the kernel also does qkv_rope_cache's work for its row
// (head_transform.cuh): the last warp turns the raw query into the staged
// one, and the warp holding the row's position computes that key and value
// and reads them from shared memory; the block of the kv head's first query
// head writes them to the cache for the steps after. Same bits as the two
// kernels, one launch a layer fewer. Without it q is read from qkv as
// transformed and the position's key from the cache.
template <bool kVec, bool kFresh>
__global__ void __launch_bounds__(kDecodeWarps * 32)
    attention_decode_kernel(const float* __restrict__ qkv, int qkv_stride,
                            const RowMeta* __restrict__ rows, HeadShape shape, PagedKv kv,
                            HeadTransform transform, float scale, int splits,
                            float* __restrict__ partials, unsigned int* __restrict__ tickets,
                            float* __restrict__ out) {
  constexpr int kFreshFloats = kFresh ? kMaxHeadDim : 1;
  // The warp that stages the query: in a row's last slice it most often holds no keys.
  constexpr int kQueryWarp = kDecodeWarps - 1;
  __shared__ __align__(16) float query[kMaxHeadDim];
  __shared__ __align__(16) float fresh_key[kFreshFloats];
  __shared__ __align__(16) float fresh_value[kFreshFloats];
  __shared__ float transform_scratch[2][kFreshFloats];
  __shared__ __align__(16) float warp_acc[kDecodeWarps][kMaxHeadDim];
  __shared__ float warp_max_score[kDecodeWarps];
  __shared__ float warp_weight_sum[kDecodeWarps];
  __shared__ bool last_slice;
  allow_next_kernel();  // launched as a dependent (dependent_launch.cuh)
  const int head = blockIdx.y;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int hd = shape.head_dim;
  const int chunks = hd / DecodeStage<kVec>::kWidth;  // of a key or value row
  const int passes = (chunks + kDecodePassChunks - 1) / kDecodePassChunks;
  float* target = out + (static_cast<int64_t>(blockIdx.x) * shape.heads + head) * hd;
  const RowMeta row = rows[blockIdx.x];
  if (row.position < 0) {  // padding rows still leave defined values behind
    wait_for_previous_kernel();
    if (blockIdx.z == 0) {
      for (int d = threadIdx.x; d < hd; d += blockDim.x) target[d] = 0.f;
    }
    return;
  }
  const int first_block = blockIdx.z * kDecodeSplitBlocks;
  const int row_blocks = row.position / kKvBlockTokens + 1;
  const int slices = decode_slices_for(row.position);
  if (slices > splits) __trap();  // the launch broke its contract: fail the step loudly
  // The whole block leaves (slice 0, which every row has, waits below).
  if (first_block >= row_blocks) return;

  // The first pass's keys and values are in flight while the query is
  // staged. Keys before the row's position were written by earlier passes
  // (a sequence has one row a step, and passes are ordered by their row
  // uploads), so a warp whose keys all lie before it loads them before the
  // kernel ahead has finished; the warp holding the position itself, which
  // that kernel writes (or this block computes), only after.
  const int kv_head = kv_head_of(head, shape);
  WarpKeys mine = warp_keys(kv, row, kv_head, first_block);
  const int first_key = first_block * kKvBlockTokens + warp * kDecodeKeysPerWarp;
  const bool holds_position = first_key <= row.position && row.position < first_key + kDecodeKeysPerWarp;
  const float* row_qkv = qkv + static_cast<int64_t>(blockIdx.x) * qkv_stride;
  // kFresh: the warps that transform a head do so first, then load their
  // keys (their registers are free by then).
  const bool loads_late = holds_position || (kFresh && warp == kQueryWarp);
  if constexpr (kFresh) {
    if (loads_late) {
      wait_for_previous_kernel();
      if (warp == kQueryWarp) {
        stage_fresh_query(row_qkv, transform, shape, row, head, transform_scratch[0], query);
      }
      if (holds_position) {
        stage_fresh_key(row_qkv, transform, shape, kv, row, kv_head,
                        head == first_head_of(kv_head, shape), transform_scratch[1], fresh_key,
                        fresh_value);
        mine.fresh = row.position - first_key;
        mine.fresh_key = fresh_key;
        mine.fresh_value = fresh_value;
      }
    }
  }
  ChunkOf<kVec> keys[kDecodeKeyChunks], values[kDecodeKeysPerWarp];
  if (!loads_late) {
    load_key_chunks<kVec>(mine, chunks, 0, keys);
    load_value_chunks<kVec>(mine, chunks, 0, values);
  }
  wait_for_previous_kernel();
  if constexpr (!kFresh) {
    const float* source = row_qkv + head * hd;
    for (int d = threadIdx.x; d < hd; d += blockDim.x) query[d] = source[d];
  }
  if (loads_late) {
    load_key_chunks<kVec>(mine, chunks, 0, keys);
    load_value_chunks<kVec>(mine, chunks, 0, values);
  }
  __syncthreads();

  // Scores: lane 4k + p ends with key k's.
  float sums[4] = {0.f, 0.f, 0.f, 0.f};
  for (int pass = 0; pass < passes; ++pass) {
    if (pass > 0) load_key_chunks<kVec>(mine, chunks, pass, keys);
    add_key_products<kVec>(query, chunks, pass, keys, sums);
  }
  const float dot = sum_over_parts(__fadd_rn(__fadd_rn(sums[0], sums[1]), __fadd_rn(sums[2], sums[3])));
  const bool live = lane / kDecodeLanesPerKey < mine.live;
  const float score = live ? __fmul_rn(dot, scale) : -FLT_MAX;

  // The slice's max, then every key's weight against it.
  const float max_here = warp_max(score);
  if (lane == 0) warp_max_score[warp] = max_here;
  __syncthreads();
  const float slice_max = warp_max(lane < kDecodeWarps ? warp_max_score[lane] : -FLT_MAX);
  const float weight = live ? expf(__fsub_rn(score, slice_max)) : 0.f;
  const float weight_sum = sum_over_keys(weight);
  if (lane == 0) warp_weight_sum[warp] = weight_sum;

  // The warp's weighted values, pass by pass: lane i owns chunk i of a pass.
  for (int pass = 0; pass < passes; ++pass) {
    if (pass > 0) load_value_chunks<kVec>(mine, chunks, pass, values);
    const ChunkOf<kVec> acc = weighted_values<kVec>(values, weight, mine.live);
    const int c = pass * kDecodePassChunks + lane;
    if (c < chunks) reinterpret_cast<ChunkOf<kVec>*>(warp_acc[warp])[c] = acc;
  }
  __syncthreads();

  // The slice: the live warps in warp order, thread d owning dimension d.
  const int live_warps =
      min(kDecodeWarps, (row.position - first_block * kKvBlockTokens) / kDecodeKeysPerWarp + 1);
  const int d = threadIdx.x;
  float sum = 0.f, acc = 0.f;
  for (int w = 0; w < live_warps; ++w) {
    sum = __fadd_rn(sum, warp_weight_sum[w]);
    if (d < hd) acc = __fadd_rn(acc, warp_acc[w][d]);
  }
  if (slices == 1) {
    if (d < hd) target[d] = __fmul_rn(acc, 1.0f / sum);
    return;
  }
  const int64_t pair = static_cast<int64_t>(blockIdx.x) * shape.heads + head;
  float* row_slices = partials + pair * splits * (hd + 2);
  float* slice = row_slices + static_cast<int64_t>(blockIdx.z) * (hd + 2);
  if (d == 0) {
    slice[0] = slice_max;
    slice[1] = sum;
  }
  if (d < hd) slice[2 + d] = acc;

  // The row's last slice merges them all.
  __threadfence();  // this slice's partial is visible before its ticket is taken
  __syncthreads();
  if (threadIdx.x == 0) {
    last_slice = atomicAdd(tickets + pair, 1u) == static_cast<unsigned int>(slices) - 1;
    if (last_slice) tickets[pair] = 0;  // every other slice has taken its ticket
  }
  __syncthreads();
  if (!last_slice || warp * 32 >= hd) return;
  __threadfence();
  merge_slices(row_slices, slices, hd + 2, hd, target);
}

bool shape_ok(const HeadShape& shape) {
  return shape.head_dim > 0 && shape.head_dim <= kMaxHeadDim && shape.kv_heads > 0 &&
         shape.heads % shape.kv_heads == 0;
}

// 16-byte copies need 16-byte rows and bases (the pools come from cudaMalloc).
bool vector_rows(const HeadShape& shape, const PagedKv& kv) {
  return shape.head_dim % 4 == 0 && reinterpret_cast<uintptr_t>(kv.keys) % 16 == 0 &&
         reinterpret_cast<uintptr_t>(kv.values) % 16 == 0;
}

}  // namespace

cudaError_t launch_attention_prefill(const float* qkv, int qkv_stride, const RowMeta* rows,
                                     int row_count, HeadShape shape, PagedKv kv, float scale,
                                     bool lo_halves, float* out, cudaStream_t stream) {
  if (row_count == 0) return cudaSuccess;
  if (!shape_ok(shape)) return cudaErrorInvalidValue;
  if (prefill_mma_applies(shape, vector_rows(shape, kv))) {
    return launch_attention_prefill_mma(qkv, qkv_stride, rows, row_count, shape, kv, scale,
                                        lo_halves, PrefillOut{out}, stream);
  }
  if (shape.head_dim <= kTileHeadDim) {
    const dim3 grid((row_count + kPrefillRows - 1) / kPrefillRows, shape.heads);
    if (vector_rows(shape, kv)) {
      attention_prefill_tiled_kernel<true><<<grid, kPrefillRows * 32, 0, stream>>>(
          qkv, qkv_stride, rows, row_count, shape, kv, scale, out);
    } else {
      attention_prefill_tiled_kernel<false><<<grid, kPrefillRows * 32, 0, stream>>>(
          qkv, qkv_stride, rows, row_count, shape, kv, scale, out);
    }
    return cudaGetLastError();
  }
  const dim3 grid(row_count, (shape.heads + kWarpsPerBlock - 1) / kWarpsPerBlock);
  attention_prefill_kernel<<<grid, kWarpsPerBlock * 32, 0, stream>>>(qkv, qkv_stride, rows, shape,
                                                                     kv, scale, out);
  return cudaGetLastError();
}

cudaError_t launch_attention_prefill_hi_lo(const float* qkv, int qkv_stride, const RowMeta* rows,
                                           int row_count, HeadShape shape, PagedKv kv, float scale,
                                           bool lo_halves, float* out, Element* hi, Element* lo,
                                           cudaStream_t stream) {
  if (row_count == 0) return cudaSuccess;
  if (!shape_ok(shape)) return cudaErrorInvalidValue;
  if (prefill_mma_applies(shape, vector_rows(shape, kv))) {
    return launch_attention_prefill_mma(qkv, qkv_stride, rows, row_count, shape, kv, scale,
                                        lo_halves, PrefillOut{nullptr, hi, lo}, stream);
  }
  const cudaError_t status = launch_attention_prefill(qkv, qkv_stride, rows, row_count, shape, kv,
                                                      scale, lo_halves, out, stream);
  if (status != cudaSuccess) return status;
  return launch_split_hi_lo(out, std::int64_t{row_count} * shape.heads * shape.head_dim, hi, lo,
                            stream);
}

cudaError_t launch_attention_decode(const float* qkv, int qkv_stride, const RowMeta* rows,
                                    int row_count, HeadShape shape, PagedKv kv,
                                    const HeadTransform* transform, float scale, int splits,
                                    float* partials, unsigned int* tickets, float* out,
                                    cudaStream_t stream) {
  if (row_count == 0) return cudaSuccess;
  if (!shape_ok(shape) || splits <= 0) return cudaErrorInvalidValue;
  if (transform != nullptr && shape.head_dim % 2 != 0) return cudaErrorInvalidValue;  // RoPE pairs
  const dim3 grid(row_count, shape.heads, splits);
  const bool vec = vector_rows(shape, kv);
  const auto kernel = transform != nullptr ? (vec ? attention_decode_kernel<true, true>
                                                  : attention_decode_kernel<false, true>)
                                           : (vec ? attention_decode_kernel<true, false>
                                                  : attention_decode_kernel<false, false>);
  return launch_dependent(kernel, grid, kDecodeWarps * 32, stream, qkv, qkv_stride, rows, shape,
                          kv, transform != nullptr ? *transform : HeadTransform{}, scale, splits,
                          partials, tickets, out);
}

}  // namespace algenta::cuda
