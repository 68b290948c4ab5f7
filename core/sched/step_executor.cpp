#include "sched/step_executor.hpp"

namespace algenta::sched {

StepPlan run_step(Scheduler& scheduler, StepExecutor& executor) {
  StepPlan plan = scheduler.plan();
  if (!plan.to_free.empty()) executor.free_sequences(plan.to_free);
  if (plan.rows.empty()) return plan;
  const std::vector<RowResult> results = executor.run(plan);
  scheduler.complete(plan, results);
  return plan;
}

}  // namespace algenta::sched
