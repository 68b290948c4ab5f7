#include "serve/metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <sstream>

namespace algenta::serve {
namespace {

using prometheus::Histogram;

// Latency buckets in seconds: from a fast GPU step (1 ms) to a long prefill.
Histogram::BucketBoundaries latency_buckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

Histogram::BucketBoundaries count_buckets() {
  return {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
}

}  // namespace

ServeMetrics::ServeMetrics(const std::string& model_name)
    : registry_(std::make_shared<prometheus::Registry>()), model_(model_name) {
  const prometheus::Labels model = {{"model_name", model_name}};
  requests_ = &prometheus::BuildCounter()
                   .Name("algenta_requests_total")
                   .Help("Requests answered, by route and HTTP status")
                   .Register(*registry_);
  ttft_ = &prometheus::BuildHistogram()
               .Name("algenta_time_to_first_token_seconds")
               .Help("From the request's arrival to its first generated token")
               .Register(*registry_)
               .Add(model, latency_buckets());
  inter_token_ = &prometheus::BuildHistogram()
                      .Name("algenta_inter_token_latency_seconds")
                      .Help("Between consecutive generated tokens of one request")
                      .Register(*registry_)
                      .Add(model, latency_buckets());
  prompt_tokens_ = &prometheus::BuildCounter()
                        .Name("algenta_prompt_tokens_total")
                        .Help("Prompt tokens of admitted requests")
                        .Register(*registry_)
                        .Add(model);
  prompt_tokens_computed_ = &prometheus::BuildCounter()
                                 .Name("algenta_prompt_tokens_computed_total")
                                 .Help("Prompt tokens the engine computed (prefill chunks)")
                                 .Register(*registry_)
                                 .Add(model);
  prompt_tokens_cached_ = &prometheus::BuildCounter()
                               .Name("algenta_prompt_tokens_cached_total")
                               .Help("Prompt tokens served from the prefix cache, not computed")
                               .Register(*registry_)
                               .Add(model);
  generation_tokens_ = &prometheus::BuildCounter()
                            .Name("algenta_generation_tokens_total")
                            .Help("Tokens generated")
                            .Register(*registry_)
                            .Add(model);
  waiting_ = &prometheus::BuildGauge()
                  .Name("algenta_requests_waiting")
                  .Help("Requests queued for admission to the engine (the --max-queue count)")
                  .Register(*registry_)
                  .Add(model);
  running_ = &prometheus::BuildGauge()
                  .Name("algenta_requests_running")
                  .Help("Requests admitted to the engine, sharing its steps")
                  .Register(*registry_)
                  .Add(model);
  kv_usage_ = &prometheus::BuildGauge()
                   .Name("algenta_kv_cache_usage_ratio")
                   .Help("Fraction of KV cache blocks held by running requests (0-1)")
                   .Register(*registry_)
                   .Add(model);
  step_rows_ = &prometheus::BuildHistogram()
                    .Name("algenta_engine_step_rows")
                    .Help("Requests carried by one engine step (decode tokens and prompt chunks)")
                    .Register(*registry_)
                    .Add(model, count_buckets());
  step_tokens_ = &prometheus::BuildHistogram()
                      .Name("algenta_engine_step_tokens")
                      .Help("Tokens carried by one engine step, decode and prefill together")
                      .Register(*registry_)
                      .Add(model, count_buckets());
}

ServeMetrics::~ServeMetrics() = default;

void ServeMetrics::request_done(std::string_view route, int status) {
  requests_->Add({{"model_name", model_}, {"route", std::string(route)}, {"status", std::to_string(status)}})
      .Increment();
}

void ServeMetrics::time_to_first_token(double seconds) { ttft_->Observe(seconds); }
void ServeMetrics::inter_token_latency(double seconds) { inter_token_->Observe(seconds); }
void ServeMetrics::prompt_tokens(std::uint64_t count) { prompt_tokens_->Increment(double(count)); }
void ServeMetrics::prompt_tokens_computed(std::uint64_t count) {
  prompt_tokens_computed_->Increment(double(count));
}
void ServeMetrics::prompt_tokens_cached(std::uint64_t count) {
  prompt_tokens_cached_->Increment(double(count));
}
void ServeMetrics::generation_tokens(std::uint64_t count) { generation_tokens_->Increment(double(count)); }
void ServeMetrics::requests_waiting(std::size_t count) { waiting_->Set(double(count)); }
void ServeMetrics::requests_running(std::size_t count) { running_->Set(double(count)); }
void ServeMetrics::kv_cache_usage(double fraction) { kv_usage_->Set(fraction); }

void ServeMetrics::engine_step(std::size_t rows, std::size_t tokens) {
  step_rows_->Observe(double(rows));
  step_tokens_->Observe(double(tokens));
}

std::string ServeMetrics::text() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

}  // namespace algenta::serve
