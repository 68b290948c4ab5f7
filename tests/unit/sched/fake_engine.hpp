// A step executor that behaves as an engine would and checks every plan it is
// given against the scheduler's promises: budgets, decode rows first and in
// admission order, every decoding sequence in every step, chunks that start
// where the cache ends and cover each prompt once, no one-token chunk but a
// one-token prompt's, block tables that cover the row and never overlap, KV
// that never exceeds the cache, frees only of sequences it holds. Rule
// breaks are collected as text, so a test fails with the first few.
//
// It keeps what each block slot holds (the prompt token, or a mark of the
// sequence for generated positions) and checks that every position a row
// reads holds what its own sequence put there. With shared blocks allowed (a
// prefix cache) a block may be in several tables, and a sequence's first
// row may start past 0 on blocks another sequence wrote; a block another
// live sequence lists must still never be written.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "random/splitmix64.hpp"
#include "sched/step_executor.hpp"

namespace algenta::sched::test {

class FakeEngine final : public StepExecutor {
 public:
  // Each sequence ends (RowResult::finished) after its planned number of
  // tokens; `seed` draws an early end for some, and for some it never says
  // finished, leaving the length limit to the scheduler.
  FakeEngine(const SchedulerLimits& limits, std::uint64_t seed, bool early_finishes,
             bool shared_blocks = false);

  // What the test submitted (accepted requests only).
  void expect(const SequenceRequest& request);
  // The test cancelled this live sequence: no row for it may follow.
  void cancelled(SequenceId id);

  void free_sequences(std::span<const SequenceId> ids) override;
  std::vector<RowResult> run(const StepPlan& plan) override;

  struct Record {
    std::uint32_t prompt_length = 0;
    std::uint32_t max_new_tokens = 0;
    std::uint32_t stop_after = 0;  // tokens after which it says finished
    bool says_finished = true;     // false: relies on the scheduler's length limit
    std::uint32_t cached = 0;
    std::uint32_t sampled = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> chunks;  // (start, count) of prefill rows
    std::vector<std::int32_t> prompt;  // when the test gave the tokens
    std::uint32_t prefix_hit = 0;      // positions its first row found computed
    std::vector<BlockId> blocks;  // latest block table
    bool live = false;       // holds KV in this engine
    bool ended = false;      // finished as far as the engine loop knows
    bool cancelled = false;
    bool freed = false;
    std::int64_t admission = -1;  // order of the first row
  };
  const std::map<SequenceId, Record>& records() const { return records_; }
  const std::vector<SequenceId>& admission_order() const { return admitted_; }
  const std::vector<std::string>& violations() const { return violations_; }
  std::uint64_t steps() const { return steps_; }

 private:
  void violation(std::string text);
  void check_row(const StepRow& row, Record& record);
  void check_plan_shape(const StepPlan& plan);
  void check_blocks();
  void check_reads(SequenceId id, const StepRow& row, const Record& record);
  void write(SequenceId id, const StepRow& row, const Record& record);
  std::int64_t expected_slot(SequenceId id, const Record& record, std::uint32_t position) const;

  SchedulerLimits limits_;
  SplitMix64 random_;
  bool early_finishes_;
  bool shared_blocks_;
  std::map<std::uint64_t, std::int64_t> slots_;  // block * tokens_per_block + offset -> content
  std::map<SequenceId, Record> records_;
  std::vector<SequenceId> admitted_;
  std::vector<std::string> violations_;
  std::uint64_t steps_ = 0;
};

}  // namespace algenta::sched::test
