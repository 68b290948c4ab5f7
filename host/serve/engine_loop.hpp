// The one thread that drives the engine. HTTP handlers post jobs; the loop
// runs them first come, first served (one sequence at a time until the
// batching scheduler replaces it), checks between engine steps whether the
// client is gone, and frees a sequence before the next step once it is.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "engine/engine_session.hpp"
#include "openai/errors.hpp"
#include "serve/generation.hpp"
#include "serve/metrics.hpp"

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
  EngineLoop(host::EngineSession& session, const tokenizer::Tokenizer& tokenizer,
             ServeMetrics& metrics, std::size_t max_waiting);
  ~EngineLoop();  // stop()
  EngineLoop(const EngineLoop&) = delete;
  EngineLoop& operator=(const EngineLoop&) = delete;

  // Queues a job; ApiError queue_full (429) when `max_waiting` jobs wait
  // already, not_ready (503) once stop() was called.
  void submit(Job job);
  // Takes no more jobs, finishes those already taken, joins the thread.
  void stop();

 private:
  void run();
  void run_job(Job& job);
  void publish_kv_usage(std::size_t resident_tokens);

  host::EngineSession& session_;
  const tokenizer::Tokenizer& tokenizer_;
  ServeMetrics& metrics_;
  const std::size_t max_waiting_;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> waiting_;
  bool stopping_ = false;
  std::uint64_t next_sequence_id_ = 1;
  std::thread thread_;
};

}  // namespace algenta::serve
