#include "device_sampler.hpp"

#include <algorithm>
#include <climits>
#include <string>

#include "plugin_support/plugin_error.hpp"
#include "sampling/penalties.hpp"
#include "sampling/refusals.hpp"

namespace algenta::cuda {

// Where each buffer sits in the sampler's one allocation.
struct DeviceSampler::Layout {
  std::size_t scores, sorted_scores, ids, sorted_ids, segment_begin, segment_end, chunk_sums;
  std::size_t sort_temp, params, results, history, banned;
  std::size_t sort_temp_bytes = 0;
  int chunks_per_row = 0;

  Layout(DeviceArena& arena, int vocab) {
    const std::size_t cells = static_cast<std::size_t>(kRowsAtOnce) * static_cast<std::size_t>(vocab);
    chunks_per_row = (vocab + kNucleusChunkRanks - 1) / kNucleusChunkRanks;
    check_cuda(sampler_sort_temp_bytes(kRowsAtOnce, vocab, &sort_temp_bytes),
               "sizing the sampler's sort");
    scores = arena.plan(cells * sizeof(double));
    sorted_scores = arena.plan(cells * sizeof(double));
    ids = arena.plan(cells * sizeof(std::int32_t));
    sorted_ids = arena.plan(cells * sizeof(std::int32_t));
    segment_begin = arena.plan(kRowsAtOnce * sizeof(std::int32_t));
    segment_end = arena.plan(kRowsAtOnce * sizeof(std::int32_t));
    chunk_sums = arena.plan(static_cast<std::size_t>(kRowsAtOnce) * chunks_per_row * sizeof(double));
    sort_temp = arena.plan(sort_temp_bytes);
    params = arena.plan(kRowsAtOnce * sizeof(SamplingRowParams));
    results = arena.plan(kRowsAtOnce * sizeof(SamplingRowResult));
    // Distinct history tokens, distinct banned ids: neither exceeds the
    // vocabulary, however long the history the host sends.
    history = arena.plan(cells * sizeof(HistoryToken));
    banned = arena.plan(cells * sizeof(std::int32_t));
  }
};

namespace {

[[noreturn]] void refuse(const SampledRow& row, const std::string& why) {
  throw plugin::StatusError{ALGENTA_STATUS_INTERNAL, "sequence " + std::to_string(row.sequence_id) +
                                                         ": drawing its token failed: " + why};
}

std::string refusal_text(const SamplingRowResult& result, int vocab) {
  const auto index = static_cast<std::size_t>(result.status_index);
  switch (result.status) {
    case kNanLogit:
      return sampling::bad_logit_text(index, true);
    case kInfiniteLogit:
      return sampling::bad_logit_text(index, false);
    case kNoAllowedToken:
      return sampling::no_allowed_token_text(static_cast<std::size_t>(vocab));
    case kPenaltyOverflow:
      return sampling::leaves_double_range_text(index, "the penalties");
    case kTemperatureOverflow:
      return sampling::leaves_double_range_text(index, "dividing by temperature");
    default:
      return "the device sampler reported status " + std::to_string(result.status);
  }
}

// The penalties' view of the history, as the host sampler walks it.
void append_history(const AlgentaSampling& s, std::vector<HistoryToken>& history) {
  const auto tokens = sampling::penalty_history(
      {s.prompt_tokens, s.prompt_token_count}, {s.output_tokens, s.output_token_count},
      s.repetition_penalty != 1.0, s.frequency_penalty != 0.0 || s.presence_penalty != 0.0);
  for (const sampling::PenaltyToken& t : tokens) history.push_back({t.token, t.output_count});
}

void append_banned(const AlgentaSampling& s, std::vector<std::int32_t>& banned) {
  const std::size_t start = banned.size();
  banned.insert(banned.end(), s.banned_tokens, s.banned_tokens + s.banned_token_count);
  std::sort(banned.begin() + static_cast<std::ptrdiff_t>(start), banned.end());
  banned.erase(std::unique(banned.begin() + static_cast<std::ptrdiff_t>(start), banned.end()),
               banned.end());
}

SamplingRowParams params_of(const SampledRow& row, std::size_t history_offset,
                            std::size_t banned_offset) {
  const AlgentaSampling& s = *row.sampling;
  SamplingRowParams p{};
  p.temperature = s.temperature;
  p.top_p = s.top_p;
  p.min_p = s.min_p;
  p.repetition_penalty = s.repetition_penalty;
  p.frequency_penalty = s.frequency_penalty;
  p.presence_penalty = s.presence_penalty;
  p.seed = s.seed;
  p.position = row.position;
  p.logits_row = row.logits_row;
  // A k past the vocabulary keeps every token, as k = off does.
  p.top_k = static_cast<std::int32_t>(std::clamp<std::int64_t>(s.top_k, -1, INT_MAX));
  p.want_logprob = s.want_logprob == 1 ? 1 : 0;
  p.top_logprobs = p.want_logprob == 1
                       ? static_cast<std::int32_t>(std::min<std::uint32_t>(s.top_logprobs,
                                                                           kSamplerMaxTopLogprobs))
                       : 0;
  p.history_offset = static_cast<std::int32_t>(history_offset);
  p.banned_offset = static_cast<std::int32_t>(banned_offset);
  return p;
}

template <typename T>
void upload(T* device, const std::vector<T>& host, cudaStream_t stream, const char* what) {
  if (host.empty()) return;
  check_cuda(cudaMemcpyAsync(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice,
                             stream),
             what);
}

}  // namespace

std::uint64_t DeviceSampler::bytes_for(int vocab) {
  DeviceArena sizing;
  const Layout layout(sizing, vocab);
  return sizing.bytes();
}

DeviceSampler::DeviceSampler(int vocab) : vocab_(vocab) {
  const Layout layout(arena_, vocab);
  arena_.allocate("the device sampler's buffers");
  buffers_.scores = arena_.at<double>(layout.scores);
  buffers_.sorted_scores = arena_.at<double>(layout.sorted_scores);
  buffers_.ids = arena_.at<std::int32_t>(layout.ids);
  buffers_.sorted_ids = arena_.at<std::int32_t>(layout.sorted_ids);
  buffers_.segment_begin = arena_.at<std::int32_t>(layout.segment_begin);
  buffers_.segment_end = arena_.at<std::int32_t>(layout.segment_end);
  buffers_.chunk_sums = arena_.at<double>(layout.chunk_sums);
  buffers_.chunks_per_row = layout.chunks_per_row;
  buffers_.sort_temp = arena_.at<void>(layout.sort_temp);
  buffers_.sort_temp_bytes = layout.sort_temp_bytes;
  params_ = arena_.at<SamplingRowParams>(layout.params);
  results_ = arena_.at<SamplingRowResult>(layout.results);
  history_ = arena_.at<HistoryToken>(layout.history);
  banned_ = arena_.at<std::int32_t>(layout.banned);
  check_cuda(launch_sampler_ids(buffers_, kRowsAtOnce, vocab_, nullptr), "filling the sampler's ids");
  check_cuda(cudaDeviceSynchronize(), "filling the sampler's ids");
}

std::uint64_t DeviceSampler::draw(std::span<const SampledRow> rows, const float* logits,
                                  cudaStream_t stream) {
  std::uint64_t copied = 0;
  for (std::size_t first = 0; first < rows.size(); first += kRowsAtOnce) {
    copied += draw_group(rows.subspan(first, std::min<std::size_t>(kRowsAtOnce, rows.size() - first)),
                         logits, stream);
  }
  return copied;
}

std::uint64_t DeviceSampler::draw_group(std::span<const SampledRow> rows, const float* logits,
                                        cudaStream_t stream) {
  std::vector<SamplingRowParams> params;
  std::vector<HistoryToken> history;
  std::vector<std::int32_t> banned;
  bool rank = false, logprobs = false;
  for (const SampledRow& row : rows) {
    const std::size_t history_start = history.size(), banned_start = banned.size();
    append_history(*row.sampling, history);
    append_banned(*row.sampling, banned);
    SamplingRowParams p = params_of(row, history_start, banned_start);
    p.history_count = static_cast<std::int32_t>(history.size() - history_start);
    p.banned_count = static_cast<std::int32_t>(banned.size() - banned_start);
    rank = rank || p.top_k > 0 || p.top_p < 1.0;
    logprobs = logprobs || p.want_logprob == 1;
    params.push_back(p);
  }
  upload(params_, params, stream, "uploading sampling parameters");
  upload(history_, history, stream, "uploading sampling history");
  upload(banned_, banned, stream, "uploading banned tokens");
  const int count = static_cast<int>(rows.size());
  check_cuda(launch_sampler(logits, count, vocab_, params_, history_, banned_, buffers_, rank,
                            logprobs, results_, stream),
             "launching the device sampler");
  std::vector<SamplingRowResult> results(rows.size());
  check_cuda(cudaMemcpyAsync(results.data(), results_, results.size() * sizeof(SamplingRowResult),
                             cudaMemcpyDeviceToHost, stream),
             "copying sampled tokens");
  check_cuda(cudaStreamSynchronize(stream), "drawing sampled tokens");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SampledRow& row = rows[i];
    const SamplingRowResult& result = results[i];
    if (result.status != kSampled) refuse(row, refusal_text(result, vocab_));
    *row.token = result.token;
    const AlgentaSampling& s = *row.sampling;
    if (s.want_logprob != 1) continue;
    *s.logprob = result.logprob;
    if (s.top_logprobs == 0) continue;
    const int written = std::min<int>(result.top_count, static_cast<int>(s.top_logprobs));
    for (int k = 0; k < written; ++k) {
      s.top_tokens[k] = result.top_tokens[k];
      s.top_values[k] = result.top_values[k];
    }
    *s.top_count = static_cast<std::uint32_t>(written);
  }
  return results.size() * sizeof(SamplingRowResult);
}

}  // namespace algenta::cuda
