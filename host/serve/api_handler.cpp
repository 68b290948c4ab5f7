#include "serve/api_handler.hpp"

#include "openai/responses.hpp"
#include "openai/routes.hpp"
#include "serve/answer_sinks.hpp"
#include "serve/authorize.hpp"
#include "serve/error_responses.hpp"

namespace algenta::serve {
namespace {

using openai::ApiError;
using openai::ErrorKind;
using openai::Route;

http::Response json_response(const nlohmann::ordered_json& body) {
  http::Response r;
  r.body = openai::dump(body);
  return r;
}

}  // namespace

ApiHandler::ApiHandler(ApiSettings settings, const prompt::ModelText& text, EngineLoop& loop,
                       ServeMetrics& metrics)
    : settings_(std::move(settings)),
      text_(text),
      loop_(loop),
      metrics_(metrics),
      created_(openai::unix_seconds_now()) {}

void ApiHandler::handle(http::Request request, std::shared_ptr<http::ResponseWriter> writer) {
  const std::string path(request.path());
  Route route = openai::match_route(path);
  try {
    // The key is checked before anything else, so an unauthorised caller
    // learns nothing, not even which paths exist.
    if (!(route == Route::metrics && settings_.metrics_without_key)) {
      authorize(settings_.keys, route, request.header("Authorization"));
    }
    route = openai::resolve_route(request.method, path);
    switch (route) {
      case Route::chat_completions:
      case Route::completions:
        generate(route, request, writer);
        return;
      case Route::models:
        answer(route, writer, json_response(openai::models_list(settings_.model_name, created_,
                                                                settings_.is_oracle)));
        break;
      case Route::model:
        openai::check_model(openai::model_in_path(path), settings_.model_name);
        answer(route, writer, json_response(openai::models_list(settings_.model_name, created_,
                                                                settings_.is_oracle)["data"][0]));
        break;
      case Route::health:
        answer(route, writer, json_response({{"status", "ok"}}));
        break;
      case Route::ready:
        if (!ready_) throw ApiError(ErrorKind::not_ready, "the server is not ready (starting or draining)");
        answer(route, writer, json_response({{"status", "ready"}}));
        break;
      case Route::metrics: {
        http::Response r;
        r.content_type = std::string(kMetricsContentType);
        r.body = metrics_.text();
        answer(route, writer, std::move(r));
        break;
      }
      default:
        throw ApiError(ErrorKind::route_not_found, "no endpoint " + path);
    }
  } catch (const ApiError& e) {
    // Counted before it is sent, as answer() does.
    metrics_.request_done(openai::route_name(route), openai::error_entry(e.kind).status);
    writer->send(api_error_response(e, path));
  }
}

void ApiHandler::answer(Route route, const std::shared_ptr<http::ResponseWriter>& writer,
                        http::Response response) {
  metrics_.request_done(openai::route_name(route), answered_status(*writer));
  writer->send(std::move(response));
}

void ApiHandler::generate(Route route, const http::Request& request,
                          const std::shared_ptr<http::ResponseWriter>& writer) {
  const bool chat = route == Route::chat_completions;
  const AnswerKind kind = chat ? AnswerKind::chat : AnswerKind::completion;
  Job job;
  openai::Streaming streaming;
  bool logprobs = false;
  bool return_token_ids = false;
  if (chat) {
    const openai::ChatRequest r = openai::parse_chat_request(request.body, settings_.caps);
    openai::check_model(r.model, settings_.model_name);
    job.spec = chat_spec(r, text_, settings_.limits);
    streaming = r.streaming;
    logprobs = r.logprobs;
    return_token_ids = r.return_token_ids;
  } else {
    const openai::CompletionRequest r = openai::parse_completion_request(request.body, settings_.caps);
    openai::check_model(r.model, settings_.model_name);
    job.spec = completion_spec(r, text_, settings_.limits);
    streaming = r.streaming;
    logprobs = r.logprobs.has_value();
    return_token_ids = r.return_token_ids;
  }
  // Without a tokenizer the ids are the whole answer: always sent.
  const bool ids_only = !text_.has_tokenizer();
  return_token_ids = return_token_ids || ids_only;
  const openai::AnswerMeta meta{openai::new_answer_id(chat ? "chatcmpl-" : "cmpl-"),
                                openai::unix_seconds_now(), settings_.model_name};
  if (!streaming.stream) {
    auto prompt_ids = return_token_ids ? std::optional(job.spec.prompt) : std::nullopt;
    job.sink = std::make_shared<WholeAnswerSink>(kind, meta, logprobs, std::move(prompt_ids),
                                                 writer, metrics_);
    loop_.submit(std::move(job));
    return;
  }
  auto sink = std::make_shared<StreamSink>(kind, meta, streaming.include_usage, logprobs, ids_only,
                                           writer, metrics_);
  job.sink = sink;
  loop_.submit(std::move(job));
  sink->begin();  // headers now: the client sees the answer start before the first token
}

}  // namespace algenta::serve
