// algenta_http_echo: the real transport, protocol and key check around a
// fake model, for the integration tests. The fake model's answer is the
// prompt's words, one token each, then end of sequence (or the words again
// and again with ignore_eos), so every answer is known in advance.
//
// Test routes besides the OpenAI ones (all need a key when keys are set):
//   POST /echo                     the body back; X-Header-Count: headers seen
//   GET  /stream?chunks=N&delay_ms=D   N chunks "chunk i\n", D ms apart
//   GET  /slow?ms=D                answers "slow done" after D ms
// --events FILE gets one line per stream the client left ("gone /stream after
// I chunks") and "stopped cut=N" after a graceful stop.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include "http/http_options.hpp"
#include "http/server.hpp"
#include "openai/requests.hpp"
#include "openai/responses.hpp"
#include "openai/routes.hpp"
#include "openai/streaming.hpp"
#include "serve/api_keys.hpp"
#include "serve/authorize.hpp"
#include "serve/error_responses.hpp"

namespace {

using namespace algenta;

struct Config {
  std::string model = "algenta-echo";
  bool oracle = false;
  std::string events_file;
  std::int64_t drain_ms = 5000;
  serve::ApiKeys keys;
};

std::mutex events_mutex;

void record_event(const Config& config, const std::string& line) {
  if (config.events_file.empty()) return;
  std::lock_guard<std::mutex> lock(events_mutex);
  std::ofstream out(config.events_file, std::ios::app);
  out << line << "\n";
}

int query_int(const http::Request& request, std::string_view name, int fallback, int max) {
  const std::string value(request.query_parameter(name));
  if (value.empty()) return fallback;
  const int parsed = std::atoi(value.c_str());
  return parsed < 0 ? 0 : (parsed > max ? max : parsed);
}

http::Response json_response(const nlohmann::json& body) {
  http::Response r;
  r.body = openai::dump(body);
  return r;
}

// --- the fake model
std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty()) words.push_back("echo");
  return words;
}

struct FakeAnswer {
  std::vector<std::string> tokens;
  openai::FinishReason finish = openai::FinishReason::stop;
  openai::Usage usage;
};

FakeAnswer fake_generate(const std::string& prompt, const openai::Sampling& s,
                         std::int64_t default_max_tokens, std::int64_t prompt_tokens) {
  const std::vector<std::string> words = words_of(prompt);
  const std::int64_t max_tokens = s.max_tokens.value_or(default_max_tokens);
  FakeAnswer a;
  std::string text;
  for (std::int64_t i = 0; i < max_tokens; ++i) {
    if (!s.ignore_eos && i >= static_cast<std::int64_t>(words.size()) && i >= s.min_tokens) {
      break;  // the fake end of sequence
    }
    std::string token = (i == 0 ? "" : " ") + words[static_cast<std::size_t>(i) % words.size()];
    const std::string joined = text + token;
    for (const std::string& stop : s.stop) {
      const std::size_t at = joined.find(stop);
      if (at != std::string::npos) {
        if (at > text.size()) a.tokens.push_back(joined.substr(text.size(), at - text.size()));
        a.usage = {prompt_tokens, i + 1};
        return a;
      }
    }
    text = joined;
    a.tokens.push_back(std::move(token));
  }
  a.finish = static_cast<std::int64_t>(a.tokens.size()) == max_tokens
                 ? openai::FinishReason::length
                 : openai::FinishReason::stop;
  a.usage = {prompt_tokens, static_cast<std::int64_t>(a.tokens.size())};
  return a;
}

std::vector<openai::TokenLogprob> fake_logprobs(const std::vector<std::string>& tokens, int top) {
  std::vector<openai::TokenLogprob> out;
  for (const std::string& t : tokens) {
    openai::TokenLogprob lp{t, -0.5, {}};
    if (top > 0) lp.top.emplace_back(t, -0.5);
    for (int i = 1; i < top; ++i) lp.top.emplace_back("alt" + std::to_string(i), -1.0 - i);
    out.push_back(std::move(lp));
  }
  return out;
}

std::string joined(const std::vector<std::string>& tokens) {
  std::string s;
  for (const std::string& t : tokens) s += t;
  return s;
}

void chat(const Config& config, const http::Request& request, http::ResponseWriter& writer) {
  const openai::ChatRequest r = openai::parse_chat_request(request.body);
  openai::check_model(r.model, config.model);
  std::int64_t prompt_tokens = 0;
  for (const auto& m : r.messages) prompt_tokens += static_cast<std::int64_t>(words_of(m.content).size());
  const FakeAnswer a = fake_generate(r.messages.back().content, r.sampling, 16, prompt_tokens);
  const openai::AnswerMeta meta{openai::new_answer_id("chatcmpl-"), openai::unix_seconds_now(),
                                config.model};
  const int top = r.logprobs ? r.top_logprobs : 0;
  if (!r.streaming.stream) {
    const auto lps = fake_logprobs(a.tokens, top);
    writer.send(json_response(openai::chat_completion(meta, joined(a.tokens), a.finish, a.usage,
                                                       r.logprobs ? &lps : nullptr)));
    return;
  }
  const openai::ChatStream stream(meta, r.streaming.include_usage, r.logprobs);
  writer.begin_stream(200, std::string(openai::kSseContentType), {});
  writer.write_chunk(stream.start());
  for (const std::string& token : a.tokens) {
    if (!writer.write_chunk(stream.content(token, fake_logprobs({token}, top)))) return;
  }
  writer.write_chunk(stream.finish(a.finish, a.usage));
  writer.end_stream();
}

void completion(const Config& config, const http::Request& request, http::ResponseWriter& writer) {
  const openai::CompletionRequest r = openai::parse_completion_request(request.body);
  openai::check_model(r.model, config.model);
  std::string prompt;
  std::int64_t prompt_tokens = 0;
  if (const auto* text = std::get_if<std::string>(&r.prompt)) {
    prompt = *text;
    prompt_tokens = static_cast<std::int64_t>(words_of(prompt).size());
  } else {
    const auto& ids = std::get<std::vector<std::int64_t>>(r.prompt);
    for (std::int64_t id : ids) prompt += "t" + std::to_string(id) + " ";
    prompt_tokens = static_cast<std::int64_t>(ids.size());
  }
  const FakeAnswer a = fake_generate(prompt, r.sampling, 16, prompt_tokens);
  const openai::AnswerMeta meta{openai::new_answer_id("cmpl-"), openai::unix_seconds_now(),
                                config.model};
  const int top = r.logprobs.value_or(0);
  if (!r.streaming.stream) {
    const auto lps = fake_logprobs(a.tokens, top);
    writer.send(json_response(openai::text_completion(meta, joined(a.tokens), a.finish, a.usage,
                                                       r.logprobs ? &lps : nullptr)));
    return;
  }
  openai::CompletionStream stream(meta, r.streaming.include_usage, r.logprobs.has_value());
  writer.begin_stream(200, std::string(openai::kSseContentType), {});
  for (const std::string& token : a.tokens) {
    if (!writer.write_chunk(stream.content(token, fake_logprobs({token}, top)))) return;
  }
  writer.write_chunk(stream.finish(a.finish, a.usage));
  writer.end_stream();
}

// --- the transport test routes
void stream_chunks(const Config& config, const http::Request& request,
                   http::ResponseWriter& writer) {
  const int chunks = query_int(request, "chunks", 5, 100000);
  const int delay_ms = query_int(request, "delay_ms", 0, 10000);
  writer.begin_stream(200, "text/plain", {});
  for (int i = 0; i < chunks; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    if (writer.client_gone() || !writer.write_chunk("chunk " + std::to_string(i) + "\n")) {
      record_event(config, "gone /stream after " + std::to_string(i) + " chunks");
      return;
    }
  }
  writer.end_stream();
}

void handle(const Config& config, http::Request request, std::shared_ptr<http::ResponseWriter> writer) {
  const std::string path(request.path());
  try {
    const openai::Route matched = openai::match_route(path);
    serve::authorize(config.keys, matched, request.header("Authorization"));
    if (path == "/echo" && request.method == "POST") {
      http::Response r;
      r.content_type = "application/octet-stream";
      r.body = std::move(request.body);
      r.headers.push_back({"X-Header-Count", std::to_string(request.headers.size())});
      writer->send(std::move(r));
      return;
    }
    if (path == "/stream") return stream_chunks(config, request, *writer);
    if (path == "/slow") {
      std::this_thread::sleep_for(std::chrono::milliseconds(query_int(request, "ms", 100, 60000)));
      writer->send({200, "text/plain", {}, "slow done\n"});
      return;
    }
    switch (openai::resolve_route(request.method, path)) {
      case openai::Route::chat_completions: return chat(config, request, *writer);
      case openai::Route::completions: return completion(config, request, *writer);
      case openai::Route::models:
        writer->send(json_response(openai::models_list(config.model, 0, config.oracle)));
        return;
      case openai::Route::model:
        if (openai::model_in_path(path) != config.model) {
          openai::check_model(openai::model_in_path(path), config.model);
        }
        writer->send(json_response(openai::models_list(config.model, 0, config.oracle)["data"][0]));
        return;
      case openai::Route::health:
      case openai::Route::ready:
        writer->send(json_response({{"status", "ok"}}));
        return;
      default:
        throw openai::ApiError(openai::ErrorKind::route_not_found, "no endpoint " + path);
    }
  } catch (const openai::ApiError& e) {
    writer->send(serve::api_error_response(e, path));
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"algenta_http_echo: the HTTP transport around a fake model, for tests"};
  http::ServerOptions options;
  options.port = 0;
  http::add_server_options(app, options);
  Config config;
  std::string key_file;
  app.add_option("--model", config.model, "the model id served")->capture_default_str();
  app.add_flag("--oracle", config.oracle, "list the model as the verification oracle");
  app.add_option("--events", config.events_file, "file that gets one line per event");
  app.add_option("--drain-ms", config.drain_ms, "graceful stop bound")->capture_default_str();
  app.add_option("--api-key-file", key_file, "API keys, one per line");
  CLI11_PARSE(app, argc, argv);

  try {
    std::vector<std::string> warnings;
    config.keys = serve::ApiKeys::from_flag_and_environment(key_file, warnings);
    for (const std::string& w : warnings) std::cerr << "algenta_http_echo: warning: " << w << "\n";
  } catch (const serve::ApiKeyError& e) {
    std::cerr << "algenta_http_echo: " << e.what() << "\n";
    return 2;
  }

  // Signals are taken by sigwait below; threads started later inherit the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  options.error_response = serve::transport_error_response;
  try {
    http::Server server(options, [&config](http::Request request,
                                            std::shared_ptr<http::ResponseWriter> writer) {
      handle(config, std::move(request), std::move(writer));
    });
    server.start();
    std::cout << "listening on " << options.host << ":" << server.port() << std::endl;
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    const std::size_t cut = server.stop(std::chrono::milliseconds(config.drain_ms));
    record_event(config, "stopped cut=" + std::to_string(cut));
    std::cerr << "algenta_http_echo: stopped (" << cut << " connections cut)\n";
  } catch (const std::exception& e) {
    std::cerr << "algenta_http_echo: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
