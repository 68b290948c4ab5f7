// Drawing tokens on the device (ABI 1.2 engine sampling): the host sampler's
// pipeline (core/sampling/SAMPLING.md) over rows of logits that stay on the
// card, giving the host's token bit for bit: the same double arithmetic
// (draw_math.hpp, no FMA), the same fixed summation orders, the same
// tie rules. One block of kSamplerThreads per row, so a row's draw never
// depends on the other rows of the batch. Only the tokens (and logprobs,
// when asked) come back.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace algenta::cuda {

// Threads per row: also the 1,024 lanes that top-p's total W is summed in.
inline constexpr int kSamplerThreads = 1024;
inline constexpr int kNucleusChunkRanks = 128;  // top-p's chunks of ranks
inline constexpr int kSamplerMaxTopLogprobs = 20;

// A token of the request's history (prompt and output, each once) and how
// often it appears in the output: what the penalties need.
struct HistoryToken {
  std::int32_t token;
  std::int32_t output_count;
};

struct SamplingRowParams {
  double temperature;  // 0 = greedy
  double top_p;        // 1 = off
  double min_p;        // 0 = off
  double repetition_penalty;
  double frequency_penalty;
  double presence_penalty;
  std::uint64_t seed;
  std::uint64_t position;      // of the token being drawn
  std::int32_t logits_row;     // row of the logits buffer
  std::int32_t top_k;          // <= 0 = off
  std::int32_t want_logprob;   // 1 = report logprob (and top_logprobs)
  std::int32_t top_logprobs;   // 0 .. kSamplerMaxTopLogprobs
  std::int32_t history_offset; // HistoryToken entries of this row
  std::int32_t history_count;
  std::int32_t banned_offset;  // distinct banned ids of this row
  std::int32_t banned_count;
};

// What the host sampler would refuse, with the token index it names.
enum SamplingStatus : std::int32_t {
  kSampled = 0,
  kNanLogit,
  kInfiniteLogit,       // +inf
  kNoAllowedToken,      // every logit -inf
  kPenaltyOverflow,     // a finite logit left the double range after the penalties
  kTemperatureOverflow  // ... after dividing by the temperature
};

struct SamplingRowResult {
  std::int32_t token;
  std::int32_t status;
  std::int32_t status_index;
  std::int32_t top_count;
  double logprob;
  std::int32_t top_tokens[kSamplerMaxTopLogprobs];
  double top_values[kSamplerMaxTopLogprobs];
  // The draw's working values, handed from one kernel to the next.
  double z_max;           // the largest tempered score
  std::int32_t allowed;   // tokens not -inf
  std::int32_t drawn;     // 1: token is final (greedy, or drawn)
};

// Device buffers for `rows` rows of `vocab` tokens (sampler_buffer_layout
// sizes them).
struct SamplerBuffers {
  double* scores;               // rows x vocab: penalized, tempered
  double* sorted_scores;        // rows x vocab: (score desc, id asc)
  std::int32_t* ids;            // rows x vocab: 0 .. vocab-1 in every row
  std::int32_t* sorted_ids;     // rows x vocab
  std::int32_t* segment_begin;  // rows: a row's sort range (empty when unsorted)
  std::int32_t* segment_end;
  double* chunk_sums;           // rows x chunks_per_row
  int chunks_per_row = 0;
  void* sort_temp = nullptr;
  std::size_t sort_temp_bytes = 0;
};

// Bytes of temporary storage the ranking sort needs for rows x vocab.
cudaError_t sampler_sort_temp_bytes(int rows, int vocab, std::size_t* bytes);

// Fills buffers.ids once (0 .. vocab-1 per row).
cudaError_t launch_sampler_ids(const SamplerBuffers& buffers, int rows, int vocab,
                               cudaStream_t stream);

// Draws one token per row of params (rows <= what the buffers hold) from
// logits[params[r].logits_row]; results[r] gets the token or the refusal.
// rank: some row uses top-k or top-p (they need the ranking sort);
// logprobs: some row wants logprobs.
cudaError_t launch_sampler(const float* logits, int rows, int vocab, const SamplingRowParams* params,
                           const HistoryToken* history, const std::int32_t* banned,
                           const SamplerBuffers& buffers, bool rank, bool logprobs,
                           SamplingRowResult* results, cudaStream_t stream);

}  // namespace algenta::cuda
