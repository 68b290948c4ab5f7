#include "sched/prefill_chunk.hpp"

#include <string>

#include "sched/scheduler_limits.hpp"

namespace algenta::sched {

std::uint32_t prefill_chunk_length(std::uint32_t prompt_length, std::uint32_t cached,
                                   std::uint32_t budget) {
  if (cached >= prompt_length) {
    throw SchedulerError("no prefill is left: " + std::to_string(cached) + " of " +
                         std::to_string(prompt_length) + " prompt tokens are cached");
  }
  const std::uint32_t remaining = prompt_length - cached;
  if (prompt_length == 1) return budget >= 1 ? 1 : 0;
  if (remaining == 1) {
    throw SchedulerError("a one-token remainder of a " + std::to_string(prompt_length) +
                         "-token prompt (" + std::to_string(cached) + " cached)");
  }
  if (remaining <= budget) return remaining;
  const std::uint32_t chunk = remaining - budget >= 2 ? budget : budget - 1;
  return chunk >= 2 ? chunk : 0;
}

}  // namespace algenta::sched
