// Log-probabilities as reported to clients: log_softmax of the engine's RAW
// logits (before penalties, temperature and masks), so they describe the
// model, not the request's sampling knobs. vLLM's default "raw_logprobs"
// mode reports the same thing. Computed in double:
//   m = max finite logit, S = sum over finite logits, in id order, of
//   exp(l - m), logprob(i) = (l_i - m) - log(S).
// These values are reported, not used for decisions, so they need not match
// a GPU bit for bit.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace algenta::sampling {

struct TokenLogprob {
  std::int32_t token = 0;
  double logprob = 0.0;
};

class LogSoftmax {
 public:
  // logits must hold at least one finite entry.
  explicit LogSoftmax(std::span<const float> logits);
  double logprob(std::int32_t token) const;
  // The n most likely tokens (finite logits only), by logprob desc then id asc.
  std::vector<TokenLogprob> top(int n) const;

 private:
  std::span<const float> logits_;
  double max_ = 0.0;
  double log_sum_ = 0.0;
};

}  // namespace algenta::sampling
