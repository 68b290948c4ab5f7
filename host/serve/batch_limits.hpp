// What the engine loop's scheduler may plan: the engine's KV geometry and
// context, and the operator's budgets (--max-queue, --max-running,
// --max-step-tokens).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "engine/engine_session.hpp"
#include "sched/scheduler_limits.hpp"

namespace algenta::serve {

struct BatchOptions {
  std::size_t max_waiting = 256;        // --max-queue: requests queued; 429 above
  std::uint32_t max_running = 64;       // --max-running: sequences per step, and resident
  std::uint32_t max_step_tokens = 512;  // --max-step-tokens: decode and prefill tokens per step
  // --prefix-cache: share computed prompt blocks between requests. Needs an
  // engine that took the host's block tables (the caller checks).
  bool prefix_cache = false;
};

// An engine that took the host's block tables gives their geometry; the
// scheduler's blocks are then the engine's. Otherwise a paged engine reports
// its blocks, and one without (kv_tokens_per_block 0) keeps each sequence in
// a slot of max_context tokens: one block per sequence, and as many blocks as
// sequences it holds, which serve opens it with (max_sequences =
// max_running). Throws sched::SchedulerError for budgets the scheduler
// cannot plan with.
sched::SchedulerLimits batch_limits(const host::MemoryReport& report,
                                    const std::optional<host::HostBlockGeometry>& host_blocks,
                                    std::uint32_t max_context, const BatchOptions& options);

}  // namespace algenta::serve
