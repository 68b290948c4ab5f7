// What the scheduler may plan: the engine's KV geometry and context, and the
// per-step budgets the operator chose. Checked once, at construction.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace algenta::sched {

// A misuse of the scheduler (bad limits, a result for a stale plan): a bug in
// the caller, never a client's fault.
class SchedulerError : public std::logic_error {
 public:
  explicit SchedulerError(const std::string& what) : std::logic_error("scheduler: " + what) {}
};

struct SchedulerLimits {
  // KV geometry, as the engine's memory report gives it (kv_tokens_per_block,
  // kv_blocks_total). An engine without a paged cache serves each sequence
  // from one slot of max_context tokens: pass tokens_per_block = max_context
  // and total_blocks = its sequence count.
  std::uint32_t tokens_per_block = 0;
  std::uint32_t total_blocks = 0;
  std::uint32_t max_step_tokens = 0;  // tokens in one step, decode and prefill together (>= 3)
  std::uint32_t max_step_rows = 0;    // sequences in one step (>= 1)
  std::uint32_t max_waiting = 0;      // requests queued before submit refuses (0: none wait)
  std::uint32_t max_context = 0;      // positions per sequence: prompt + new tokens <= this
  std::uint32_t max_sequences = 0;    // resident in the engine at once; 0: no cap but the rows
};

// Throws SchedulerError naming the field and its value when a limit makes
// planning impossible (a zero block size or count, a step budget under three
// tokens or zero rows, a context under two positions).
void check_limits(const SchedulerLimits& limits);

// Sequences that may be admitted at once: each gets a decode row (one token)
// in every step, so no running sequence ever waits for a row.
std::uint32_t running_cap(const SchedulerLimits& limits);

// Blocks that hold `positions` KV entries.
std::uint32_t blocks_for_positions(std::uint64_t positions, std::uint32_t tokens_per_block);

// Why a sequence of `prompt_length` + `max_new_tokens` can never run under
// `limits` ("needs 100 prompt + 29 new tokens = 129, past the context of
// 128", or more KV blocks than the cache has); empty when it can. The engine
// loop asks before queueing, so the client gets its 400 at once.
std::string size_refusal(const SchedulerLimits& limits, std::uint32_t prompt_length,
                         std::uint32_t max_new_tokens);

}  // namespace algenta::sched
