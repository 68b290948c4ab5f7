// The scheduler against a fake engine over thousands of seeded random steps:
// random limits, arrivals, cancellations (between steps and while a step is
// in flight) and failed steps. The fake engine checks every plan (budgets,
// order, chunks, block tables, KV held); here the totals: blocks never over
// the cache and all free at the end, every sequence done with exactly its
// tokens, FIFO admission, the engine told to free exactly what it holds.
// Run again with a prefix cache over prompts that share starts: the engine
// then also checks that every position a row reads holds its own prompt's
// token, whoever computed it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "fake_engine.hpp"
#include "random/splitmix64.hpp"
#include "sched/scheduler.hpp"

using namespace algenta;
using namespace algenta::sched;
using namespace algenta::sched::test;

namespace {

class Draw {
 public:
  explicit Draw(std::uint64_t seed) : random_(seed) {}
  std::uint32_t between(std::uint32_t low, std::uint32_t high) {
    return low + static_cast<std::uint32_t>(random_.next() % (std::uint64_t(high) - low + 1));
  }
  bool one_in(std::uint32_t n) { return random_.next() % n == 0; }

 private:
  SplitMix64 random_;
};

SchedulerLimits random_limits(Draw& draw) {
  SchedulerLimits limits;
  const std::uint32_t block_sizes[] = {1, 2, 4, 16};
  limits.tokens_per_block = block_sizes[draw.between(0, 3)];
  limits.max_context = draw.between(2, 400);
  const std::uint32_t largest = blocks_for_positions(limits.max_context, limits.tokens_per_block);
  limits.total_blocks = draw.between(std::max<std::uint32_t>(1, largest / 2), largest * 4 + 8);
  limits.max_step_tokens = draw.between(3, 300);
  limits.max_step_rows = draw.between(1, 40);
  limits.max_waiting = draw.between(0, 30);
  limits.max_sequences = draw.one_in(2) ? 0 : draw.between(1, 40);
  return limits;
}

void require_clean(const FakeEngine& engine) {
  std::string all;
  for (const std::string& v : engine.violations()) all += v + "\n";
  INFO(all);
  REQUIRE(engine.violations().empty());
}

// One cancellation of a random sequence that is still live, if any.
void cancel_one(Scheduler& scheduler, FakeEngine& engine, Draw& draw) {
  std::vector<SequenceId> live;
  for (const auto& [id, record] : engine.records()) {
    if (!record.ended && !record.cancelled) live.push_back(id);
  }
  if (live.empty()) return;
  const SequenceId id = live[draw.between(0, static_cast<std::uint32_t>(live.size() - 1))];
  REQUIRE(scheduler.cancel(id));
  engine.cancelled(id);
}

// A prompt of `length` tokens: one of three shared starts (of random length)
// then tokens of its own, so prompts share whole blocks now and then.
std::vector<std::int32_t> prompt_of(std::uint32_t length, Draw& draw) {
  const std::int32_t start = static_cast<std::int32_t>(draw.between(0, 2)) * 1000;
  const std::uint32_t shared = draw.between(0, length);
  std::vector<std::int32_t> prompt;
  for (std::uint32_t p = 0; p < length; ++p) {
    prompt.push_back(p < shared ? start + static_cast<std::int32_t>(p)
                                : static_cast<std::int32_t>(draw.between(5000, 5003)));
  }
  return prompt;
}

void submit_some(Scheduler& scheduler, FakeEngine& engine, Draw& draw, SequenceId& next_id) {
  const SchedulerLimits& limits = scheduler.limits();
  const std::uint32_t arrivals = draw.one_in(3) ? draw.between(1, 3) : 0;
  for (std::uint32_t i = 0; i < arrivals; ++i) {
    SequenceRequest request;
    request.id = next_id++;
    request.prompt_length = draw.one_in(6) ? draw.between(1, 3) : draw.between(1, limits.max_context);
    const std::vector<std::int32_t> prompt = scheduler.prefix_caching()
                                                 ? prompt_of(request.prompt_length, draw)
                                                 : std::vector<std::int32_t>{};
    request.prompt = prompt;
    request.max_new_tokens = draw.between(1, std::max<std::uint32_t>(1, limits.max_context / 4));
    const std::uint64_t length = std::uint64_t(request.prompt_length) + request.max_new_tokens;
    const std::uint32_t blocks =
        blocks_for_positions(length - 1, limits.tokens_per_block);
    SubmitOutcome expected = SubmitOutcome::accepted;
    if (length > limits.max_context || blocks > limits.total_blocks) {
      expected = SubmitOutcome::too_large;
    } else if (scheduler.stats().waiting >= limits.max_waiting) {
      expected = SubmitOutcome::queue_full;
    }
    const SubmitResult result = scheduler.submit(request);
    INFO(result.reason);
    REQUIRE(result.outcome == expected);
    if (result.accepted()) engine.expect(request);
  }
}

void check_stats(const Scheduler& scheduler) {
  const SchedulerStats stats = scheduler.stats();
  const SchedulerLimits& limits = scheduler.limits();
  REQUIRE(stats.blocks_held + stats.blocks_promised + stats.blocks_cached <= stats.blocks_total);
  REQUIRE(stats.blocks_total == limits.total_blocks);
  REQUIRE(stats.waiting <= limits.max_waiting);
  REQUIRE(stats.running <= running_cap(limits));
}

// One round with the cancellation and failure points a real loop has.
void round(Scheduler& scheduler, FakeEngine& engine, Draw& draw) {
  if (draw.one_in(25)) cancel_one(scheduler, engine, draw);
  const StepPlan plan = scheduler.plan();
  if (!plan.to_free.empty()) engine.free_sequences(plan.to_free);
  check_stats(scheduler);
  if (plan.rows.empty()) return;
  if (draw.one_in(60)) return;  // the step failed: the engine changed nothing
  const std::vector<RowResult> results = engine.run(plan);
  if (draw.one_in(40)) cancel_one(scheduler, engine, draw);  // while the step runs
  scheduler.complete(plan, results);
  check_stats(scheduler);
}

void drain(Scheduler& scheduler, FakeEngine& engine) {
  for (int guard = 0; guard < 200000 && !scheduler.idle(); ++guard) {
    const StepPlan plan = scheduler.plan();
    if (!plan.to_free.empty()) engine.free_sequences(plan.to_free);
    if (plan.rows.empty()) continue;
    scheduler.complete(plan, engine.run(plan));
  }
  REQUIRE(scheduler.idle());
  const StepPlan last = scheduler.plan();
  if (!last.to_free.empty()) engine.free_sequences(last.to_free);
  REQUIRE(last.rows.empty());
}

void check_outcome(const Scheduler& scheduler, const FakeEngine& engine) {
  const SchedulerStats stats = scheduler.stats();
  REQUIRE(stats.blocks_held == 0);
  REQUIRE(stats.blocks_promised == 0);
  REQUIRE(stats.running == 0);
  REQUIRE(stats.waiting == 0);
  for (const auto& [id, record] : engine.records()) {
    INFO("sequence " << id << " prompt " << record.prompt_length << " max_new "
                     << record.max_new_tokens);
    REQUIRE_FALSE(record.live);
    // Every sequence that reached the engine was freed, and no other.
    REQUIRE(record.freed == (record.admission >= 0));
    if (record.cancelled) continue;
    REQUIRE(record.ended);
    REQUIRE(record.sampled == (record.says_finished ? record.stop_after : record.max_new_tokens));
    // The chunks cover the prompt once, in order, after what was found cached.
    std::uint32_t covered = record.prefix_hit;
    for (const auto& [start, count] : record.chunks) {
      REQUIRE(start == covered);
      covered += count;
    }
    REQUIRE(covered == record.prompt_length);
  }
  const std::vector<SequenceId>& order = engine.admission_order();
  REQUIRE(std::adjacent_find(order.begin(), order.end(),
                             [](SequenceId a, SequenceId b) { return a >= b; }) == order.end());
}

void simulate(bool prefix_cache) {
  std::uint64_t steps = 0;
  std::uint64_t sequences = 0;
  std::uint64_t cached = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    INFO("seed " << seed);
    Draw draw(seed);
    const SchedulerLimits limits = random_limits(draw);
    INFO("block " << limits.tokens_per_block << " blocks " << limits.total_blocks << " context "
                  << limits.max_context << " step tokens " << limits.max_step_tokens << " rows "
                  << limits.max_step_rows << " waiting " << limits.max_waiting << " sequences "
                  << limits.max_sequences);
    Scheduler scheduler(limits, {prefix_cache, "exact"});
    FakeEngine engine(limits, seed * 7919, true, prefix_cache);
    SequenceId next_id = 1;
    for (int step = 0; step < 1500; ++step) {
      submit_some(scheduler, engine, draw, next_id);
      round(scheduler, engine, draw);
      require_clean(engine);
    }
    drain(scheduler, engine);
    require_clean(engine);
    check_outcome(scheduler, engine);
    steps += engine.steps();
    sequences += engine.records().size();
    cached += scheduler.stats().prompt_tokens_cached;
  }
  // The runs did real work (not refusals only), and the cache was used.
  CHECK(steps > 20000);
  CHECK(sequences > 5000);
  CHECK((cached > 10000) == prefix_cache);
}

}  // namespace

TEST_CASE("random limits, arrivals and cancellations: every promise holds at every step") {
  simulate(false);
}

TEST_CASE("the same with a prefix cache: shared blocks hold what each reader's prompt needs") {
  simulate(true);
}

TEST_CASE("a loaded server batches: at least 8 decode rows a step while 16 or more run") {
  SchedulerLimits limits;
  limits.tokens_per_block = 16;
  limits.total_blocks = 2048;
  limits.max_step_tokens = 256;
  limits.max_step_rows = 32;
  limits.max_waiting = 128;
  limits.max_context = 1024;
  Scheduler scheduler(limits);
  FakeEngine engine(limits, 42, false);
  Draw draw(42);
  for (SequenceId id = 1; id <= 64; ++id) {
    const SequenceRequest request{id, draw.between(50, 400), draw.between(32, 200)};
    REQUIRE(scheduler.submit(request).accepted());
    engine.expect(request);
  }
  std::uint64_t busy_steps = 0;
  std::uint64_t busy_decodes = 0;
  for (int guard = 0; guard < 10000 && !scheduler.idle(); ++guard) {
    const StepPlan plan = scheduler.plan();
    if (!plan.to_free.empty()) engine.free_sequences(plan.to_free);
    if (scheduler.stats().running >= 16) {
      ++busy_steps;
      busy_decodes += plan.decode_rows();
    }
    scheduler.complete(plan, engine.run(plan));
  }
  require_clean(engine);
  REQUIRE(scheduler.idle());
  REQUIRE(busy_steps >= 100);
  const double mean = double(busy_decodes) / double(busy_steps);
  INFO("mean decode rows " << mean << " over " << busy_steps << " steps");
  CHECK(mean >= 8.0);
  for (const auto& [id, record] : engine.records()) REQUIRE(record.sampled == record.max_new_tokens);
}
