#include "chunk_sampling.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "plugin_support/plugin_error.hpp"
#include "sampling/logprobs.hpp"
#include "sampling/sampler.hpp"
#include "sampling/sampling_params.hpp"

namespace algenta::decoder {
namespace {

std::string sequence_text(std::uint64_t id) { return "sequence " + std::to_string(id); }

[[noreturn]] void refuse(std::uint64_t sequence_id, const std::string& message) {
  throw plugin::StatusError{ALGENTA_STATUS_INVALID_ARGUMENT,
                            sequence_text(sequence_id) + ": sampling " + message};
}

sampling::SamplingParams params_of(const AlgentaSampling& s) {
  sampling::SamplingParams params;
  params.temperature = s.temperature;
  params.top_p = s.top_p;
  params.top_k = s.top_k;
  params.min_p = s.min_p;
  params.presence_penalty = s.presence_penalty;
  params.frequency_penalty = s.frequency_penalty;
  params.repetition_penalty = s.repetition_penalty;
  params.logprobs = s.want_logprob == 1;
  params.top_logprobs = static_cast<int>(std::min<std::uint32_t>(s.top_logprobs, 1u << 20));
  return params;
}

void check_ids(std::uint64_t sequence_id, const char* field, const std::int32_t* ids,
               std::size_t count, std::size_t vocab) {
  if (count > 0 && ids == nullptr) {
    refuse(sequence_id, std::string(field) + " is NULL with a count of " + std::to_string(count));
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= vocab) {
      refuse(sequence_id, std::string(field) + "[" + std::to_string(i) + "] is " +
                              std::to_string(ids[i]) + ", outside the vocabulary [0, " +
                              std::to_string(vocab) + ")");
    }
  }
}

std::span<const std::int32_t> ids_of(const std::int32_t* ids, std::size_t count) {
  return count == 0 ? std::span<const std::int32_t>() : std::span<const std::int32_t>(ids, count);
}

}  // namespace

const AlgentaSampling* checked_sampling(const AlgentaSequenceChunk& chunk, std::size_t vocab) {
  if (!ALGENTA_STRUCT_HAS(&chunk, AlgentaSequenceChunk, sampling) || chunk.sampling == nullptr) {
    return nullptr;
  }
  const AlgentaSampling& s = *chunk.sampling;
  const std::uint64_t id = chunk.sequence_id;
  if (s.struct_size < ALGENTA_Sampling_STRUCT_SIZE_1_2) {
    refuse(id, "struct_size is " + std::to_string(s.struct_size) +
                   "; an AlgentaSampling of ABI 1.2 takes " +
                   std::to_string(ALGENTA_Sampling_STRUCT_SIZE_1_2));
  }
  if (s.want_logprob > 1) {
    refuse(id, "want_logprob is " + std::to_string(s.want_logprob) + "; allowed: 0 or 1");
  }
  try {
    sampling::validate(params_of(s));
  } catch (const sampling::SamplingError& e) {
    refuse(id, e.what());
  }
  check_ids(id, "prompt_tokens", s.prompt_tokens, s.prompt_token_count, vocab);
  check_ids(id, "output_tokens", s.output_tokens, s.output_token_count, vocab);
  check_ids(id, "banned_tokens", s.banned_tokens, s.banned_token_count, vocab);
  if (s.want_logprob == 1 && s.logprob == nullptr) refuse(id, "logprob is NULL with want_logprob 1");
  if (s.top_logprobs > 0 &&
      (s.top_tokens == nullptr || s.top_values == nullptr || s.top_count == nullptr)) {
    refuse(id, "top_tokens, top_values and top_count must be set for top_logprobs " +
                   std::to_string(s.top_logprobs));
  }
  return chunk.sampling;
}

std::int32_t draw_token(const AlgentaSampling& s, std::span<const float> logits,
                        std::uint64_t position, std::uint64_t sequence_id) {
  std::vector<float> banned;
  std::span<const float> row = logits;
  if (s.banned_token_count > 0) {
    banned.assign(logits.begin(), logits.end());
    for (std::size_t i = 0; i < s.banned_token_count; ++i) {
      banned[static_cast<std::size_t>(s.banned_tokens[i])] = -std::numeric_limits<float>::infinity();
    }
    row = banned;
  }
  // Logprobs describe the raw logits, not the draw's knobs: they are taken
  // below, as the host's generation does.
  sampling::SamplingParams params = params_of(s);
  params.logprobs = false;
  params.top_logprobs = 0;
  std::int32_t token = 0;
  try {
    token = sampling::sample_token(params, {row, ids_of(s.prompt_tokens, s.prompt_token_count),
                                            ids_of(s.output_tokens, s.output_token_count), s.seed,
                                            position})
                .token;
  } catch (const sampling::SamplingError& e) {
    throw plugin::StatusError{ALGENTA_STATUS_INTERNAL,
                              sequence_text(sequence_id) + ": drawing its token failed: " + e.what()};
  }
  if (s.want_logprob == 1) {
    const sampling::LogSoftmax log_softmax(logits);
    *s.logprob = log_softmax.logprob(token);
    if (s.top_logprobs > 0) {
      const std::vector<sampling::TokenLogprob> top =
          log_softmax.top(static_cast<int>(s.top_logprobs));
      for (std::size_t i = 0; i < top.size(); ++i) {
        s.top_tokens[i] = top[i].token;
        s.top_values[i] = top[i].logprob;
      }
      *s.top_count = static_cast<std::uint32_t>(top.size());
    }
  }
  return token;
}

}  // namespace algenta::decoder
