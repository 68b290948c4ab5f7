#include "serve/engine_loop.hpp"

#include <exception>

#include "sampling/sampling_params.hpp"

namespace algenta::serve {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

EngineLoop::EngineLoop(host::EngineSession& session, const tokenizer::Tokenizer& tokenizer,
                       ServeMetrics& metrics, std::size_t max_waiting)
    : session_(session), tokenizer_(tokenizer), metrics_(metrics), max_waiting_(max_waiting) {
  publish_kv_usage(0);
  thread_ = std::thread([this] { run(); });
}

EngineLoop::~EngineLoop() { stop(); }

void EngineLoop::submit(Job job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) {
      throw openai::ApiError(openai::ErrorKind::not_ready, "the server is shutting down");
    }
    if (waiting_.size() >= max_waiting_) {
      throw openai::ApiError(openai::ErrorKind::queue_full,
                             "the request queue is full (" + std::to_string(max_waiting_) +
                                 " requests waiting, the --max-queue limit); retry later");
    }
    waiting_.push_back(std::move(job));
    metrics_.requests_waiting(waiting_.size());
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
    Job job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !waiting_.empty(); });
      // Jobs already accepted are finished even while stopping.
      if (waiting_.empty()) return;
      job = std::move(waiting_.front());
      waiting_.pop_front();
      metrics_.requests_waiting(waiting_.size());
    }
    metrics_.requests_running(1);
    run_job(job);
    metrics_.requests_running(0);
  }
}

void EngineLoop::publish_kv_usage(std::size_t resident_tokens) {
  const host::MemoryReport report = session_.memory_report();
  if (report.kv_blocks_total > 0) {
    metrics_.kv_cache_usage(double(report.kv_blocks_total - report.kv_blocks_free) /
                            double(report.kv_blocks_total));
  } else {
    // An engine without block geometry (the oracle): tokens held of those
    // one sequence may hold.
    metrics_.kv_cache_usage(double(resident_tokens) / double(session_.max_context()));
  }
}

void EngineLoop::run_job(Job& job) {
  if (job.sink->cancelled()) {  // left while waiting: never reaches the engine
    job.sink->abandoned();
    return;
  }
  const std::uint64_t id = next_sequence_id_++;
  Generation generation(std::move(job.spec), tokenizer_);
  const std::vector<std::int32_t>& prompt = generation.spec().prompt;
  metrics_.prompt_tokens(prompt.size());
  bool resident = false;
  Clock::time_point last_token = job.arrival;
  try {
    std::vector<std::int32_t> input = prompt;
    std::uint32_t start = 0;
    for (;;) {
      const AlgentaLogitsRequest logits =
          generation.needs_logits() ? ALGENTA_LOGITS_LAST : ALGENTA_LOGITS_NONE;
      const host::StepResult step = session_.step({{id, input, start, logits}});
      resident = true;
      metrics_.engine_step(1, input.size());
      const StepOutput out = generation.advance(step.logits, step.next_tokens.at(0));
      const Clock::time_point now = Clock::now();
      if (generation.output().size() == 1) {
        metrics_.time_to_first_token(seconds_between(job.arrival, now));
        publish_kv_usage(prompt.size() + 1);
      } else {
        metrics_.inter_token_latency(seconds_between(last_token, now));
      }
      last_token = now;
      metrics_.generation_tokens(1);
      const openai::Usage usage{static_cast<std::int64_t>(prompt.size()),
                                static_cast<std::int64_t>(generation.output().size())};
      job.sink->output(out, usage);
      if (out.finished) break;
      if (job.sink->cancelled()) {
        job.sink->abandoned();
        break;
      }
      start = static_cast<std::uint32_t>(prompt.size() + generation.output().size() - 1);
      input.assign(1, generation.output().back());
    }
  } catch (const host::EngineError& e) {
    job.sink->failed(openai::ApiError(openai::ErrorKind::internal,
                                      std::string("the engine failed: ") + e.what()));
  } catch (const sampling::SamplingError& e) {
    job.sink->failed(openai::ApiError(openai::ErrorKind::internal,
                                      std::string("sampling failed: ") + e.what()));
  } catch (const std::exception& e) {
    job.sink->failed(openai::ApiError(openai::ErrorKind::internal, e.what()));
  }
  if (resident) {
    try {
      session_.free_sequences({id});
    } catch (const host::EngineError&) {
      // The engine refused to free what it holds; nothing else can be done
      // here, and the next open of the id would be refused loudly.
    }
  }
  publish_kv_usage(0);
}

}  // namespace algenta::serve
