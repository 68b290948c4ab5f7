// The engine as the scheduler sees it (no ABI here): something that forgets
// sequences and runs a planned step. The engine loop's adapter implements it
// over the plugin; tests implement it with a fake.
#pragma once

#include <span>
#include <vector>

#include "sched/scheduler.hpp"

namespace algenta::sched {

class StepExecutor {
 public:
  virtual ~StepExecutor() = default;
  // The engine forgets these sequences and frees their KV blocks.
  virtual void free_sequences(std::span<const SequenceId> ids) = 0;
  // Runs the rows (never empty) and returns one result per row, in row order.
  // Throws when the step fails; the engine then holds what it held before.
  virtual std::vector<RowResult> run(const StepPlan& plan) = 0;
};

// One round: plan, free what the plan says, run its rows, complete it.
// Returns the plan (rows empty: nothing could run). When run() throws, the
// exception passes through and the scheduler keeps its state: the next
// round repeats the rows, unless the caller cancels their sequences.
StepPlan run_step(Scheduler& scheduler, StepExecutor& executor);

}  // namespace algenta::sched
