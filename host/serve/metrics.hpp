// What /metrics reports, kept in a prometheus-cpp registry (its core only:
// the text is served by our own listener, behind the same key check as the
// API). Names follow Prometheus conventions with an algenta_ prefix.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace prometheus {
class Registry;
class Counter;
class Gauge;
class Histogram;
template <typename T>
class Family;
}  // namespace prometheus

namespace algenta::serve {

inline constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

class ServeMetrics {
 public:
  explicit ServeMetrics(const std::string& model_name);
  ~ServeMetrics();
  ServeMetrics(const ServeMetrics&) = delete;
  ServeMetrics& operator=(const ServeMetrics&) = delete;

  // One answered request: route ("chat_completions", "completions", ...) and
  // the HTTP status it got (a stream that began counts as 200).
  void request_done(std::string_view route, int status);
  void time_to_first_token(double seconds);
  void inter_token_latency(double seconds);
  void prompt_tokens(std::uint64_t count);
  // Prompt tokens the engine computed, and those a prefix cache served.
  void prompt_tokens_computed(std::uint64_t count);
  void prompt_tokens_cached(std::uint64_t count);
  void generation_tokens(std::uint64_t count);
  void requests_waiting(std::size_t count);
  void requests_running(std::size_t count);
  void kv_cache_usage(double fraction);  // 0-1
  // One engine step: how many sequences and tokens it carried.
  void engine_step(std::size_t rows, std::size_t tokens);

  // The Prometheus text exposition format (0.0.4).
  std::string text() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* requests_;
  prometheus::Histogram* ttft_;
  prometheus::Histogram* inter_token_;
  prometheus::Counter* prompt_tokens_;
  prometheus::Counter* prompt_tokens_computed_;
  prometheus::Counter* prompt_tokens_cached_;
  prometheus::Counter* generation_tokens_;
  prometheus::Gauge* waiting_;
  prometheus::Gauge* running_;
  prometheus::Gauge* kv_usage_;
  prometheus::Histogram* step_rows_;
  prometheus::Histogram* step_tokens_;
  std::string model_;
};

}  // namespace algenta::serve
