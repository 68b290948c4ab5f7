#include "sched/scheduler.hpp"

#include <algorithm>
#include <utility>

#include "sched/prefill_chunk.hpp"

namespace algenta::sched {
namespace {

std::string id_text(SequenceId id) { return "sequence " + std::to_string(id); }

}  // namespace

Scheduler::Scheduler(const SchedulerLimits& limits, const PrefixCaching& prefix)
    : limits_((check_limits(limits), limits)),
      running_cap_(running_cap(limits)),
      pool_(limits.total_blocks) {
  if (prefix.enabled) index_.emplace(limits.tokens_per_block, prefix.policy);
}

std::uint32_t Scheduler::lifetime_blocks(std::uint32_t prompt_length,
                                         std::uint32_t max_new_tokens) const {
  // The last new token is sampled, never fed back, so it takes no position.
  const std::uint64_t positions = std::uint64_t(prompt_length) + max_new_tokens - 1;
  return blocks_for_positions(positions, limits_.tokens_per_block);
}

SubmitResult Scheduler::submit(const SequenceRequest& request) {
  if (request.prompt_length == 0 || request.max_new_tokens == 0) {
    throw SchedulerError(id_text(request.id) + " has prompt_length " +
                         std::to_string(request.prompt_length) + " and max_new_tokens " +
                         std::to_string(request.max_new_tokens) + "; both must be >= 1");
  }
  if (live_ids_.count(request.id)) throw SchedulerError(id_text(request.id) + " is live already");
  if (index_ && request.prompt.size() != request.prompt_length) {
    throw SchedulerError(id_text(request.id) + " has prompt_length " +
                         std::to_string(request.prompt_length) + " but " +
                         std::to_string(request.prompt.size()) +
                         " prompt tokens; the prefix cache needs them all");
  }
  if (const std::string refusal =
          size_refusal(limits_, request.prompt_length, request.max_new_tokens);
      !refusal.empty()) {
    return {SubmitOutcome::too_large, id_text(request.id) + " " + refusal};
  }
  if (waiting_.size() >= limits_.max_waiting) {
    return {SubmitOutcome::queue_full,
            std::to_string(waiting_.size()) + " requests wait already (the limit is " +
                std::to_string(limits_.max_waiting) + ")"};
  }
  Sequence sequence;
  sequence.id = request.id;
  sequence.prompt_length = request.prompt_length;
  sequence.max_new_tokens = request.max_new_tokens;
  if (index_) {
    sequence.prompt.assign(request.prompt.begin(), request.prompt.end());
    sequence.prompt_keys = index_->keys(sequence.prompt);
  }
  waiting_.push_back(std::move(sequence));
  live_ids_.insert(request.id);
  return {};
}

bool Scheduler::cancel(SequenceId id) {
  if (!live_ids_.count(id)) return false;
  const auto waiting = std::find_if(waiting_.begin(), waiting_.end(),
                                    [id](const Sequence& s) { return s.id == id; });
  if (waiting != waiting_.end()) {
    waiting_.erase(waiting);  // holds nothing, and the engine never saw it
    live_ids_.erase(id);
    return true;
  }
  find_running(id)->cancelled = true;
  return true;
}

const Scheduler::Sequence* Scheduler::find_running(SequenceId id) const {
  const auto it = std::find_if(running_.begin(), running_.end(),
                               [id](const Sequence& s) { return s.id == id; });
  return it == running_.end() ? nullptr : &*it;
}

Scheduler::Sequence* Scheduler::find_running(SequenceId id) {
  return const_cast<Sequence*>(std::as_const(*this).find_running(id));
}

void Scheduler::end(Sequence& sequence) {
  for (const BlockId block : sequence.blocks) pool_.release(block);
  sequence.blocks.clear();
  pool_.withdraw(sequence.promised);
  sequence.promised = 0;
  if (sequence.resident) to_free_.push_back(sequence.id);
  live_ids_.erase(sequence.id);
}

void Scheduler::drop_cancelled() {
  for (Sequence& sequence : running_) {
    if (sequence.cancelled) end(sequence);
  }
  std::erase_if(running_, [](const Sequence& s) { return s.cancelled; });
}

void Scheduler::cover_positions(Sequence& sequence, std::uint32_t positions) {
  const std::uint32_t needed = blocks_for_positions(positions, limits_.tokens_per_block);
  while (sequence.blocks.size() < needed) {
    if (sequence.promised == 0) {
      throw SchedulerError(id_text(sequence.id) + " needs block " +
                           std::to_string(sequence.blocks.size() + 1) +
                           " beyond those promised at admission");
    }
    sequence.blocks.push_back(pool_.take_promised());
    --sequence.promised;
  }
}

StepRow Scheduler::row_for(Sequence& sequence, std::uint32_t token_count) {
  StepRow row;
  row.sequence_id = sequence.id;
  row.start_position = sequence.cached;
  row.token_count = token_count;
  row.is_prefill = sequence.prefilling();
  row.is_last_prompt_chunk = row.is_prefill && sequence.cached + token_count == sequence.prompt_length;
  cover_positions(sequence, sequence.cached + token_count);
  row.block_table = sequence.blocks;
  return row;
}

StepPlan Scheduler::plan() {
  drop_cancelled();
  StepPlan plan;
  plan.step = ++last_step_;
  last_completed_ = false;
  plan.to_free = std::move(to_free_);
  to_free_.clear();

  std::uint32_t tokens_left = limits_.max_step_tokens;
  std::uint32_t rows_left = limits_.max_step_rows;
  // Admission keeps running sequences within both budgets, so every decode fits.
  for (Sequence& sequence : running_) {
    if (sequence.prefilling() || rows_left == 0 || tokens_left == 0) continue;
    plan.rows.push_back(row_for(sequence, 1));
    --rows_left;
    --tokens_left;
  }
  // A prefill that gets no chunk (the budget left would cut it into a
  // one-token piece) holds admission back, so newcomers cannot starve it.
  bool prefill_waits = false;
  for (Sequence& sequence : running_) {
    if (!sequence.prefilling()) continue;
    const std::uint32_t chunk =
        rows_left == 0 ? 0
                       : prefill_chunk_length(sequence.prompt_length, sequence.cached, tokens_left);
    if (chunk == 0) {
      prefill_waits = true;
      continue;
    }
    plan.rows.push_back(row_for(sequence, chunk));
    --rows_left;
    tokens_left -= chunk;
  }
  // FIFO: the head is admitted or nobody is, so no request is overtaken.
  while (!prefill_waits && !waiting_.empty() && running_.size() < running_cap_ && rows_left > 0) {
    Sequence& head = waiting_.front();
    // Only blocks whose prefill completed are listed; blocks another running
    // sequence is still computing are waited for rather than computed twice.
    const std::vector<BlockId> cached =
        index_ ? index_->match(head.prompt_keys, head.prompt_length) : std::vector<BlockId>{};
    if (index_ && blocks_in_flight(head, static_cast<std::uint32_t>(cached.size())) > 0) break;
    const std::uint32_t cached_tokens =
        static_cast<std::uint32_t>(cached.size()) * limits_.tokens_per_block;
    const std::uint32_t chunk =
        prefill_chunk_length(head.prompt_length, cached_tokens, tokens_left);
    if (chunk == 0) break;
    if (!take_blocks(head, cached)) break;
    running_.push_back(std::move(head));
    waiting_.pop_front();
    plan.rows.push_back(row_for(running_.back(), chunk));
    --rows_left;
    tokens_left -= chunk;
  }
  return plan;
}

bool Scheduler::take_blocks(Sequence& head, std::span<const BlockId> cached) {
  for (const BlockId block : cached) pool_.retain(block);  // no longer evictable
  const std::uint32_t needed = lifetime_blocks(head.prompt_length, head.max_new_tokens) -
                               static_cast<std::uint32_t>(cached.size());
  const std::uint32_t evictable = index_ ? index_->evictable(pool_) : 0;
  if (needed > pool_.available() + evictable) {
    for (const BlockId block : cached) pool_.release(block);
    return false;
  }
  if (needed > pool_.available()) index_->evict(needed - pool_.available(), pool_);
  if (!pool_.promise(needed)) throw SchedulerError("eviction left fewer blocks than it counted");
  head.blocks.assign(cached.begin(), cached.end());
  head.cached = static_cast<std::uint32_t>(cached.size()) * limits_.tokens_per_block;
  head.listed_blocks = static_cast<std::uint32_t>(cached.size());
  head.promised = needed;
  return true;
}

std::uint32_t Scheduler::blocks_in_flight(const Sequence& head, std::uint32_t hit) const {
  // Keys chain their parents, so equal keys at block i mean equal prompts up
  // to the end of block i. A running prefill lists its whole prompt blocks
  // chunk by chunk (listed_blocks of them so far); those the head could be
  // served (servable_blocks) past its hit that such a sequence shares but
  // has not listed yet are in flight. Cancelled sequences are dropped before
  // admission, so they never hold a head back.
  const std::size_t servable =
      std::min(head.prompt_keys.size(), index_->servable_blocks(head.prompt_length));
  std::uint32_t in_flight = 0;
  for (const Sequence& sequence : running_) {
    if (!sequence.prefilling() || sequence.cancelled) continue;
    std::size_t shared = hit;
    const std::size_t limit = std::min(servable, sequence.prompt_keys.size());
    while (shared < limit && sequence.prompt_keys[shared] == head.prompt_keys[shared]) ++shared;
    const std::size_t computed = std::max<std::size_t>(hit, sequence.listed_blocks);
    if (shared > computed) {
      in_flight = std::max(in_flight, static_cast<std::uint32_t>(shared - computed));
    }
  }
  return in_flight;
}

void Scheduler::list_computed_prompt_blocks(Sequence& sequence) {
  // Whole blocks of prompt positions are never written again: the sequence
  // goes on past them.
  const std::uint32_t whole =
      std::min(sequence.cached, sequence.prompt_length) / limits_.tokens_per_block;
  if (whole <= sequence.listed_blocks) return;
  const std::span<const std::int32_t> prompt(sequence.prompt);
  index_->insert(prompt.first(std::size_t(whole) * limits_.tokens_per_block),
                 std::span<const BlockId>(sequence.blocks).first(whole), pool_);
  sequence.listed_blocks = whole;
}

void Scheduler::check_results(const StepPlan& plan, std::span<const RowResult> results) const {
  if (plan.step != last_step_ || last_completed_) {
    throw SchedulerError("results for step " + std::to_string(plan.step) + ", but the step to " +
                         "complete is " +
                         (last_completed_ ? std::string("none") : std::to_string(last_step_)));
  }
  if (results.size() != plan.rows.size()) {
    throw SchedulerError(std::to_string(results.size()) + " results for step " +
                         std::to_string(plan.step) + ", which has " +
                         std::to_string(plan.rows.size()) + " rows");
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    const StepRow& row = plan.rows[i];
    const Sequence* sequence = find_running(row.sequence_id);
    if (sequence == nullptr || sequence->cached != row.start_position) {
      throw SchedulerError("row " + std::to_string(i) + " of step " + std::to_string(plan.step) +
                           " (" + id_text(row.sequence_id) + " at position " +
                           std::to_string(row.start_position) + ") does not match the " +
                           (sequence ? "sequence's " + std::to_string(sequence->cached) +
                                           " cached positions"
                                     : std::string("running sequences")));
    }
    if (results[i] == RowResult::finished && !plan.rows[i].samples_next_token()) {
      throw SchedulerError("row " + std::to_string(i) + " (" +
                           id_text(plan.rows[i].sequence_id) +
                           ", a prefill chunk before the last) is marked finished, but it " +
                           "samples no token");
    }
  }
}

void Scheduler::complete(const StepPlan& plan, std::span<const RowResult> results) {
  check_results(plan, results);
  last_completed_ = true;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const StepRow& row = plan.rows[i];
    Sequence* sequence = find_running(row.sequence_id);  // check_results found it
    if (!sequence->resident) totals_.prompt_tokens_cached += row.start_position;  // its cache hit
    if (row.is_prefill) totals_.prompt_tokens_computed += row.token_count;
    sequence->cached += row.token_count;
    sequence->resident = true;
    if (index_ && row.is_prefill) list_computed_prompt_blocks(*sequence);
    if (!row.samples_next_token()) continue;
    ++sequence->generated;
    if (results[i] == RowResult::finished || sequence->generated == sequence->max_new_tokens) {
      end(*sequence);
      running_.erase(running_.begin() + (sequence - running_.data()));
    }
  }
  ++totals_.steps;
  totals_.rows += plan.rows.size();
  totals_.decode_rows += plan.decode_rows();
  totals_.tokens += plan.token_count();
}

SequenceState Scheduler::state_of(SequenceId id) const {
  if (!live_ids_.count(id)) return SequenceState::unknown;
  for (const Sequence& s : running_) {
    if (s.id == id) return s.prefilling() ? SequenceState::prefilling : SequenceState::decoding;
  }
  return SequenceState::waiting;
}

SchedulerStats Scheduler::stats() const {
  SchedulerStats stats = totals_;
  stats.waiting = static_cast<std::uint32_t>(waiting_.size());
  stats.running = static_cast<std::uint32_t>(running_.size());
  stats.blocks_total = pool_.total();
  stats.blocks_cached = index_ ? index_->evictable(pool_) : 0;
  stats.blocks_held = pool_.total() - pool_.free_count() - stats.blocks_cached;
  stats.blocks_promised = pool_.promised();
  return stats;
}

}  // namespace algenta::sched
