// How a job's output reaches its client: whole (one JSON answer at the end)
// or streamed (server-sent events as tokens arrive), for chat and for
// completions. Each sink also counts its request in /metrics once, with the
// status the client saw (499 for a client that left).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "http/server.hpp"
#include "openai/streaming.hpp"
#include "serve/engine_loop.hpp"

namespace algenta::serve {

enum class AnswerKind { chat, completion };

// Status counted for a request whose client left before its answer ended
// (nginx's "client closed request").
inline constexpr int kClientClosedStatus = 499;

// The status counted for an answer about to be sent (counted first, so a
// client that reads it and then scrapes /metrics finds it there): 200, or
// kClientClosedStatus when its client has already left.
inline int answered_status(const http::ResponseWriter& writer) {
  return writer.client_gone() ? kClientClosedStatus : 200;
}

class WholeAnswerSink : public JobSink {
 public:
  // `prompt_ids`: set when the request asked for token ids (return_token_ids).
  WholeAnswerSink(AnswerKind kind, openai::AnswerMeta meta, bool logprobs,
                  std::optional<std::vector<std::int32_t>> prompt_ids,
                  std::shared_ptr<http::ResponseWriter> writer, ServeMetrics& metrics);
  void output(const StepOutput& out, const openai::Usage& usage) override;
  void failed(const openai::ApiError& error) override;
  bool cancelled() const override { return writer_->client_gone(); }
  void abandoned() override;

 private:
  AnswerKind kind_;
  openai::AnswerMeta meta_;
  bool logprobs_;
  std::optional<std::vector<std::int32_t>> prompt_ids_;
  std::shared_ptr<http::ResponseWriter> writer_;
  ServeMetrics& metrics_;
  std::string text_;
  std::vector<std::int32_t> token_ids_;
  std::vector<openai::TokenLogprob> token_logprobs_;
};

class StreamSink : public JobSink {
 public:
  // `ids_per_token` (completions without a tokenizer): a chunk for every
  // token, carrying its id, though its text is empty.
  StreamSink(AnswerKind kind, openai::AnswerMeta meta, bool include_usage, bool logprobs,
             bool ids_per_token, std::shared_ptr<http::ResponseWriter> writer,
             ServeMetrics& metrics);
  // Sends the headers (and chat's first chunk) if not sent yet. The handler
  // calls it once the job is queued; output() calls it too, whichever runs first.
  void begin();
  void output(const StepOutput& out, const openai::Usage& usage) override;
  void failed(const openai::ApiError& error) override;
  bool cancelled() const override { return writer_->client_gone(); }
  void abandoned() override;

 private:
  void begin_locked();

  AnswerKind kind_;
  bool ids_per_token_;
  std::shared_ptr<http::ResponseWriter> writer_;
  ServeMetrics& metrics_;
  std::optional<openai::ChatStream> chat_;
  std::optional<openai::CompletionStream> completion_;
  std::mutex mutex_;
  bool begun_ = false;
};

const char* answer_route_name(AnswerKind kind);

}  // namespace algenta::serve
