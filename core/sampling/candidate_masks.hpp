// The tokens a tempered distribution may still pick after top-k, top-p and
// min-p, applied in that order (Hugging Face's order and vLLM's v0 sampler;
// vLLM v1 runs min-p first, which changes which tokens top-p keeps):
//   top-k: keep z >= the k-th largest z (ties at the boundary all stay,
//          as torch.topk-threshold masking does in HF and vLLM).
//   top-p: w = portable_exp(z - z_max), W = nucleus_total (below); with
//          the survivors ranked by (z desc, id asc), keep a token while the
//          mass of the tokens ranked above it is < top_p * W: the smallest
//          prefix whose mass reaches top_p; the first token always stays.
//          The mass above rank r is P + s: P the sum, in rank order, of the
//          sums of the whole chunks of kNucleusChunk ranks before r's chunk
//          (each summed in rank order from 0), s the sum of r's chunk before
//          r. Fixed orders a GPU block reproduces bit for bit.
//   min-p: keep w >= min_p (p >= min_p * p_max; renormalisation by top-k
//          and top-p does not change the ratio).
// -inf entries are not allowed tokens and never survive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sampling/sampling_params.hpp"

namespace algenta::sampling {

inline constexpr std::size_t kNucleusLanes = 1024;
inline constexpr std::size_t kNucleusChunk = 128;

// W of top-p: lane l sums w of the ids in `ids` with id % kNucleusLanes == l,
// in ascending id order; then the lanes are summed in lane order.
double nucleus_total(std::span<const std::int32_t> ids, std::span<const double> z, double z_max);

// tempered must hold at least one finite entry. Returns ids in no set order.
std::vector<std::int32_t> surviving_candidates(std::span<const double> tempered,
                                               const SamplingParams& params);

}  // namespace algenta::sampling
