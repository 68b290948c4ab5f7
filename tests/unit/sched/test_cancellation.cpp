// Cancellation while waiting, mid-prefill, mid-decode and while a step that
// holds the sequence is in flight: the sequence is gone before the next step
// is planned, its blocks are free, and the engine is told to free it exactly
// when it holds it.
#include <catch2/catch.hpp>

#include "sched/scheduler.hpp"
#include "sched_test_support.hpp"

using namespace algenta::sched;
using namespace algenta::sched::test;

namespace {

std::uint32_t committed(const Scheduler& scheduler) {
  const SchedulerStats stats = scheduler.stats();
  return stats.blocks_held + stats.blocks_promised;
}

}  // namespace

TEST_CASE("cancelled while waiting: gone at once, never planned, nothing for the engine to free") {
  SchedulerLimits limits = roomy_limits();
  limits.max_step_rows = 1;
  Scheduler scheduler(limits);
  REQUIRE(scheduler.submit({1, 4, 8}).accepted());
  REQUIRE(scheduler.submit({2, 4, 8}).accepted());
  StepPlan plan = scheduler.plan();
  REQUIRE(row_ids(plan) == std::vector<SequenceId>{1});
  CHECK(scheduler.cancel(2));
  CHECK(scheduler.state_of(2) == SequenceState::unknown);
  CHECK(scheduler.stats().waiting == 0);
  // The engine never saw 2: freeing it would be refused by the engine.
  for (int guard = 0; guard < 20 && !scheduler.idle(); ++guard) {
    complete_continuing(scheduler, plan);
    plan = scheduler.plan();
    CHECK_FALSE(has_row(plan, 2));
    CHECK(std::find(plan.to_free.begin(), plan.to_free.end(), 2) == plan.to_free.end());
  }
  CHECK(scheduler.idle());
  CHECK_FALSE(scheduler.cancel(2));  // not live any more
}

TEST_CASE("cancelled mid-prefill: dropped by the next plan, blocks free, id to free") {
  SchedulerLimits limits = roomy_limits();
  limits.max_step_tokens = 8;
  Scheduler scheduler(limits);
  REQUIRE(scheduler.submit({1, 30, 8}).accepted());
  StepPlan plan = scheduler.plan();
  complete_continuing(scheduler, plan);
  REQUIRE(scheduler.state_of(1) == SequenceState::prefilling);
  REQUIRE(committed(scheduler) == 10);  // 37 positions
  CHECK(scheduler.cancel(1));
  plan = scheduler.plan();
  CHECK(plan.rows.empty());
  CHECK(plan.to_free == std::vector<SequenceId>{1});
  CHECK(committed(scheduler) == 0);
  CHECK(scheduler.state_of(1) == SequenceState::unknown);
  CHECK(scheduler.idle());
}

TEST_CASE("cancelled mid-decode: dropped by the next plan, the others go on") {
  Scheduler scheduler(roomy_limits());
  REQUIRE(scheduler.submit({1, 6, 20}).accepted());
  REQUIRE(scheduler.submit({2, 6, 20}).accepted());
  StepPlan plan = scheduler.plan();
  complete_continuing(scheduler, plan);
  plan = scheduler.plan();
  complete_continuing(scheduler, plan);
  REQUIRE(scheduler.state_of(2) == SequenceState::decoding);
  const std::uint32_t before = committed(scheduler);
  CHECK(scheduler.cancel(2));
  CHECK(scheduler.stats().running == 2);  // until the next plan
  plan = scheduler.plan();
  CHECK(row_ids(plan) == std::vector<SequenceId>{1});
  CHECK(plan.to_free == std::vector<SequenceId>{2});
  CHECK(committed(scheduler) == before - 7);  // 25 positions: 7 blocks
  CHECK(scheduler.stats().running == 1);
}

TEST_CASE("cancelled while its first chunk is in flight: freed once the step lands") {
  Scheduler scheduler(roomy_limits());
  REQUIRE(scheduler.submit({1, 6, 20}).accepted());
  StepPlan plan = scheduler.plan();
  CHECK(scheduler.cancel(1));  // the engine is running the step now
  complete_continuing(scheduler, plan);  // so it holds the sequence after it
  plan = scheduler.plan();
  CHECK(plan.rows.empty());
  CHECK(plan.to_free == std::vector<SequenceId>{1});
  CHECK(committed(scheduler) == 0);
}

TEST_CASE("cancelled after a failed first step: the engine holds nothing, nothing to free") {
  Scheduler scheduler(roomy_limits());
  REQUIRE(scheduler.submit({1, 6, 20}).accepted());
  const StepPlan failed = scheduler.plan();  // the step fails: no complete()
  REQUIRE(failed.rows.size() == 1);
  CHECK(scheduler.cancel(1));
  const StepPlan plan = scheduler.plan();
  CHECK(plan.rows.empty());
  CHECK(plan.to_free.empty());
  CHECK(committed(scheduler) == 0);
}

TEST_CASE("a cancelled sequence's blocks let the next request in at once") {
  SchedulerLimits limits = roomy_limits();
  limits.total_blocks = 8;  // 32 positions
  Scheduler scheduler(limits);
  REQUIRE(scheduler.submit({1, 20, 10}).accepted());  // 29 positions: 8 blocks
  REQUIRE(scheduler.submit({2, 20, 10}).accepted());
  StepPlan plan = scheduler.plan();
  REQUIRE(row_ids(plan) == std::vector<SequenceId>{1});
  complete_continuing(scheduler, plan);
  CHECK(scheduler.cancel(1));
  plan = scheduler.plan();
  CHECK(plan.to_free == std::vector<SequenceId>{1});
  REQUIRE(row_ids(plan) == std::vector<SequenceId>{2});
  CHECK(plan.rows[0].start_position == 0);
  CHECK(committed(scheduler) == 8);
}
