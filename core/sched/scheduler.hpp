// Continuous batching (SCHEDULER.md): requests wait in a bounded FIFO queue,
// are admitted when their KV blocks can be promised, and share each engine
// step - decode tokens of running sequences first, then prefill chunks -
// under a token and a row budget. Sequences join and leave between steps.
//
// Admission promises every block a sequence can ever need (prompt plus
// max_new_tokens - 1 positions: the last token is sampled, never cached), so
// a running sequence always finishes and nothing is preempted. One caller
// thread; nothing here blocks or allocates threads.
//
// The engine loop's round:
//   plan = scheduler.plan();   // drops cancelled sequences first
//   engine.sequences_free(plan.to_free);
//   results = engine.step(plan.rows);  // a row's tokens: the prompt slice or the last sampled token
//   scheduler.complete(plan, results);
// A step that fails changes nothing here: skip complete() and the next plan
// repeats its rows (or cancel the sequences it failed).
//
// With a prefix cache (SCHEDULER.md, "Prefix caching") admission first looks
// up the whole prompt blocks other sequences computed, lists them at the
// start of the newcomer's block table and promises only the rest; blocks
// only the cache holds count as available and are evicted, least recently
// used first, when free ones are short. A head whose next prompt blocks a
// running sequence is still computing waits for them instead (FIFO holds, so
// the requests behind it wait too).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "sched/block_pool.hpp"
#include "sched/prefix_index.hpp"
#include "sched/scheduler_limits.hpp"
#include "sched/step_plan.hpp"

namespace algenta::sched {

struct SequenceRequest {
  SequenceId id = 0;  // the caller's; unique among live sequences
  std::uint32_t prompt_length = 0;   // >= 1
  std::uint32_t max_new_tokens = 0;  // >= 1
  // The prompt's token ids (prompt_length of them): needed with a prefix
  // cache, which copies them; ignored without one.
  std::span<const std::int32_t> prompt;
};

// Prefix caching: off unless enabled. Blocks computed under one precision
// policy are never shared with another (the policy is part of each key).
struct PrefixCaching {
  bool enabled = false;
  std::string policy;  // the engine's precision policy, e.g. "exact"
};

enum class SubmitOutcome {
  accepted,
  queue_full,  // max_waiting requests wait already: retry later (429)
  too_large,   // can never run: past the context or the whole cache (400)
};

struct SubmitResult {
  SubmitOutcome outcome = SubmitOutcome::accepted;
  std::string reason;  // names the numbers when refused
  bool accepted() const { return outcome == SubmitOutcome::accepted; }
};

enum class SequenceState { unknown, waiting, prefilling, decoding };

struct SchedulerStats {
  std::uint32_t waiting = 0;
  std::uint32_t running = 0;  // admitted, cancelled ones not yet dropped included
  std::uint32_t blocks_total = 0;
  std::uint32_t blocks_held = 0;      // in some sequence's block table
  std::uint32_t blocks_promised = 0;  // promised to running sequences, not yet taken
  std::uint32_t blocks_cached = 0;    // held by the prefix cache alone: evictable
  // Over completed steps.
  std::uint64_t steps = 0;
  std::uint64_t rows = 0;
  std::uint64_t decode_rows = 0;
  std::uint64_t tokens = 0;
  std::uint64_t prompt_tokens_computed = 0;  // in prefill rows
  std::uint64_t prompt_tokens_cached = 0;    // taken from the prefix cache instead

  // The share of the cache the engine holds for sequences, 0-1.
  double kv_usage() const { return double(blocks_held) / double(blocks_total); }
  // The share admission has given away (held or promised), 0-1.
  double kv_committed() const { return double(blocks_held + blocks_promised) / double(blocks_total); }
};

class Scheduler {
 public:
  // check_limits(); a prefix cache when `prefix` enables it.
  explicit Scheduler(const SchedulerLimits& limits, const PrefixCaching& prefix = {});

  // Queues a request. Throws SchedulerError for a zero length, an id that is
  // live already or, with a prefix cache, a prompt whose token count is not
  // prompt_length (caller bugs); refuses, with the reason, a request that
  // can never run and one that finds the queue full.
  SubmitResult submit(const SequenceRequest& request);

  // Drops a waiting request at once; marks a running sequence, which the next
  // plan() drops (its blocks freed, its id in that plan's to_free when the
  // engine holds it). False when the id is not live (it ended already).
  bool cancel(SequenceId id);

  // The next step. Running sequences each get a decode row; prefilling ones,
  // then newly admitted ones (FIFO: the queue's head or nobody), get chunks
  // while the budgets last. With a prefix cache the head is not admitted
  // while a running sequence's prefill is still computing prompt blocks it
  // shares past the head's hit.
  StepPlan plan();

  // Applies the results of the latest plan's rows (one per row, in order):
  // positions advance, sequences that finished (or reached max_new_tokens)
  // end and go to the next plan's to_free. Throws SchedulerError for an
  // older plan, a second completion, a count mismatch, or a row that samples
  // nothing marked finished - before changing anything.
  void complete(const StepPlan& plan, std::span<const RowResult> results);

  SequenceState state_of(SequenceId id) const;
  bool idle() const { return waiting_.empty() && running_.empty(); }
  SchedulerStats stats() const;
  const SchedulerLimits& limits() const { return limits_; }
  bool prefix_caching() const { return index_.has_value(); }

 private:
  struct Sequence {
    SequenceId id = 0;
    std::uint32_t prompt_length = 0;
    std::uint32_t max_new_tokens = 0;
    std::uint32_t cached = 0;     // positions the engine holds (after completed steps)
    std::uint32_t generated = 0;  // tokens sampled
    std::vector<BlockId> blocks;
    std::uint32_t promised = 0;  // blocks still promised to it
    bool resident = false;       // a completed step sent it to the engine
    bool cancelled = false;
    std::vector<std::int32_t> prompt;  // with a prefix cache only
    std::vector<BlockKey> prompt_keys; // its whole prompt blocks' keys, likewise
    std::uint32_t listed_blocks = 0;   // its whole prompt blocks the cache lists
    bool prefilling() const { return cached < prompt_length; }
  };

  std::uint32_t lifetime_blocks(std::uint32_t prompt_length, std::uint32_t max_new_tokens) const;
  bool take_blocks(Sequence& head, std::span<const BlockId> cached);
  void list_computed_prompt_blocks(Sequence& sequence);
  std::uint32_t blocks_in_flight(const Sequence& head, std::uint32_t hit) const;
  void drop_cancelled();
  void end(Sequence& sequence);
  void cover_positions(Sequence& sequence, std::uint32_t positions);
  StepRow row_for(Sequence& sequence, std::uint32_t token_count);
  Sequence* find_running(SequenceId id);
  const Sequence* find_running(SequenceId id) const;
  void check_results(const StepPlan& plan, std::span<const RowResult> results) const;

  SchedulerLimits limits_;
  std::uint32_t running_cap_;
  BlockPool pool_;
  std::optional<PrefixIndex> index_;  // the prefix cache, when enabled
  std::deque<Sequence> waiting_;
  std::vector<Sequence> running_;  // admission order
  std::unordered_set<SequenceId> live_ids_;
  std::vector<SequenceId> to_free_;
  std::uint64_t last_step_ = 0;
  bool last_completed_ = true;
  SchedulerStats totals_;  // the step counters
};

}  // namespace algenta::sched
