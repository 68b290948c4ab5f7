// Small helpers shared by the scheduler tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sched/scheduler.hpp"

namespace algenta::sched::test {

inline SchedulerLimits roomy_limits() {
  SchedulerLimits limits;
  limits.tokens_per_block = 4;
  limits.total_blocks = 64;
  limits.max_step_tokens = 32;
  limits.max_step_rows = 8;
  limits.max_waiting = 16;
  limits.max_context = 128;
  return limits;
}

// Completes `plan` with every row continuing (the length limit still ends
// sequences at max_new_tokens).
inline void complete_continuing(Scheduler& scheduler, const StepPlan& plan) {
  const std::vector<RowResult> results(plan.rows.size(), RowResult::continues);
  scheduler.complete(plan, results);
}

inline std::vector<SequenceId> row_ids(const StepPlan& plan) {
  std::vector<SequenceId> ids;
  for (const StepRow& row : plan.rows) ids.push_back(row.sequence_id);
  return ids;
}

inline bool has_row(const StepPlan& plan, SequenceId id) {
  const auto ids = row_ids(plan);
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

}  // namespace algenta::sched::test
