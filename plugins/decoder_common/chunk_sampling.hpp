// Engine sampling (ABI 1.2): a chunk's AlgentaSampling checked before
// anything is computed, and its token drawn from the chunk's logits row by
// the host's own sampler (core/sampling) in the host's own steps, so an
// engine that draws on the CPU gives the tokens and logprobs the host would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "algenta/plugin_abi.h"

namespace algenta::decoder {

// The chunk's sampling, or nullptr when it carries none. Refuses
// (INVALID_ARGUMENT, naming the sequence, the field, its range and value) a
// struct smaller than 1.2's, a parameter the host's sampler refuses, a
// history or banned id outside [0, vocab), a NULL array with a count, and a
// NULL output it would have to write.
const AlgentaSampling* checked_sampling(const AlgentaSequenceChunk& chunk, std::size_t vocab);

// The token `sampling` draws from `logits` (the raw row, vocab floats) at
// `position`, its logprob and top logprobs written as asked. Throws
// plugin::StatusError INTERNAL for NaN or +inf logits or no allowed token.
std::int32_t draw_token(const AlgentaSampling& sampling, std::span<const float> logits,
                        std::uint64_t position, std::uint64_t sequence_id);

}  // namespace algenta::decoder
