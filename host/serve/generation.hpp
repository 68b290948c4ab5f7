// One request's decoding, from the engine's output at each step to the text
// and logprobs the client gets: sampling (core/sampling), end of sequence and
// stop ids, stop strings, max_tokens, and streaming detokenization that never
// splits a UTF-8 character. It owns no engine: the loop feeds it one step's
// logits (or the engine's greedy token) at a time. Without a tokenizer
// (synthetic weights) every text is empty, each token's logprobs go out with
// it, and a logprob's token reads "token_id:ID" (vLLM's spelling with
// --return-tokens-as-token-ids); stop strings then cannot be asked for.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/engine_session.hpp"
#include "openai/responses.hpp"
#include "sampling/logprobs.hpp"
#include "sampling/sampling_params.hpp"
#include "serve/stop_strings.hpp"
#include "tokenizer/stream_decoder.hpp"

namespace algenta::serve {

struct GenerationSpec {
  std::vector<std::int32_t> prompt;
  sampling::SamplingParams params;  // logprobs and top_logprobs included
  std::uint64_t seed = 0;
  std::uint32_t max_tokens = 16;
  std::uint32_t min_tokens = 0;  // end ids cannot be sampled before this many tokens
  std::vector<std::string> stop_strings;
  std::vector<std::int32_t> stop_token_ids;
  std::vector<std::int32_t> eos_token_ids;
  bool ignore_eos = false;
};

// What one step gave the client.
struct StepOutput {
  std::int32_t token = -1;  // the token this step produced (counted even when it ends the answer)
  std::string text;  // may be empty (held back, or the token ended the answer)
  std::vector<openai::TokenLogprob> logprobs;  // one per token given out with `text`
  std::optional<openai::FinishReason> finished;
};

class Generation {
 public:
  // `tokenizer`: nullptr for none (then spec.stop_strings must be empty).
  Generation(GenerationSpec spec, const tokenizer::Tokenizer* tokenizer);

  const GenerationSpec& spec() const { return spec_; }
  // Whether the next token needs the engine's logits; otherwise the engine's
  // own greedy choice (argmax, lowest id on ties) is the token.
  bool needs_logits() const;
  // The position of the token the next step samples.
  std::uint64_t next_position() const { return spec_.prompt.size() + output_.size(); }
  const std::vector<std::int32_t>& output() const { return output_; }

  // One step: `logits` (vocabulary size, the last position's row) when
  // needs_logits(), else `engine_token`. Throws sampling::SamplingError.
  StepOutput advance(std::span<const float> logits, std::int32_t engine_token);

  // For an engine that draws tokens itself (ABI 1.2): what advance() would
  // do with the logits, as the engine's sampling request (spans into this
  // generation, valid until the next advance); none when needs_logits() is
  // false (the engine's greedy token will do).
  std::optional<host::ChunkSampling> engine_sampling(std::uint32_t vocab) const;
  // One step whose token the engine drew as engine_sampling() asked, with
  // the logprobs it reported.
  StepOutput advance_drawn(std::int32_t token, const host::DrawnLogprobs& drawn);

 private:
  bool is_end_token(std::int32_t token) const;
  // The chosen token (and its logprobs, when asked) taken into the answer.
  StepOutput accept(std::int32_t token, std::optional<openai::TokenLogprob> described);
  openai::TokenLogprob describe(std::int32_t token, double logprob,
                                const std::vector<sampling::TokenLogprob>& top) const;
  StepOutput finish(StepOutput out, openai::FinishReason reason);
  // The text `token` completes (empty without a tokenizer), and what is
  // still held back once no token follows.
  std::string push_text(std::int32_t token);
  std::string finish_text();

  GenerationSpec spec_;
  const tokenizer::Tokenizer* tokenizer_;
  std::optional<tokenizer::StreamDecoder> detokenizer_;  // none without a tokenizer
  StopStrings stops_;
  std::vector<std::int32_t> output_;
  std::vector<openai::TokenLogprob> held_logprobs_;  // tokens whose text is held back
  std::vector<float> masked_;  // scratch: logits with end ids masked (min_tokens)
  std::vector<std::int32_t> end_ids_;  // stop and eos ids >= 0, sorted, once each
};

}  // namespace algenta::serve
