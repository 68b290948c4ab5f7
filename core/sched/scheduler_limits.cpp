#include "sched/scheduler_limits.hpp"

#include <algorithm>

namespace algenta::sched {
namespace {

void require(bool ok, const char* field, std::uint32_t value, const char* rule) {
  if (!ok) {
    throw SchedulerError(std::string(field) + " is " + std::to_string(value) + "; it must be " +
                         rule);
  }
}

}  // namespace

void check_limits(const SchedulerLimits& limits) {
  require(limits.tokens_per_block >= 1, "tokens_per_block", limits.tokens_per_block, ">= 1");
  require(limits.total_blocks >= 1, "total_blocks", limits.total_blocks, ">= 1");
  // Three: a chunk is never one token (but a one-token prompt's), so a budget
  // of two could never take a three-token remainder (2 + 1 is refused).
  require(limits.max_step_tokens >= 3, "max_step_tokens", limits.max_step_tokens, ">= 3");
  require(limits.max_step_rows >= 1, "max_step_rows", limits.max_step_rows, ">= 1");
  require(limits.max_context >= 2, "max_context", limits.max_context,
          ">= 2 (one prompt token and one new token)");
}

std::uint32_t running_cap(const SchedulerLimits& limits) {
  std::uint32_t cap = std::min(limits.max_step_rows, limits.max_step_tokens);
  if (limits.max_sequences > 0) cap = std::min(cap, limits.max_sequences);
  return cap;
}

std::uint32_t blocks_for_positions(std::uint64_t positions, std::uint32_t tokens_per_block) {
  return static_cast<std::uint32_t>((positions + tokens_per_block - 1) / tokens_per_block);
}

std::string size_refusal(const SchedulerLimits& limits, std::uint32_t prompt_length,
                         std::uint32_t max_new_tokens) {
  const std::uint64_t length = std::uint64_t(prompt_length) + max_new_tokens;
  if (length > limits.max_context) {
    return "needs " + std::to_string(prompt_length) + " prompt + " +
           std::to_string(max_new_tokens) + " new tokens = " + std::to_string(length) +
           ", past the context of " + std::to_string(limits.max_context);
  }
  // The last new token is sampled, never fed back, so it takes no position.
  const std::uint32_t blocks = blocks_for_positions(length - 1, limits.tokens_per_block);
  if (blocks > limits.total_blocks) {
    return "needs " + std::to_string(blocks) + " KV blocks of " +
           std::to_string(limits.tokens_per_block) + " tokens; the cache has " +
           std::to_string(limits.total_blocks);
  }
  return {};
}

}  // namespace algenta::sched
