#include "serve/batch_limits.hpp"

#include <algorithm>
#include <limits>

namespace algenta::serve {

sched::SchedulerLimits batch_limits(const host::MemoryReport& report,
                                    const std::optional<host::HostBlockGeometry>& host_blocks,
                                    std::uint32_t max_context, const BatchOptions& options) {
  sched::SchedulerLimits limits;
  if (host_blocks) {
    limits.tokens_per_block = host_blocks->tokens_per_block;
    limits.total_blocks = host_blocks->blocks_total;
  } else if (report.kv_tokens_per_block > 0) {
    limits.tokens_per_block = report.kv_tokens_per_block;
    limits.total_blocks = report.kv_blocks_total;
  } else {
    limits.tokens_per_block = max_context;
    limits.total_blocks = options.max_running;
  }
  limits.max_step_tokens = options.max_step_tokens;
  limits.max_step_rows = options.max_running;
  limits.max_sequences = options.max_running;
  limits.max_waiting = static_cast<std::uint32_t>(
      std::min<std::size_t>(options.max_waiting, std::numeric_limits<std::uint32_t>::max()));
  limits.max_context = max_context;
  sched::check_limits(limits);
  return limits;
}

}  // namespace algenta::serve
