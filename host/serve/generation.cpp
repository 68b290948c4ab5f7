#include "serve/generation.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "sampling/logprobs.hpp"
#include "sampling/sampler.hpp"

namespace algenta::serve {
namespace {

bool contains(const std::vector<std::int32_t>& ids, std::int32_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

bool has_penalties(const sampling::SamplingParams& p) {
  return p.presence_penalty != 0.0 || p.frequency_penalty != 0.0 || p.repetition_penalty != 1.0;
}

}  // namespace

Generation::Generation(GenerationSpec spec, const tokenizer::Tokenizer* tokenizer)
    : spec_(std::move(spec)), tokenizer_(tokenizer), stops_(spec_.stop_strings) {
  if (tokenizer_) detokenizer_.emplace(*tokenizer_, /*skip_special_tokens=*/true);
  for (const auto* ids : {&spec_.stop_token_ids, &spec_.eos_token_ids}) {
    for (std::int32_t id : *ids) {
      if (id >= 0) end_ids_.push_back(id);
    }
  }
  std::sort(end_ids_.begin(), end_ids_.end());
  end_ids_.erase(std::unique(end_ids_.begin(), end_ids_.end()), end_ids_.end());
}

std::string Generation::push_text(std::int32_t token) {
  return detokenizer_ ? detokenizer_->push(static_cast<std::uint32_t>(token)) : std::string();
}

std::string Generation::finish_text() {
  return detokenizer_ ? detokenizer_->finish() : std::string();
}

bool Generation::is_end_token(std::int32_t token) const {
  return contains(spec_.stop_token_ids, token) ||
         (!spec_.ignore_eos && contains(spec_.eos_token_ids, token));
}

bool Generation::needs_logits() const {
  const bool masks_end_ids = output_.size() < spec_.min_tokens &&
                             !(spec_.stop_token_ids.empty() && spec_.eos_token_ids.empty());
  return spec_.params.temperature != 0.0 || has_penalties(spec_.params) || spec_.params.logprobs ||
         masks_end_ids;
}

openai::TokenLogprob Generation::describe(std::int32_t token, double logprob,
                                          const std::vector<sampling::TokenLogprob>& top) const {
  const auto text_of = [this](std::int32_t id) {
    if (!tokenizer_) return "token_id:" + std::to_string(id);
    return tokenizer_->decode({static_cast<std::uint32_t>(id)}, /*skip_special_tokens=*/false);
  };
  openai::TokenLogprob out{text_of(token), logprob, {}};
  for (const sampling::TokenLogprob& alt : top) out.top.emplace_back(text_of(alt.token), alt.logprob);
  return out;
}

StepOutput Generation::finish(StepOutput out, openai::FinishReason reason) {
  out.finished = reason;
  out.logprobs = std::move(held_logprobs_);
  held_logprobs_.clear();
  return out;
}

std::optional<host::ChunkSampling> Generation::engine_sampling(std::uint32_t vocab) const {
  if (!needs_logits()) return std::nullopt;
  host::ChunkSampling sampling;
  sampling.params = spec_.params;
  sampling.seed = spec_.seed;
  sampling.prompt_tokens = spec_.prompt;
  sampling.output_tokens = output_;
  if (output_.size() < spec_.min_tokens) {
    // As advance() masks them: the end ids inside the vocabulary.
    const auto inside = std::lower_bound(end_ids_.begin(), end_ids_.end(),
                                         static_cast<std::int64_t>(vocab));
    sampling.banned_tokens = std::span<const std::int32_t>(end_ids_.data(), inside - end_ids_.begin());
  }
  return sampling;
}

StepOutput Generation::advance(std::span<const float> logits, std::int32_t engine_token) {
  std::int32_t token = engine_token;
  std::optional<openai::TokenLogprob> described;
  if (needs_logits()) {
    std::span<const float> row = logits;
    if (output_.size() < spec_.min_tokens) {
      // min_tokens: the ids that would end the answer cannot be drawn yet.
      masked_.assign(logits.begin(), logits.end());
      for (std::int32_t id : end_ids_) {
        if (std::size_t(id) < masked_.size()) masked_[id] = -std::numeric_limits<float>::infinity();
      }
      row = masked_;
    }
    sampling::SamplingParams params = spec_.params;
    params.logprobs = false;  // reported from the raw logits below
    params.top_logprobs = 0;
    token = sampling::sample_token(params, {row, spec_.prompt, output_, spec_.seed, next_position()}).token;
    if (spec_.params.logprobs) {
      const sampling::LogSoftmax log_softmax(logits);
      described = describe(token, log_softmax.logprob(token), log_softmax.top(spec_.params.top_logprobs));
    }
  }
  return accept(token, std::move(described));
}

StepOutput Generation::advance_drawn(std::int32_t token, const host::DrawnLogprobs& drawn) {
  std::optional<openai::TokenLogprob> described;
  if (spec_.params.logprobs) {
    if (!drawn.logprob) throw std::runtime_error("the engine drew a token without the logprob asked for");
    described = describe(token, *drawn.logprob, drawn.top);
  }
  return accept(token, std::move(described));
}

StepOutput Generation::accept(std::int32_t token, std::optional<openai::TokenLogprob> described) {
  if (described) held_logprobs_.push_back(std::move(*described));
  output_.push_back(token);

  StepOutput out;
  out.token = token;
  if (is_end_token(token)) {
    const StopStrings::Released last = stops_.push(finish_text());
    out.text = last.text + (last.stopped ? std::string() : stops_.flush());
    return finish(std::move(out), openai::FinishReason::stop);
  }
  StopStrings::Released released = stops_.push(push_text(token));
  out.text = std::move(released.text);
  if (released.stopped) return finish(std::move(out), openai::FinishReason::stop);
  if (output_.size() >= spec_.max_tokens) {
    const StopStrings::Released last = stops_.push(finish_text());
    out.text += last.text;
    if (last.stopped) return finish(std::move(out), openai::FinishReason::stop);
    out.text += stops_.flush();
    return finish(std::move(out), openai::FinishReason::length);
  }
  // Logprobs go out with the text of their tokens; without a tokenizer
  // there is none to wait for.
  if (!out.text.empty() || !tokenizer_) {
    out.logprobs = std::move(held_logprobs_);
    held_logprobs_.clear();
  }
  return out;
}

}  // namespace algenta::serve
