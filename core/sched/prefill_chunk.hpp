// How many prompt tokens the next prefill chunk takes. A chunk of exactly one
// token would run the engine's decode path, whose bits differ from a prefill
// chunk's, so a prompt of two or more tokens is never cut into a chunk of
// one: when the step's budget would leave a one-token remainder, the chunk
// takes one token less and leaves two.
// A prompt of exactly one token cannot be split otherwise: its single chunk
// is the whole prefill. It runs the decode path (an engine takes a one-token
// chunk at position 0 like any other), so its bits equal the decode path's,
// which is also what the same prompt gives when served alone.
#pragma once

#include <cstdint>

namespace algenta::sched {

// The next chunk's length for a prompt of `prompt_length` tokens of which
// `cached` are in the cache, with `budget` tokens left in the step; 0 when no
// chunk fits this step. Never 1 unless prompt_length is 1, never leaves a
// remainder of 1, and takes as much as those rules and the budget allow.
// Throws SchedulerError when nothing is left to prefill or the remainder is
// already one token of a longer prompt (which this rule never produces).
std::uint32_t prefill_chunk_length(std::uint32_t prompt_length, std::uint32_t cached,
                                   std::uint32_t budget);

}  // namespace algenta::sched
