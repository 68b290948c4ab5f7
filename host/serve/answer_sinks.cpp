#include "serve/answer_sinks.hpp"

#include "openai/routes.hpp"
#include "serve/error_responses.hpp"

namespace algenta::serve {

const char* answer_route_name(AnswerKind kind) {
  return openai::route_name(kind == AnswerKind::chat ? openai::Route::chat_completions
                                                    : openai::Route::completions);
}

WholeAnswerSink::WholeAnswerSink(AnswerKind kind, openai::AnswerMeta meta, bool logprobs,
                                 std::optional<std::vector<std::int32_t>> prompt_ids,
                                 std::shared_ptr<http::ResponseWriter> writer, ServeMetrics& metrics)
    : kind_(kind), meta_(std::move(meta)), logprobs_(logprobs), prompt_ids_(std::move(prompt_ids)),
      writer_(std::move(writer)), metrics_(metrics) {}

void WholeAnswerSink::output(const StepOutput& out, const openai::Usage& usage) {
  text_ += out.text;
  token_ids_.push_back(out.token);
  token_logprobs_.insert(token_logprobs_.end(), out.logprobs.begin(), out.logprobs.end());
  if (!out.finished) return;
  const auto* logprobs = logprobs_ ? &token_logprobs_ : nullptr;
  nlohmann::ordered_json body =
      kind_ == AnswerKind::chat
          ? openai::chat_completion(meta_, text_, *out.finished, usage, logprobs)
          : openai::text_completion(meta_, text_, *out.finished, usage, logprobs);
  if (prompt_ids_) {
    // Where vLLM puts them: the prompt's ids at the top for chat, in the
    // choice for completions; the answer's ids (the end token included) in the choice.
    (kind_ == AnswerKind::chat ? body : body["choices"][0])["prompt_token_ids"] = *prompt_ids_;
    body["choices"][0]["token_ids"] = token_ids_;
  }
  http::Response response;
  response.body = openai::dump(body);
  // Each answer is counted before its last bytes go out: a client that reads
  // it and then scrapes /metrics finds it there.
  metrics_.request_done(answer_route_name(kind_), answered_status(*writer_));
  writer_->send(std::move(response));
}

void WholeAnswerSink::failed(const openai::ApiError& error) {
  metrics_.request_done(answer_route_name(kind_), openai::error_entry(error.kind).status);
  writer_->send(api_error_response(error));
}

void WholeAnswerSink::abandoned() { metrics_.request_done(answer_route_name(kind_), kClientClosedStatus); }

StreamSink::StreamSink(AnswerKind kind, openai::AnswerMeta meta, bool include_usage, bool logprobs,
                       bool ids_per_token, std::shared_ptr<http::ResponseWriter> writer,
                       ServeMetrics& metrics)
    : kind_(kind),
      ids_per_token_(ids_per_token && kind == AnswerKind::completion),
      writer_(std::move(writer)),
      metrics_(metrics) {
  if (kind == AnswerKind::chat) {
    chat_.emplace(std::move(meta), include_usage, logprobs);
  } else {
    completion_.emplace(std::move(meta), include_usage, logprobs);
  }
}

void StreamSink::begin_locked() {
  if (begun_) return;
  begun_ = true;
  writer_->begin_stream(200, std::string(openai::kSseContentType),
                        {{"Cache-Control", "no-cache"}});
  if (chat_) writer_->write_chunk(chat_->start());
}

void StreamSink::begin() {
  std::lock_guard lock(mutex_);
  begin_locked();
}

void StreamSink::output(const StepOutput& out, const openai::Usage& usage) {
  std::lock_guard lock(mutex_);
  begin_locked();
  if (ids_per_token_) {
    writer_->write_chunk(completion_->token_content(out.text, {out.token}, out.logprobs));
  } else if (!out.text.empty()) {
    writer_->write_chunk(chat_ ? chat_->content(out.text, out.logprobs)
                               : completion_->content(out.text, out.logprobs));
  }
  if (!out.finished) return;
  metrics_.request_done(answer_route_name(kind_), answered_status(*writer_));
  writer_->write_chunk(chat_ ? chat_->finish(*out.finished, usage)
                             : completion_->finish(*out.finished, usage));
  writer_->end_stream();
}

void StreamSink::failed(const openai::ApiError& error) {
  std::lock_guard lock(mutex_);
  begin_locked();
  metrics_.request_done(answer_route_name(kind_), openai::error_entry(error.kind).status);
  writer_->write_chunk(openai::ChatStream::error(openai::error_body(error)));
  writer_->end_stream();
}

void StreamSink::abandoned() {
  std::lock_guard lock(mutex_);
  if (begun_) writer_->end_stream();
  metrics_.request_done(answer_route_name(kind_), kClientClosedStatus);
}

}  // namespace algenta::serve
