// The scheduler with a prefix cache: a prompt that starts with whole blocks
// another sequence computed lists them instead of computing them (hit),
// others compute everything (miss); shared blocks are counted once and held
// until the last holder lets go, then stay cached (evictable, least recently
// used first) rather than free; a hit backs off so that at least two prompt
// tokens are computed; a head waits for shared blocks a running prefill is
// still computing; cancellation gives back exactly the sequence's own
// references.
#include <catch2/catch.hpp>

#include <numeric>
#include <vector>

#include "sched/scheduler.hpp"
#include "sched_test_support.hpp"

using namespace algenta::sched;
using namespace algenta::sched::test;

namespace {

const PrefixCaching kCache{true, "exact"};

// `count` tokens starting at `first`: distinct starts never share a block.
std::vector<std::int32_t> tokens(std::size_t count, std::int32_t first = 100) {
  std::vector<std::int32_t> t(count);
  std::iota(t.begin(), t.end(), first);
  return t;
}

std::vector<std::int32_t> joined(std::vector<std::int32_t> a, const std::vector<std::int32_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

SubmitResult submit(Scheduler& scheduler, SequenceId id, const std::vector<std::int32_t>& prompt,
                    std::uint32_t max_new_tokens) {
  return scheduler.submit(
      {id, static_cast<std::uint32_t>(prompt.size()), max_new_tokens, prompt});
}

const StepRow* row_of(const StepPlan& plan, SequenceId id) {
  for (const StepRow& row : plan.rows) {
    if (row.sequence_id == id) return &row;
  }
  return nullptr;
}

std::uint32_t start_of(const StepPlan& plan, SequenceId id) {
  const StepRow* row = row_of(plan, id);
  REQUIRE(row != nullptr);
  return row->start_position;
}

// Plans and completes steps (every row continuing) until `id` is decoding.
void run_prefill(Scheduler& scheduler, SequenceId id) {
  for (int guard = 0; guard < 100 && scheduler.state_of(id) != SequenceState::decoding; ++guard) {
    complete_continuing(scheduler, scheduler.plan());
  }
  REQUIRE(scheduler.state_of(id) == SequenceState::decoding);
}

// Plans and completes steps until nothing runs.
void run_all(Scheduler& scheduler) {
  for (int guard = 0; guard < 1000 && !scheduler.idle(); ++guard) {
    complete_continuing(scheduler, scheduler.plan());
  }
  REQUIRE(scheduler.idle());
  scheduler.plan();  // frees what ended
}

}  // namespace

TEST_CASE("prefix cache: a prompt sharing computed whole blocks starts after them") {
  Scheduler scheduler(roomy_limits(), kCache);  // blocks of 4 tokens
  const std::vector<std::int32_t> system = tokens(8);
  REQUIRE(submit(scheduler, 1, joined(system, tokens(3, 500)), 10).accepted());
  StepPlan plan = scheduler.plan();
  const std::vector<BlockId> first_blocks = plan.rows.at(0).block_table;
  run_prefill(scheduler, 1);

  REQUIRE(submit(scheduler, 2, joined(system, tokens(5, 600)), 4).accepted());
  REQUIRE(submit(scheduler, 3, tokens(13, 700), 4).accepted());  // nothing in common
  plan = scheduler.plan();
  const StepRow* hit = row_of(plan, 2);
  const StepRow* miss = row_of(plan, 3);
  REQUIRE(hit != nullptr);
  REQUIRE(miss != nullptr);
  CHECK(hit->start_position == 8);
  CHECK(hit->token_count == 5);
  CHECK(hit->is_last_prompt_chunk);
  // The shared blocks start its table, in order; the rest are its own.
  REQUIRE(hit->block_table.size() >= 3);
  CHECK(hit->block_table[0] == first_blocks[0]);
  CHECK(hit->block_table[1] == first_blocks[1]);
  CHECK(std::find(first_blocks.begin(), first_blocks.end(), hit->block_table[2]) ==
        first_blocks.end());
  CHECK(miss->start_position == 0);
  complete_continuing(scheduler, plan);
  CHECK(scheduler.stats().prompt_tokens_cached == 8);
  CHECK(scheduler.stats().prompt_tokens_computed == 11 + 5 + 13);
}

TEST_CASE("prefix cache: only blocks whose prefill completed are shared") {
  SchedulerLimits limits = roomy_limits();
  limits.max_step_tokens = 12;
  Scheduler scheduler(limits, kCache);
  const std::vector<std::int32_t> prompt = tokens(20);
  REQUIRE(submit(scheduler, 1, prompt, 2).accepted());
  StepPlan plan = scheduler.plan();  // 12 of its 20 tokens
  REQUIRE(submit(scheduler, 2, prompt, 2).accepted());
  complete_continuing(scheduler, plan);
  // Three of sequence 1's blocks are computed; the fourth, which a hit may
  // serve too, is still in flight: the newcomer waits for it.
  plan = scheduler.plan();
  CHECK(row_of(plan, 1)->start_position == 12);
  CHECK(row_of(plan, 2) == nullptr);
  CHECK(scheduler.state_of(2) == SequenceState::waiting);
  complete_continuing(scheduler, plan);
  plan = scheduler.plan();
  CHECK(start_of(plan, 2) == 16);  // four blocks served, two tokens computed
  complete_continuing(scheduler, plan);
  CHECK(scheduler.stats().prompt_tokens_computed == 20 + 4);
}

TEST_CASE("prefix cache: a head waits for the shared blocks a running prefill computes") {
  Scheduler scheduler(roomy_limits(), kCache);
  const std::vector<std::int32_t> system = tokens(8);
  REQUIRE(submit(scheduler, 1, joined(system, tokens(3, 500)), 4).accepted());
  REQUIRE(submit(scheduler, 2, joined(system, tokens(5, 600)), 4).accepted());
  REQUIRE(submit(scheduler, 3, tokens(6, 700), 4).accepted());  // behind it: FIFO
  StepPlan plan = scheduler.plan();
  // The budget (32 tokens) holds all three prompts, but sequence 1 is still
  // computing the two blocks sequence 2 shares: 2 waits, and 3 behind it.
  REQUIRE(row_of(plan, 1) != nullptr);
  CHECK(row_of(plan, 2) == nullptr);
  CHECK(row_of(plan, 3) == nullptr);
  CHECK(scheduler.state_of(2) == SequenceState::waiting);
  SchedulerStats stats = scheduler.stats();
  CHECK(stats.waiting == 2);
  CHECK(stats.blocks_held + stats.blocks_promised == 4);  // sequence 1's alone
  complete_continuing(scheduler, plan);

  plan = scheduler.plan();
  CHECK(start_of(plan, 2) == 8);  // the shared blocks, now computed, are hits
  CHECK(start_of(plan, 3) == 0);
  complete_continuing(scheduler, plan);
  stats = scheduler.stats();
  CHECK(stats.prompt_tokens_cached == 8);
  CHECK(stats.prompt_tokens_computed == 11 + 5 + 6);
  // Sequence 1: 14 positions = 4 blocks; sequence 2: the 2 shared + 2 own;
  // sequence 3: 9 positions = 3 blocks.
  CHECK(stats.blocks_held + stats.blocks_promised == 4 + 2 + 3);

  run_all(scheduler);
  stats = scheduler.stats();
  CHECK(stats.blocks_held == 0);
  CHECK(stats.blocks_promised == 0);
  CHECK(stats.blocks_cached == 2 + 1 + 1);  // shared, sequence 2's third, sequence 3's
}

TEST_CASE("prefix cache: a head with no shared prefix in flight is not delayed") {
  Scheduler scheduler(roomy_limits(), kCache);
  const std::vector<std::int32_t> first = tokens(10);
  REQUIRE(submit(scheduler, 1, first, 2).accepted());
  // A different prompt, and one sharing less than a whole block with it.
  REQUIRE(submit(scheduler, 2, tokens(8, 700), 2).accepted());
  REQUIRE(submit(scheduler, 3, joined(tokens(3), tokens(6, 800)), 2).accepted());
  const StepPlan plan = scheduler.plan();
  CHECK(start_of(plan, 1) == 0);
  CHECK(start_of(plan, 2) == 0);
  CHECK(start_of(plan, 3) == 0);
}

TEST_CASE("prefix cache: cancelling the sequence computing a shared prefix frees its waiter") {
  SchedulerLimits limits = roomy_limits();
  limits.max_step_tokens = 16;
  Scheduler scheduler(limits, kCache);
  const std::vector<std::int32_t> prompt = tokens(40);  // ten blocks, three chunks
  REQUIRE(submit(scheduler, 1, prompt, 4).accepted());
  REQUIRE(submit(scheduler, 2, joined(prompt, tokens(4, 900)), 2).accepted());
  for (int step = 0; step < 2; ++step) {  // sequence 1's first 32 tokens
    const StepPlan plan = scheduler.plan();
    CHECK(row_of(plan, 2) == nullptr);
    complete_continuing(scheduler, plan);
  }
  REQUIRE(scheduler.state_of(2) == SequenceState::waiting);

  SECTION("without cancellation it waits while the budget has room") {
    StepPlan plan = scheduler.plan();  // sequence 1's last 8 tokens; 8 left
    CHECK(row_of(plan, 1)->token_count == 8);
    CHECK(row_of(plan, 2) == nullptr);
    complete_continuing(scheduler, plan);
    plan = scheduler.plan();
    CHECK(start_of(plan, 2) == 40);
    run_all(scheduler);
    CHECK(scheduler.stats().prompt_tokens_computed == 40 + 4);
  }
  SECTION("cancelled, the waiter computes the rest of the prefix itself") {
    CHECK(scheduler.cancel(1));
    StepPlan plan = scheduler.plan();
    CHECK(plan.to_free == std::vector<SequenceId>{1});
    const StepRow* row = row_of(plan, 2);
    REQUIRE(row != nullptr);
    CHECK(row->start_position == 32);  // the eight blocks sequence 1 listed
    CHECK(row->token_count == 12);
    run_all(scheduler);
    const SchedulerStats stats = scheduler.stats();
    CHECK(stats.prompt_tokens_computed == 32 + 12);
    CHECK(stats.blocks_held == 0);
    CHECK(stats.blocks_promised == 0);
    CHECK(stats.blocks_cached == 11);  // 44 prompt tokens' whole blocks
  }
}

TEST_CASE("prefix cache: a hit always leaves at least two prompt tokens to compute") {
  Scheduler scheduler(roomy_limits(), kCache);
  const std::vector<std::int32_t> cached = tokens(12);  // three blocks once computed
  REQUIRE(submit(scheduler, 1, joined(cached, tokens(2, 900)), 1).accepted());
  run_all(scheduler);

  struct Case {
    std::vector<std::int32_t> prompt;
    std::uint32_t start;
  };
  const std::vector<Case> cases = {
      {cached, 8},                             // the whole prompt cached: one block backed off
      {joined(cached, tokens(1, 900)), 8},     // one token past it: never a one-token chunk
      {joined(cached, tokens(2, 900)), 12},    // two past it: every cached block serves
      {tokens(4), 0},                          // one block: computed for its logits
  };
  SequenceId id = 10;
  for (const Case& c : cases) {
    INFO("prompt of " << c.prompt.size() << " tokens");
    REQUIRE(submit(scheduler, id, c.prompt, 1).accepted());
    const StepPlan plan = scheduler.plan();
    const StepRow* row = row_of(plan, id);
    REQUIRE(row != nullptr);
    CHECK(row->start_position == c.start);
    CHECK(row->token_count >= 2);
    complete_continuing(scheduler, plan);
    run_all(scheduler);
    ++id;
  }
}

TEST_CASE("prefix cache: a hit's chunks follow the chunk rules under a small budget") {
  SchedulerLimits limits = roomy_limits();
  limits.max_step_tokens = 5;
  Scheduler scheduler(limits, kCache);
  const std::vector<std::int32_t> system = tokens(8);
  REQUIRE(submit(scheduler, 1, joined(system, tokens(2, 500)), 1).accepted());
  run_all(scheduler);
  // 8 cached, 6 left with 5 tokens a step: 4 then 2, never 5 then 1.
  REQUIRE(submit(scheduler, 2, joined(system, tokens(6, 600)), 2).accepted());
  StepPlan plan = scheduler.plan();
  REQUIRE(plan.rows.size() == 1);
  CHECK(plan.rows[0].start_position == 8);
  CHECK(plan.rows[0].token_count == 4);
  complete_continuing(scheduler, plan);
  plan = scheduler.plan();
  CHECK(plan.rows.at(0).token_count == 2);
  CHECK(plan.rows.at(0).is_last_prompt_chunk);
}

TEST_CASE("prefix cache: shared blocks count once and stay cached after the last holder ends") {
  Scheduler scheduler(roomy_limits(), kCache);
  const std::vector<std::int32_t> system = tokens(8);
  REQUIRE(submit(scheduler, 1, joined(system, tokens(2, 500)), 3).accepted());
  run_prefill(scheduler, 1);
  REQUIRE(submit(scheduler, 2, joined(system, tokens(2, 600)), 3).accepted());
  StepPlan plan = scheduler.plan();
  complete_continuing(scheduler, plan);
  // Sequence 1: 12 positions = 3 blocks; sequence 2: the 2 shared + 1 own.
  SchedulerStats stats = scheduler.stats();
  CHECK(stats.blocks_held + stats.blocks_promised == 4);
  CHECK(stats.blocks_cached == 0);  // both sequences still hold the shared ones

  run_all(scheduler);
  stats = scheduler.stats();
  CHECK(stats.blocks_held == 0);
  CHECK(stats.blocks_promised == 0);
  CHECK(stats.blocks_cached == 2);  // the system prompt's two blocks, evictable
  CHECK(stats.kv_usage() == 0);
}

TEST_CASE("prefix cache: cached blocks count as available, evicted least recently used first") {
  SchedulerLimits limits = roomy_limits();
  limits.total_blocks = 6;  // 24 positions
  Scheduler scheduler(limits, kCache);
  const std::vector<std::int32_t> old_prompt = tokens(8, 100);
  const std::vector<std::int32_t> new_prompt = tokens(8, 300);
  REQUIRE(submit(scheduler, 1, joined(old_prompt, tokens(2, 900)), 1).accepted());
  run_all(scheduler);
  REQUIRE(submit(scheduler, 2, joined(new_prompt, tokens(2, 901)), 1).accepted());
  run_all(scheduler);
  REQUIRE(scheduler.stats().blocks_cached == 4);

  // 5 blocks with 2 free: admitted by evicting three cached blocks, the old
  // prompt's two and then the newer prompt's last one.
  REQUIRE(submit(scheduler, 3, tokens(18, 5000), 3).accepted());
  StepPlan plan = scheduler.plan();
  REQUIRE(row_of(plan, 3) != nullptr);
  CHECK(scheduler.stats().blocks_cached == 1);
  CHECK(scheduler.stats().blocks_held + scheduler.stats().blocks_promised +
            scheduler.stats().blocks_cached <= 6);
  complete_continuing(scheduler, plan);
  run_all(scheduler);

  // The newer prompt's first block is still found; the old prompt's are not.
  REQUIRE(submit(scheduler, 4, joined(new_prompt, tokens(2, 902)), 1).accepted());
  plan = scheduler.plan();
  CHECK(start_of(plan, 4) == 4);
  complete_continuing(scheduler, plan);
  run_all(scheduler);
  REQUIRE(submit(scheduler, 5, joined(old_prompt, tokens(2, 903)), 1).accepted());
  plan = scheduler.plan();
  CHECK(start_of(plan, 5) == 0);
}

TEST_CASE("prefix cache: a head that cannot have its blocks waits and keeps nothing") {
  SchedulerLimits limits = roomy_limits();
  limits.total_blocks = 6;
  Scheduler scheduler(limits, kCache);
  const std::vector<std::int32_t> system = tokens(8);
  REQUIRE(submit(scheduler, 1, joined(system, tokens(2, 500)), 10).accepted());  // 5 blocks
  run_prefill(scheduler, 1);
  // Shares 2 blocks but needs 4 of its own; one is left.
  REQUIRE(submit(scheduler, 2, joined(system, tokens(8, 600)), 8).accepted());
  StepPlan plan = scheduler.plan();
  CHECK(row_of(plan, 2) == nullptr);
  CHECK(scheduler.state_of(2) == SequenceState::waiting);
  CHECK(scheduler.stats().blocks_held + scheduler.stats().blocks_promised == 5);
  complete_continuing(scheduler, plan);
  run_all(scheduler);  // sequence 1 ends, then 2 runs with the cached blocks
  CHECK(scheduler.stats().prompt_tokens_cached == 8);
}

TEST_CASE("prefix cache: cancelling a sharer gives back its references only") {
  SchedulerLimits limits = roomy_limits();
  limits.max_step_tokens = 6;
  Scheduler scheduler(limits, kCache);
  const std::vector<std::int32_t> system = tokens(8);
  REQUIRE(submit(scheduler, 1, joined(system, tokens(2, 500)), 20).accepted());
  run_prefill(scheduler, 1);
  REQUIRE(submit(scheduler, 2, joined(system, tokens(10, 600)), 4).accepted());
  StepPlan plan = scheduler.plan();  // sequence 2's first chunk (8..12), after the shared blocks
  CHECK(start_of(plan, 2) == 8);
  complete_continuing(scheduler, plan);
  REQUIRE(scheduler.state_of(2) == SequenceState::prefilling);

  const SchedulerStats before = scheduler.stats();
  CHECK(scheduler.cancel(2));
  plan = scheduler.plan();
  CHECK(plan.to_free == std::vector<SequenceId>{2});
  const SchedulerStats after = scheduler.stats();
  // Its own four blocks (two held, two promised) are given back; the shared
  // two are still sequence 1's; the one it computed whole stays cached.
  CHECK(before.blocks_held + before.blocks_promised - (after.blocks_held + after.blocks_promised) == 4);
  CHECK(after.blocks_cached == 1);
  complete_continuing(scheduler, plan);

  CHECK(scheduler.cancel(1));
  scheduler.plan();
  const SchedulerStats none = scheduler.stats();
  CHECK(none.blocks_held == 0);
  CHECK(none.blocks_promised == 0);
  CHECK(none.blocks_cached == 3);  // the shared prompt's blocks stay cached too
}

TEST_CASE("prefix cache: a prompt whose tokens do not match its length is a caller bug") {
  Scheduler scheduler(roomy_limits(), kCache);
  const std::vector<std::int32_t> prompt = tokens(3);
  CHECK_THROWS_WITH(scheduler.submit({1, 4, 2, prompt}),
                    Catch::Contains("prompt_length 4 but 3 prompt tokens"));
}
