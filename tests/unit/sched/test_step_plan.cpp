// What one plan holds: decodes first, then prefill chunks, within the token
// and row budgets; chunk splitting; the one-token prompt; completing a plan
// and the misuses complete() refuses.
#include <catch2/catch.hpp>

#include "sched/scheduler.hpp"
#include "sched_test_support.hpp"

using namespace algenta::sched;
using namespace algenta::sched::test;

TEST_CASE("decodes of running sequences come first, then prefill chunks, in admission order") {
  Scheduler scheduler(roomy_limits());  // 32 tokens, 8 rows
  REQUIRE(scheduler.submit({7, 5, 10}).accepted());
  REQUIRE(scheduler.submit({3, 6, 10}).accepted());
  StepPlan plan = scheduler.plan();
  CHECK(row_ids(plan) == std::vector<SequenceId>{7, 3});
  complete_continuing(scheduler, plan);
  REQUIRE(scheduler.submit({9, 40, 10}).accepted());
  REQUIRE(scheduler.submit({1, 4, 10}).accepted());
  plan = scheduler.plan();
  // 7 and 3 decode (2 tokens); 9 gets 30 of its 40; 1 waits behind it.
  REQUIRE(row_ids(plan) == std::vector<SequenceId>{7, 3, 9});
  CHECK_FALSE(plan.rows[0].is_prefill);
  CHECK(plan.rows[0].start_position == 5);
  CHECK(plan.rows[0].token_count == 1);
  CHECK(plan.rows[1].start_position == 6);
  CHECK(plan.rows[2].is_prefill);
  CHECK(plan.rows[2].token_count == 30);
  CHECK_FALSE(plan.rows[2].is_last_prompt_chunk);
  CHECK_FALSE(plan.rows[2].samples_next_token());
  CHECK(plan.token_count() == 32);
  CHECK(plan.decode_rows() == 2);
  complete_continuing(scheduler, plan);
  plan = scheduler.plan();
  // 9's last 10 tokens come before the newcomer 1's prompt.
  REQUIRE(row_ids(plan) == std::vector<SequenceId>{7, 3, 9, 1});
  CHECK(plan.rows[2].start_position == 30);
  CHECK(plan.rows[2].token_count == 10);
  CHECK(plan.rows[2].is_last_prompt_chunk);
  CHECK(plan.rows[3].token_count == 4);
}

TEST_CASE("the row budget caps a step") {
  SchedulerLimits limits = roomy_limits();
  limits.max_step_rows = 3;
  Scheduler scheduler(limits);
  for (SequenceId id = 1; id <= 5; ++id) REQUIRE(scheduler.submit({id, 2, 4}).accepted());
  const StepPlan plan = scheduler.plan();
  CHECK(row_ids(plan) == std::vector<SequenceId>{1, 2, 3});
  CHECK(scheduler.stats().waiting == 2);
}

TEST_CASE("a prompt longer than the budget is cut so that no chunk is one token") {
  SchedulerLimits limits = roomy_limits();
  limits.max_step_tokens = 9;
  Scheduler scheduler(limits);
  REQUIRE(scheduler.submit({1, 10, 4}).accepted());
  StepPlan plan = scheduler.plan();
  REQUIRE(plan.rows.size() == 1);
  CHECK(plan.rows[0].token_count == 8);  // 9 would leave 1
  complete_continuing(scheduler, plan);
  CHECK(scheduler.state_of(1) == SequenceState::prefilling);
  plan = scheduler.plan();
  REQUIRE(plan.rows.size() == 1);
  CHECK(plan.rows[0].start_position == 8);
  CHECK(plan.rows[0].token_count == 2);
  CHECK(plan.rows[0].is_last_prompt_chunk);
  complete_continuing(scheduler, plan);
  CHECK(scheduler.state_of(1) == SequenceState::decoding);
}

TEST_CASE("a one-token prompt is prefilled by one row of one token, which samples") {
  Scheduler scheduler(roomy_limits());
  REQUIRE(scheduler.submit({1, 1, 3}).accepted());
  StepPlan plan = scheduler.plan();
  REQUIRE(plan.rows.size() == 1);
  CHECK(plan.rows[0].is_prefill);
  CHECK(plan.rows[0].is_last_prompt_chunk);
  CHECK(plan.rows[0].token_count == 1);
  CHECK(plan.rows[0].start_position == 0);
  complete_continuing(scheduler, plan);
  plan = scheduler.plan();
  REQUIRE(plan.rows.size() == 1);
  CHECK_FALSE(plan.rows[0].is_prefill);
  CHECK(plan.rows[0].start_position == 1);
}

TEST_CASE("a prefill the leftover budget cannot cut holds admission back") {
  SchedulerLimits limits = roomy_limits();
  limits.max_step_tokens = 4;
  Scheduler scheduler(limits);
  REQUIRE(scheduler.submit({1, 2, 20}).accepted());
  REQUIRE(scheduler.submit({2, 2, 20}).accepted());
  StepPlan plan = scheduler.plan();
  REQUIRE(row_ids(plan) == std::vector<SequenceId>{1, 2});
  complete_continuing(scheduler, plan);
  REQUIRE(scheduler.submit({3, 5, 4}).accepted());
  REQUIRE(scheduler.submit({4, 2, 4}).accepted());
  plan = scheduler.plan();  // two decodes; 2 tokens left: 5 = 2 + 3 is allowed
  REQUIRE(row_ids(plan) == std::vector<SequenceId>{1, 2, 3});
  CHECK(plan.rows[2].token_count == 2);
  complete_continuing(scheduler, plan);
  plan = scheduler.plan();  // 3 has 3 left, 2 tokens of budget: no chunk, and 4 may not pass it
  CHECK(row_ids(plan) == std::vector<SequenceId>{1, 2});
  CHECK(scheduler.state_of(4) == SequenceState::waiting);
}

TEST_CASE("a sequence ends after max_new_tokens samples even when no row says finished") {
  Scheduler scheduler(roomy_limits());
  REQUIRE(scheduler.submit({1, 3, 3}).accepted());
  int samples = 0;
  while (!scheduler.idle()) {
    const StepPlan plan = scheduler.plan();
    for (const StepRow& row : plan.rows) samples += row.samples_next_token() ? 1 : 0;
    complete_continuing(scheduler, plan);
    REQUIRE(samples <= 3);
  }
  CHECK(samples == 3);
  const StepPlan flush = scheduler.plan();
  CHECK(flush.rows.empty());
  CHECK(flush.to_free == std::vector<SequenceId>{1});
  CHECK(scheduler.stats().blocks_held == 0);
}

TEST_CASE("a finished row ends its sequence: blocks back at once, freed by the next plan") {
  Scheduler scheduler(roomy_limits());
  REQUIRE(scheduler.submit({1, 6, 10}).accepted());
  REQUIRE(scheduler.submit({2, 6, 10}).accepted());
  StepPlan plan = scheduler.plan();
  const std::vector<RowResult> results{RowResult::finished, RowResult::continues};
  scheduler.complete(plan, results);
  CHECK(scheduler.state_of(1) == SequenceState::unknown);
  CHECK(scheduler.stats().running == 1);
  CHECK(scheduler.stats().blocks_held + scheduler.stats().blocks_promised == 4);  // 2's 15 positions
  plan = scheduler.plan();
  CHECK(plan.to_free == std::vector<SequenceId>{1});
  CHECK(row_ids(plan) == std::vector<SequenceId>{2});
  CHECK(scheduler.plan().to_free.empty());  // listed once
}

TEST_CASE("complete() refuses stale plans, double completion, wrong counts, finished mid-prompt") {
  SchedulerLimits limits = roomy_limits();
  limits.max_step_tokens = 8;
  Scheduler scheduler(limits);
  REQUIRE(scheduler.submit({1, 20, 4}).accepted());
  const StepPlan first = scheduler.plan();
  const StepPlan second = scheduler.plan();  // the first step failed: planned again
  CHECK(row_ids(first) == row_ids(second));
  CHECK(first.rows[0].start_position == second.rows[0].start_position);
  CHECK_THROWS_WITH(complete_continuing(scheduler, first),
                    Catch::Contains("results for step 1, but the step to complete is 2"));
  const std::vector<RowResult> none;
  CHECK_THROWS_WITH(scheduler.complete(second, none),
                    Catch::Contains("0 results for step 2, which has 1 rows"));
  const std::vector<RowResult> finished{RowResult::finished};
  CHECK_THROWS_WITH(scheduler.complete(second, finished),
                    Catch::Contains("a prefill chunk before the last) is marked finished"));
  StepPlan forged = second;
  forged.rows[0].start_position = 3;
  CHECK_THROWS_WITH(complete_continuing(scheduler, forged),
                    Catch::Contains("sequence 1 at position 3) does not match the sequence's 0 "
                                    "cached positions"));
  complete_continuing(scheduler, second);  // nothing above changed anything
  CHECK_THROWS_WITH(complete_continuing(scheduler, second),
                    Catch::Contains("the step to complete is none"));
  CHECK(scheduler.plan().rows[0].start_position == 8);
}

TEST_CASE("counters: steps, rows and tokens of completed steps") {
  Scheduler scheduler(roomy_limits());
  REQUIRE(scheduler.submit({1, 5, 3}).accepted());
  REQUIRE(scheduler.submit({2, 7, 3}).accepted());
  StepPlan plan = scheduler.plan();
  complete_continuing(scheduler, plan);
  plan = scheduler.plan();
  complete_continuing(scheduler, plan);
  const SchedulerStats stats = scheduler.stats();
  CHECK(stats.steps == 2);
  CHECK(stats.rows == 4);
  CHECK(stats.decode_rows == 2);
  CHECK(stats.tokens == 14);
  CHECK(stats.running == 2);
  CHECK(stats.waiting == 0);
  CHECK(stats.blocks_total == 64);
}
