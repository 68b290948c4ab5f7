// A fixed set of workers that split a range [0, count) into one contiguous
// part each: worker w takes [count*w/n, count*(w+1)/n). The pool decides only
// who computes an output, never how: every caller gives each output element
// to exactly one part and reduces it in its own fixed order, so results are
// the same bits for any worker count.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace algenta::oracle {

// ALGENTA_ORACLE_THREADS when set (a positive integer, else
// std::invalid_argument), otherwise std::thread::hardware_concurrency().
std::size_t configured_worker_count();

class ThreadPool {
 public:
  using Job = std::function<void(std::size_t worker, std::size_t begin, std::size_t end)>;

  // The calling thread is worker 0; `workers - 1` threads are started.
  explicit ThreadPool(std::size_t workers);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  std::size_t size() const noexcept { return workers_; }

  // Runs job on every non-empty part and waits; rethrows the first
  // exception a part threw. Not reentrant.
  void run(std::size_t count, const Job& job);

 private:
  void worker_loop(std::size_t worker);
  void run_part(std::size_t worker) noexcept;

  std::size_t workers_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  const Job* job_ = nullptr;
  std::size_t count_ = 0;
  std::uint64_t generation_ = 0;
  std::size_t pending_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace algenta::oracle
