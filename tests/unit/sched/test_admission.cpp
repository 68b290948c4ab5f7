// Submission and admission: refusals with their reasons, the bounded queue,
// FIFO admission when blocks are short, and the running cap.
#include <catch2/catch.hpp>

#include "sched/scheduler.hpp"
#include "sched_test_support.hpp"

using namespace algenta::sched;
using namespace algenta::sched::test;

TEST_CASE("limits that make planning impossible are refused by name") {
  SchedulerLimits limits = roomy_limits();
  limits.tokens_per_block = 0;
  CHECK_THROWS_WITH(Scheduler(limits), Catch::Contains("tokens_per_block is 0; it must be >= 1"));
  limits = roomy_limits();
  limits.max_step_tokens = 2;
  CHECK_THROWS_WITH(Scheduler(limits), Catch::Contains("max_step_tokens is 2; it must be >= 3"));
  limits = roomy_limits();
  limits.max_step_rows = 0;
  CHECK_THROWS_WITH(Scheduler(limits), Catch::Contains("max_step_rows is 0"));
  limits = roomy_limits();
  limits.total_blocks = 0;
  CHECK_THROWS_WITH(Scheduler(limits), Catch::Contains("total_blocks is 0"));
  limits = roomy_limits();
  limits.max_context = 1;
  CHECK_THROWS_WITH(Scheduler(limits), Catch::Contains("max_context is 1"));
}

TEST_CASE("the running cap is the smallest of rows, tokens and engine sequences") {
  SchedulerLimits limits = roomy_limits();
  CHECK(running_cap(limits) == 8);
  limits.max_step_tokens = 5;
  CHECK(running_cap(limits) == 5);
  limits.max_sequences = 3;
  CHECK(running_cap(limits) == 3);
}

TEST_CASE("a request that can never run is refused with its numbers") {
  Scheduler scheduler(roomy_limits());  // 64 blocks of 4 tokens, context 128
  SubmitResult result = scheduler.submit({1, 100, 29});
  CHECK(result.outcome == SubmitOutcome::too_large);
  CHECK(result.reason == "sequence 1 needs 100 prompt + 29 new tokens = 129, past the context of 128");
  CHECK(scheduler.submit({2, 100, 28}).accepted());

  SchedulerLimits small = roomy_limits();
  small.total_blocks = 3;  // 12 positions
  Scheduler tight(small);
  result = tight.submit({3, 10, 4});  // 13 positions: 4 blocks
  CHECK(result.outcome == SubmitOutcome::too_large);
  CHECK(result.reason == "sequence 3 needs 4 KV blocks of 4 tokens; the cache has 3");
  CHECK(tight.submit({4, 10, 3}).accepted());  // 12 positions: the last token is never cached
  CHECK(tight.stats().waiting == 1);
}

TEST_CASE("caller bugs throw: zero lengths, an id that is live") {
  Scheduler scheduler(roomy_limits());
  CHECK_THROWS_WITH(scheduler.submit({1, 0, 4}), Catch::Contains("prompt_length 0"));
  CHECK_THROWS_WITH(scheduler.submit({1, 4, 0}), Catch::Contains("max_new_tokens 0"));
  REQUIRE(scheduler.submit({1, 4, 4}).accepted());
  CHECK_THROWS_WITH(scheduler.submit({1, 4, 4}), Catch::Contains("sequence 1 is live already"));
}

TEST_CASE("the queue is bounded: past max_waiting, submit refuses until some are admitted") {
  SchedulerLimits limits = roomy_limits();
  limits.max_waiting = 2;
  limits.max_step_rows = 1;  // one running at a time
  Scheduler scheduler(limits);
  REQUIRE(scheduler.submit({1, 4, 2}).accepted());
  REQUIRE(scheduler.submit({2, 4, 2}).accepted());
  const SubmitResult full = scheduler.submit({3, 4, 2});
  CHECK(full.outcome == SubmitOutcome::queue_full);
  CHECK(full.reason == "2 requests wait already (the limit is 2)");
  CHECK(scheduler.state_of(3) == SequenceState::unknown);

  const StepPlan plan = scheduler.plan();  // admits 1
  CHECK(row_ids(plan) == std::vector<SequenceId>{1});
  CHECK(scheduler.stats().waiting == 1);
  CHECK(scheduler.submit({3, 4, 2}).accepted());
  CHECK(scheduler.submit({4, 4, 2}).outcome == SubmitOutcome::queue_full);
}

TEST_CASE("admission is first come first served, even when a later request would fit") {
  SchedulerLimits limits = roomy_limits();
  limits.total_blocks = 10;  // 40 positions
  Scheduler scheduler(limits);
  REQUIRE(scheduler.submit({1, 20, 5}).accepted());  // 24 positions: 6 blocks
  REQUIRE(scheduler.submit({2, 16, 5}).accepted());  // 20 positions: 5 blocks, does not fit beside 1
  REQUIRE(scheduler.submit({3, 2, 2}).accepted());   // 3 positions: 1 block, would fit
  StepPlan plan = scheduler.plan();
  CHECK(row_ids(plan) == std::vector<SequenceId>{1});
  CHECK(scheduler.state_of(2) == SequenceState::waiting);
  CHECK(scheduler.state_of(3) == SequenceState::waiting);
  CHECK(scheduler.stats().blocks_held + scheduler.stats().blocks_promised == 6);

  // 1 runs to its end; then 2 and 3 are admitted, in order.
  std::vector<SequenceId> admitted;
  for (int guard = 0; guard < 100 && !scheduler.idle(); ++guard) {
    complete_continuing(scheduler, plan);
    plan = scheduler.plan();
    for (const StepRow& row : plan.rows) {
      if (row.is_prefill && row.start_position == 0) admitted.push_back(row.sequence_id);
    }
  }
  CHECK(admitted == std::vector<SequenceId>{2, 3});
  CHECK(scheduler.idle());
}

TEST_CASE("admission promises every block the sequence will need, and no more") {
  Scheduler scheduler(roomy_limits());  // 4 tokens a block
  REQUIRE(scheduler.submit({1, 9, 4}).accepted());  // 9 + 3 = 12 positions: 3 blocks
  StepPlan plan = scheduler.plan();
  REQUIRE(plan.rows.size() == 1);
  CHECK(plan.rows[0].block_table == std::vector<BlockId>{0, 1, 2});  // 9 positions: 3 blocks
  SchedulerStats stats = scheduler.stats();
  CHECK(stats.blocks_held == 3);
  CHECK(stats.blocks_promised == 0);
  CHECK(stats.kv_usage() == Approx(3.0 / 64));

  REQUIRE(scheduler.submit({2, 3, 6}).accepted());  // 3 + 5 = 8 positions: 2 blocks
  complete_continuing(scheduler, plan);
  plan = scheduler.plan();
  REQUIRE(plan.rows.size() == 2);
  CHECK(plan.rows[1].block_table == std::vector<BlockId>{3});  // the prompt's 3 positions
  stats = scheduler.stats();
  CHECK(stats.blocks_held == 4);
  CHECK(stats.blocks_promised == 1);
  CHECK(stats.kv_committed() == Approx(5.0 / 64));
}

TEST_CASE("no more sequences run than the engine may hold") {
  SchedulerLimits limits = roomy_limits();
  limits.max_sequences = 2;
  Scheduler scheduler(limits);
  for (SequenceId id = 1; id <= 4; ++id) REQUIRE(scheduler.submit({id, 2, 8}).accepted());
  StepPlan plan = scheduler.plan();
  CHECK(row_ids(plan) == std::vector<SequenceId>{1, 2});
  complete_continuing(scheduler, plan);
  plan = scheduler.plan();
  CHECK(row_ids(plan) == std::vector<SequenceId>{1, 2});
  CHECK(scheduler.stats().running == 2);
  CHECK(scheduler.stats().waiting == 2);
}
