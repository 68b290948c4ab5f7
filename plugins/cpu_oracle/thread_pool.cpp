#include "thread_pool.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace algenta::oracle {

std::size_t configured_worker_count() {
  constexpr std::size_t kMaxWorkers = 1024;
  if (const char* text = std::getenv("ALGENTA_ORACLE_THREADS")) {
    const std::string_view value(text);
    std::size_t workers = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), workers);
    if (error != std::errc{} || end != value.data() + value.size() || workers == 0 ||
        workers > kMaxWorkers) {
      throw std::invalid_argument("ALGENTA_ORACLE_THREADS must be a whole number from 1 to " +
                                  std::to_string(kMaxWorkers) + ", got \"" + std::string(value) +
                                  "\"");
    }
    return workers;
  }
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware == 0 ? 1 : hardware;
}

ThreadPool::ThreadPool(std::size_t workers) : workers_(workers == 0 ? 1 : workers) {
  threads_.reserve(workers_ - 1);
  try {
    for (std::size_t w = 1; w < workers_; ++w) threads_.emplace_back([this, w] { worker_loop(w); });
  } catch (...) {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    start_.notify_all();
    for (std::thread& thread : threads_) thread.join();
    throw;
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void ThreadPool::run_part(std::size_t worker) noexcept {
  const std::size_t begin = count_ * worker / workers_;
  const std::size_t end = count_ * (worker + 1) / workers_;
  if (begin == end) return;
  try {
    (*job_)(worker, begin, end);
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::current_exception();
  }
}

void ThreadPool::worker_loop(std::size_t worker) {
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    run_part(worker);
    {
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

void ThreadPool::run(std::size_t count, const Job& job) {
  if (workers_ == 1) {
    if (count > 0) job(0, 0, count);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    job_ = &job;
    count_ = count;
    pending_ = workers_ - 1;
    error_ = nullptr;
    ++generation_;
  }
  start_.notify_all();
  run_part(0);
  std::exception_ptr error;
  {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
    error = error_;
    job_ = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace algenta::oracle
