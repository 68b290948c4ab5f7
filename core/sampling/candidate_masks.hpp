// The tokens a tempered distribution may still pick after top-k, top-p and
// min-p, applied in that order (Hugging Face's order and vLLM's v0 sampler;
// vLLM v1 runs min-p first, which changes which tokens top-p keeps):
//   top-k: keep z >= the k-th largest z (ties at the boundary all stay,
//          as torch.topk-threshold masking does in HF and vLLM).
//   top-p: w = portable_exp(z - z_max), W = the sum of w over the survivors
//          in ascending id order; walking the survivors sorted by
//          (z desc, id asc) and summing w in that order, keep a token while
//          the sum of the tokens ranked above it is < top_p * W: the
//          smallest prefix whose mass reaches top_p; the first token always
//          stays.
//   min-p: keep w >= min_p (p >= min_p * p_max; renormalisation by top-k
//          and top-p does not change the ratio).
// -inf entries are not allowed tokens and never survive.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sampling/sampling_params.hpp"

namespace algenta::sampling {

// tempered must hold at least one finite entry. Returns ids in no set order.
std::vector<std::int32_t> surviving_candidates(std::span<const double> tempered,
                                               const SamplingParams& params);

}  // namespace algenta::sampling
