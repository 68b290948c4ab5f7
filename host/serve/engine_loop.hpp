// The one thread that drives the engine. HTTP handlers post jobs; the loop
// batches them through the continuous-batching scheduler (core/sched): each
// round is one engine step carrying a decode token of every running request
// and prefill chunks of new ones. Requests join and leave between steps; a
// client that is gone is dropped there and its sequence freed before the
// next step. When the engine took the host's block tables the scheduler's
// blocks are the engine's (each chunk carries its table), and a prefix cache
// may share computed prompt blocks between requests.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "openai/errors.hpp"
#include "sched/scheduler.hpp"
#include "serve/batch_limits.hpp"
#include "serve/generation.hpp"
#include "serve/metrics.hpp"
#include "serve/step_engine.hpp"

namespace algenta::serve {

// Where a job's results go. Called on the loop thread; must not block.
class JobSink {
 public:
  virtual ~JobSink() = default;
  // One step's output; the last one has `finished` set. `usage` is the
  // count so far.
  virtual void output(const StepOutput& out, const openai::Usage& usage) = 0;
  // The job ended without an answer (nothing more will be called).
  virtual void failed(const openai::ApiError& error) = 0;
  // The client left: the job is dropped between steps, then abandoned() is
  // called instead of another output().
  virtual bool cancelled() const = 0;
  virtual void abandoned() = 0;
};

struct Job {
  GenerationSpec spec;
  std::shared_ptr<JobSink> sink;
  std::chrono::steady_clock::time_point arrival = std::chrono::steady_clock::now();
};

class EngineLoop {
 public:
  // `tokenizer`: nullptr when the model has none (answers carry ids only).
  // Throws sched::SchedulerError when `options` cannot be planned with, and
  // when they ask for a prefix cache of an engine that did not take the
  // host's block tables.
  EngineLoop(StepEngine& engine, const tokenizer::Tokenizer* tokenizer, ServeMetrics& metrics,
             const BatchOptions& options);
  ~EngineLoop();  // stop()
  EngineLoop(const EngineLoop&) = delete;
  EngineLoop& operator=(const EngineLoop&) = delete;

  // Queues a job. ApiError invalid_request (400) when it can never run on
  // this engine, queue_full (429) when `max_waiting` jobs wait already,
  // not_ready (503) once stop() was called.
  void submit(Job job);
  // Takes no more jobs, finishes those already taken, joins the thread.
  void stop();

  const sched::SchedulerLimits& limits() const { return limits_; }
  bool prefix_caching() const { return scheduler_.prefix_caching(); }

 private:
  using Clock = std::chrono::steady_clock;
  // A job the scheduler knows, from its submission to its last output.
  struct Running {
    Job job;
    Generation generation;
    Clock::time_point last_token;
  };

  void run();
  void enqueue(Job job);
  void drop_departed();
  void step_once();
  std::vector<host::ChunkRequest> chunks_for(const sched::StepPlan& plan) const;
  // The row's token: drawn by the host from `logits` (or the engine's greedy
  // token), or, with `drawn`, drawn by the engine.
  sched::RowResult deliver(Running& running, std::span<const float> logits,
                           std::int32_t engine_token, const host::DrawnLogprobs* drawn);
  void fail_rows(const sched::StepPlan& plan, const openai::ApiError& error);
  void publish_counts();

  StepEngine& engine_;
  const tokenizer::Tokenizer* tokenizer_;  // nullptr: none (synthetic weights)
  ServeMetrics& metrics_;
  const sched::SchedulerLimits limits_;
  const bool host_blocks_;  // chunks carry the scheduler's block tables
  const bool engine_samples_;  // sampled chunks carry parameters, not logits requests

  // The loop thread's own.
  sched::Scheduler scheduler_;
  std::unordered_map<sched::SequenceId, Running> jobs_;
  sched::SequenceId next_sequence_id_ = 1;
  // A sequence ended or was cancelled since the last plan(): the next plan
  // lists it to free, so that round is due even when nothing else runs.
  bool frees_due_ = false;
  sched::SchedulerStats published_;  // the counters /metrics has been given

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> inbox_;
  std::size_t queued_ = 0;  // in the inbox or the scheduler's queue: the --max-queue count
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace algenta::serve
