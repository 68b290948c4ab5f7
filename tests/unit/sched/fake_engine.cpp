#include "fake_engine.hpp"

#include <algorithm>

namespace algenta::sched::test {
namespace {

std::string seq(SequenceId id) { return "sequence " + std::to_string(id); }

}  // namespace

FakeEngine::FakeEngine(const SchedulerLimits& limits, std::uint64_t seed, bool early_finishes,
                       bool shared_blocks)
    : limits_(limits),
      random_(seed),
      early_finishes_(early_finishes),
      shared_blocks_(shared_blocks) {}

void FakeEngine::violation(std::string text) {
  if (violations_.size() < 20) violations_.push_back("step " + std::to_string(steps_) + ": " + text);
}

void FakeEngine::expect(const SequenceRequest& request) {
  Record record;
  record.prompt_length = request.prompt_length;
  record.max_new_tokens = request.max_new_tokens;
  record.stop_after = request.max_new_tokens;
  record.prompt.assign(request.prompt.begin(), request.prompt.end());
  if (early_finishes_) {
    if (random_.next() % 5 == 0) {
      record.says_finished = false;
    } else if (random_.next() % 4 == 0) {
      record.stop_after = 1 + static_cast<std::uint32_t>(random_.next() % request.max_new_tokens);
    }
  }
  if (!records_.emplace(request.id, record).second) violation("test reused " + seq(request.id));
}

void FakeEngine::cancelled(SequenceId id) {
  Record& record = records_.at(id);
  record.cancelled = true;
  record.blocks.clear();  // the next plan releases them before admitting anyone
}

void FakeEngine::free_sequences(std::span<const SequenceId> ids) {
  for (const SequenceId id : ids) {
    const auto it = records_.find(id);
    if (it == records_.end() || !it->second.live) {
      violation("free of " + seq(id) + ", which the engine does not hold");
      continue;
    }
    Record& record = it->second;
    if (!record.ended && !record.cancelled) violation("free of running " + seq(id));
    record.live = false;
    record.freed = true;
    record.blocks.clear();
  }
}

void FakeEngine::check_plan_shape(const StepPlan& plan) {
  if (plan.rows.size() > limits_.max_step_rows) {
    violation(std::to_string(plan.rows.size()) + " rows, over " +
              std::to_string(limits_.max_step_rows));
  }
  if (plan.token_count() > limits_.max_step_tokens) {
    violation(std::to_string(plan.token_count()) + " tokens, over " +
              std::to_string(limits_.max_step_tokens));
  }
  std::set<SequenceId> seen;
  bool prefill_seen = false;
  std::int64_t last_decode = -1;
  std::int64_t last_prefill = -1;
  for (const StepRow& row : plan.rows) {
    if (!seen.insert(row.sequence_id).second) violation(seq(row.sequence_id) + " twice in a step");
    const auto it = records_.find(row.sequence_id);
    if (it == records_.end()) continue;  // check_row says so
    Record& record = it->second;
    if (record.admission < 0) {
      record.admission = static_cast<std::int64_t>(admitted_.size());
      admitted_.push_back(row.sequence_id);
    }
    std::int64_t& last = row.is_prefill ? last_prefill : last_decode;
    if (record.admission <= last) violation(seq(row.sequence_id) + " out of admission order");
    last = record.admission;
    if (!row.is_prefill && prefill_seen) violation("a decode row after a prefill row");
    prefill_seen = prefill_seen || row.is_prefill;
  }
  for (const auto& [id, record] : records_) {
    const bool decoding = record.admission >= 0 && record.cached >= record.prompt_length &&
                          !record.ended && !record.cancelled;
    if (decoding && !seen.count(id)) violation("decoding " + seq(id) + " got no row");
  }
}

void FakeEngine::check_row(const StepRow& row, Record& record) {
  const std::string who = seq(row.sequence_id);
  if (record.ended || record.cancelled || record.freed) {
    violation(who + " planned after it ended or was cancelled");
  }
  const bool first_row = record.chunks.empty() && record.cached == 0 && record.sampled == 0;
  if (shared_blocks_ && first_row && row.is_prefill) {
    record.prefix_hit = row.start_position;  // found computed: checked by check_reads
    record.cached = row.start_position;
  }
  if (row.start_position != record.cached) {
    violation(who + " row starts at " + std::to_string(row.start_position) + ", cache holds " +
              std::to_string(record.cached));
  }
  const std::uint32_t end = row.start_position + row.token_count;
  if (row.token_count == 0) violation(who + " row of zero tokens");
  if (record.cached < record.prompt_length) {
    if (!row.is_prefill) violation(who + " decode row before its prompt is cached");
    if (end > record.prompt_length) violation(who + " chunk runs past its prompt");
    if (row.token_count == 1 && record.prompt_length != 1) {
      violation(who + " one-token chunk of a " + std::to_string(record.prompt_length) +
                "-token prompt");
    }
    if (record.prompt_length - std::min(end, record.prompt_length) == 1) {
      violation(who + " chunk leaves a one-token remainder");
    }
    if (row.is_last_prompt_chunk != (end == record.prompt_length)) {
      violation(who + " is_last_prompt_chunk wrong at " + std::to_string(end));
    }
    record.chunks.emplace_back(row.start_position, row.token_count);
  } else if (row.is_prefill || row.token_count != 1 || row.is_last_prompt_chunk) {
    violation(who + " a decode row must be one token, not prefill");
  }
  if (end > limits_.max_context || end > record.prompt_length + record.max_new_tokens - 1) {
    violation(who + " row reaches position " + std::to_string(end));
  }
  if (std::uint64_t(row.block_table.size()) * limits_.tokens_per_block < end) {
    violation(who + " block table of " + std::to_string(row.block_table.size()) +
              " blocks does not cover " + std::to_string(end) + " positions");
  }
  for (const BlockId block : row.block_table) {
    if (block >= limits_.total_blocks) violation(who + " block " + std::to_string(block));
  }
  if (!std::equal(record.blocks.begin(), record.blocks.end(), row.block_table.begin(),
                  row.block_table.begin() + std::min(record.blocks.size(), row.block_table.size())) ||
      row.block_table.size() < record.blocks.size()) {
    violation(who + " block table changed its earlier blocks");
  }
  record.blocks = row.block_table;
}

// A prompt position holds its token; a generated one the sequence's mark.
std::int64_t FakeEngine::expected_slot(SequenceId id, const Record& record,
                                       std::uint32_t position) const {
  if (position < record.prompt.size()) return record.prompt[position];
  return -1 - static_cast<std::int64_t>(id);
}

void FakeEngine::check_reads(SequenceId id, const StepRow& row, const Record& record) {
  for (std::uint32_t p = 0; p < row.start_position; ++p) {
    const std::uint64_t slot =
        std::uint64_t(row.block_table[p / limits_.tokens_per_block]) * limits_.tokens_per_block +
        p % limits_.tokens_per_block;
    const auto it = slots_.find(slot);
    if (it == slots_.end() || it->second != expected_slot(id, record, p)) {
      violation(seq(id) + " reads position " + std::to_string(p) + " from a slot holding " +
                (it == slots_.end() ? std::string("nothing") : std::to_string(it->second)));
      return;
    }
  }
}

void FakeEngine::write(SequenceId id, const StepRow& row, const Record& record) {
  for (std::uint32_t p = row.start_position; p < row.start_position + row.token_count; ++p) {
    const BlockId block = row.block_table[p / limits_.tokens_per_block];
    for (const auto& [other, other_record] : records_) {
      if (other != id && other_record.live &&
          std::count(other_record.blocks.begin(), other_record.blocks.end(), block)) {
        violation(seq(id) + " writes block " + std::to_string(block) + ", which " + seq(other) +
                  " lists");
      }
    }
    slots_[std::uint64_t(block) * limits_.tokens_per_block + p % limits_.tokens_per_block] =
        expected_slot(id, record, p);
  }
}

void FakeEngine::check_blocks() {
  std::set<BlockId> owned;
  std::set<BlockId> engine_blocks;  // those holding computed positions of live sequences
  for (const auto& [id, record] : records_) {
    for (const BlockId block : record.blocks) {
      if (!owned.insert(block).second && !shared_blocks_) {
        violation("block " + std::to_string(block) + " in two tables");
      }
    }
    if (record.live) {
      const std::size_t computed =
          (record.cached + limits_.tokens_per_block - 1) / limits_.tokens_per_block;
      engine_blocks.insert(record.blocks.begin(),
                           record.blocks.begin() + std::min(computed, record.blocks.size()));
    }
  }
  if (owned.size() > limits_.total_blocks) {
    violation(std::to_string(owned.size()) + " blocks in tables, of " +
              std::to_string(limits_.total_blocks));
  }
  if (engine_blocks.size() > limits_.total_blocks) {
    violation("the engine holds " + std::to_string(engine_blocks.size()) + " blocks of " +
              std::to_string(limits_.total_blocks));
  }
}

std::vector<RowResult> FakeEngine::run(const StepPlan& plan) {
  ++steps_;
  if (plan.rows.empty()) violation("run() of an empty plan");
  check_plan_shape(plan);
  for (const StepRow& row : plan.rows) {
    const auto it = records_.find(row.sequence_id);
    if (it == records_.end()) {
      violation("row for unknown " + seq(row.sequence_id));
    } else {
      check_row(row, it->second);
      check_reads(row.sequence_id, row, it->second);
      write(row.sequence_id, row, it->second);
      it->second.cached += row.token_count;
      it->second.live = true;
    }
  }
  check_blocks();
  std::vector<RowResult> results;
  for (const StepRow& row : plan.rows) {
    RowResult result = RowResult::continues;
    const auto it = records_.find(row.sequence_id);
    if (it != records_.end() && row.samples_next_token()) {
      Record& record = it->second;
      ++record.sampled;
      if (record.sampled > record.max_new_tokens) violation(seq(row.sequence_id) + " over max_new_tokens");
      const std::uint32_t last = record.says_finished ? record.stop_after : record.max_new_tokens;
      if (record.sampled == last) {
        record.ended = true;
        record.blocks.clear();  // the scheduler takes them back at complete()
        if (record.says_finished) result = RowResult::finished;
      }
    }
    results.push_back(result);
  }
  return results;
}

}  // namespace algenta::sched::test
