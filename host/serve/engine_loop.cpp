#include "serve/engine_loop.hpp"

#include <exception>
#include <iostream>

#include "sampling/sampling_params.hpp"

namespace algenta::serve {
namespace {

using sched::RowResult;

double seconds_between(std::chrono::steady_clock::time_point from,
                       std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

openai::ApiError internal_error(const std::string& what) {
  return openai::ApiError(openai::ErrorKind::internal, what);
}

sched::PrefixCaching prefix_caching_for(const StepEngine& engine, const BatchOptions& options) {
  if (!options.prefix_cache) return {};
  if (!engine.host_block_geometry()) {
    throw sched::SchedulerError("a prefix cache needs an engine that takes the host's KV block "
                                "tables, and this one keeps its own cache");
  }
  return {true, engine.precision()};
}

}  // namespace

EngineLoop::EngineLoop(StepEngine& engine, const tokenizer::Tokenizer* tokenizer,
                       ServeMetrics& metrics, const BatchOptions& options)
    : engine_(engine),
      tokenizer_(tokenizer),
      metrics_(metrics),
      limits_(batch_limits(engine.memory_report(), engine.host_block_geometry(),
                           engine.max_context(), options)),
      host_blocks_(engine.host_block_geometry().has_value()),
      engine_samples_(engine.engine_samples()),
      scheduler_(limits_, prefix_caching_for(engine, options)) {
  metrics_.kv_cache_usage(0);
  thread_ = std::thread([this] { run(); });
}

EngineLoop::~EngineLoop() { stop(); }

void EngineLoop::submit(Job job) {
  const std::size_t prompt = job.spec.prompt.size();
  const std::uint32_t max_tokens = job.spec.max_tokens;
  // Refused here rather than by the scheduler, so the client gets a 400
  // before a stream's headers go out.
  const std::string refusal =
      prompt == 0 || max_tokens == 0
          ? "needs at least one prompt token and one new token"
          : sched::size_refusal(limits_, static_cast<std::uint32_t>(prompt), max_tokens);
  if (!refusal.empty()) {
    throw openai::ApiError(openai::ErrorKind::invalid_request,
                           "a prompt of " + std::to_string(prompt) + " tokens with max_tokens " +
                               std::to_string(max_tokens) + " cannot run (context " +
                               std::to_string(limits_.max_context) + " tokens): it " + refusal);
  }
  {
    std::lock_guard lock(mutex_);
    if (stopping_) {
      throw openai::ApiError(openai::ErrorKind::not_ready, "the server is shutting down");
    }
    if (queued_ >= limits_.max_waiting) {
      throw openai::ApiError(openai::ErrorKind::queue_full,
                             "the request queue is full (" + std::to_string(limits_.max_waiting) +
                                 " requests waiting, the --max-queue limit); retry later");
    }
    inbox_.push_back(std::move(job));
    ++queued_;
    metrics_.requests_waiting(queued_);
  }
  wake_.notify_one();
}

void EngineLoop::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EngineLoop::run() {
  for (;;) {
    std::deque<Job> arrived;
    {
      std::unique_lock lock(mutex_);
      // With sequences running there is no waiting: the next step is due.
      const auto busy = [this] { return !inbox_.empty() || !scheduler_.idle() || frees_due_; };
      wake_.wait(lock, [&] { return stopping_ || busy(); });
      // Jobs already accepted are finished even while stopping.
      if (!busy()) return;
      arrived.swap(inbox_);
    }
    for (Job& job : arrived) enqueue(std::move(job));
    drop_departed();
    step_once();
  }
}

void EngineLoop::enqueue(Job job) {
  if (job.sink->cancelled()) {  // left while waiting: never reaches the scheduler
    job.sink->abandoned();
    return;
  }
  const sched::SequenceId id = next_sequence_id_++;
  const sched::SubmitResult submitted =
      scheduler_.submit({id, static_cast<std::uint32_t>(job.spec.prompt.size()),
                         job.spec.max_tokens, job.spec.prompt});
  if (!submitted.accepted()) {
    // submit() already refused these; the scheduler agrees unless a bug
    // separates the two checks.
    job.sink->failed(openai::ApiError(submitted.outcome == sched::SubmitOutcome::queue_full
                                          ? openai::ErrorKind::queue_full
                                          : openai::ErrorKind::invalid_request,
                                      submitted.reason));
    return;
  }
  metrics_.prompt_tokens(job.spec.prompt.size());
  const Clock::time_point arrival = job.arrival;
  GenerationSpec spec = std::move(job.spec);
  jobs_.emplace(std::piecewise_construct, std::forward_as_tuple(id),
                std::forward_as_tuple(Running{std::move(job), Generation(std::move(spec), tokenizer_),
                                              arrival}));
}

void EngineLoop::drop_departed() {
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (!it->second.job.sink->cancelled()) {
      ++it;
      continue;
    }
    // A waiting one leaves at once; a running one is dropped by the next
    // plan(), which lists it in to_free when the engine holds it.
    scheduler_.cancel(it->first);
    frees_due_ = true;
    it->second.job.sink->abandoned();
    it = jobs_.erase(it);
  }
}

std::vector<host::ChunkRequest> EngineLoop::chunks_for(const sched::StepPlan& plan) const {
  std::vector<host::ChunkRequest> chunks;
  chunks.reserve(plan.rows.size());
  for (const sched::StepRow& row : plan.rows) {
    const Generation& generation = jobs_.at(row.sequence_id).generation;
    host::ChunkRequest chunk;
    chunk.sequence_id = row.sequence_id;
    chunk.start_position = row.start_position;
    if (row.is_prefill) {
      const auto first = generation.spec().prompt.begin() + row.start_position;
      chunk.tokens.assign(first, first + row.token_count);
    } else {
      chunk.tokens.assign(1, generation.output().back());
    }
    // Logits (or, with an engine that draws, sampling parameters) only where
    // a token is sampled and the engine's greedy pick will not do; a chunk
    // before the prompt's last needs neither.
    const bool samples = row.samples_next_token() && generation.needs_logits();
    if (samples && engine_samples_) {
      chunk.sampling = generation.engine_sampling(engine_.vocab_size());
    } else {
      chunk.logits = samples ? ALGENTA_LOGITS_LAST : ALGENTA_LOGITS_NONE;
    }
    if (host_blocks_) chunk.block_table = row.block_table;
    chunks.push_back(std::move(chunk));
  }
  return chunks;
}

void EngineLoop::step_once() {
  const sched::StepPlan plan = scheduler_.plan();
  frees_due_ = false;
  publish_counts();
  if (!plan.to_free.empty()) {
    try {
      engine_.free_sequences(plan.to_free);
    } catch (const host::EngineError& e) {
      // The engine refused to free what it holds; the scheduler gave the
      // blocks back anyway, and a later open of such an id would be refused
      // loudly.
      std::cerr << "algenta-host serve: freeing finished sequences failed: " << e.what() << "\n";
    }
  }
  if (plan.rows.empty()) return;

  const std::vector<host::ChunkRequest> chunks = chunks_for(plan);
  host::StepResult result;
  try {
    result = engine_.step(chunks);
  } catch (const std::exception& e) {
    // The engine does not say which row it refused: every job of the step fails.
    fail_rows(plan, internal_error(std::string("the engine failed: ") + e.what()));
    return;
  }
  const std::size_t vocab = engine_.vocab_size();
  std::size_t logits_rows = 0;
  for (const host::ChunkRequest& chunk : chunks) logits_rows += chunk.logits == ALGENTA_LOGITS_LAST;
  const bool drawn_ok = engine_samples_ ? result.drawn.size() == chunks.size() : true;
  if (result.next_tokens.size() != chunks.size() || result.logits.size() != logits_rows * vocab ||
      !drawn_ok) {
    fail_rows(plan, internal_error("the engine answered a step of " +
                                   std::to_string(chunks.size()) + " chunks with " +
                                   std::to_string(result.next_tokens.size()) + " tokens and " +
                                   std::to_string(result.logits.size()) + " logits (expected " +
                                   std::to_string(logits_rows * vocab) + ")"));
    return;
  }
  metrics_.engine_step(plan.rows.size(), plan.token_count());

  std::size_t logits_offset = 0;
  std::vector<RowResult> results(plan.rows.size(), RowResult::continues);
  for (std::size_t i = 0; i < plan.rows.size(); ++i) {
    const sched::StepRow& row = plan.rows[i];
    std::span<const float> logits;
    if (chunks[i].logits == ALGENTA_LOGITS_LAST) {
      logits = std::span<const float>(result.logits).subspan(logits_offset, vocab);
      logits_offset += vocab;
    }
    if (!row.samples_next_token()) continue;
    const auto it = jobs_.find(row.sequence_id);
    const host::DrawnLogprobs* drawn = chunks[i].sampling ? &result.drawn[i] : nullptr;
    results[i] = deliver(it->second, logits, result.next_tokens[i], drawn);
    if (results[i] == RowResult::finished) {
      jobs_.erase(it);
      frees_due_ = true;
    }
  }
  scheduler_.complete(plan, results);
  publish_counts();
}

RowResult EngineLoop::deliver(Running& running, std::span<const float> logits,
                              std::int32_t engine_token, const host::DrawnLogprobs* drawn) {
  StepOutput out;
  try {
    out = drawn != nullptr ? running.generation.advance_drawn(engine_token, *drawn)
                           : running.generation.advance(logits, engine_token);
  } catch (const sampling::SamplingError& e) {
    running.job.sink->failed(internal_error(std::string("sampling failed: ") + e.what()));
    return RowResult::finished;
  } catch (const std::exception& e) {
    running.job.sink->failed(internal_error(e.what()));
    return RowResult::finished;
  }
  const Clock::time_point now = Clock::now();
  const std::size_t generated = running.generation.output().size();
  if (generated == 1) {
    metrics_.time_to_first_token(seconds_between(running.job.arrival, now));
  } else {
    metrics_.inter_token_latency(seconds_between(running.last_token, now));
  }
  running.last_token = now;
  metrics_.generation_tokens(1);
  const openai::Usage usage{static_cast<std::int64_t>(running.generation.spec().prompt.size()),
                            static_cast<std::int64_t>(generated)};
  running.job.sink->output(out, usage);
  return out.finished ? RowResult::finished : RowResult::continues;
}

void EngineLoop::fail_rows(const sched::StepPlan& plan, const openai::ApiError& error) {
  for (const sched::StepRow& row : plan.rows) {
    const auto it = jobs_.find(row.sequence_id);
    if (it == jobs_.end()) continue;
    it->second.job.sink->failed(error);
    scheduler_.cancel(row.sequence_id);  // freed by the next plan when the engine holds it
    frees_due_ = true;
    jobs_.erase(it);
  }
}

void EngineLoop::publish_counts() {
  const sched::SchedulerStats stats = scheduler_.stats();
  {
    std::lock_guard lock(mutex_);
    queued_ = inbox_.size() + stats.waiting;
    metrics_.requests_waiting(queued_);
  }
  metrics_.requests_running(stats.running);
  metrics_.kv_cache_usage(stats.kv_usage());
  metrics_.prompt_tokens_computed(stats.prompt_tokens_computed - published_.prompt_tokens_computed);
  metrics_.prompt_tokens_cached(stats.prompt_tokens_cached - published_.prompt_tokens_cached);
  published_ = stats;
}

}  // namespace algenta::serve
