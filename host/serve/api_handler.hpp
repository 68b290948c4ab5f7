// The OpenAI-compatible API on top of the transport: routes, the key check,
// request parsing, and hand-off to the engine loop. Runs on the transport's
// handler threads; never waits for the engine.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "http/server.hpp"
#include "openai/requests.hpp"
#include "openai/routes.hpp"
#include "prompt/model_text.hpp"
#include "serve/api_keys.hpp"
#include "serve/engine_loop.hpp"
#include "serve/metrics.hpp"
#include "serve/request_spec.hpp"

namespace algenta::serve {

struct ApiSettings {
  std::string model_name;  // the id clients name; another is 404 model_not_found
  bool is_oracle = false;  // /v1/models marks the verification oracle
  ApiKeys keys;
  // /metrics without a key, for scrapers that cannot send one (the Gateway
  // API Inference Extension's endpoint picker); the API stays keyed.
  bool metrics_without_key = false;
  openai::RequestCaps caps;
  ContextLimits limits;
};

class ApiHandler {
 public:
  ApiHandler(ApiSettings settings, const prompt::ModelText& text, EngineLoop& loop,
             ServeMetrics& metrics);

  void handle(http::Request request, std::shared_ptr<http::ResponseWriter> writer);
  // /ready answers 200 only while this is set (cleared while draining).
  void set_ready(bool ready) { ready_ = ready; }

 private:
  void generate(openai::Route route, const http::Request& request,
                const std::shared_ptr<http::ResponseWriter>& writer);
  // Counts a 200 on `route`, then sends: counted first, so a client that
  // reads the answer and then scrapes /metrics finds it there.
  void answer(openai::Route route, const std::shared_ptr<http::ResponseWriter>& writer,
              http::Response response);

  ApiSettings settings_;
  const prompt::ModelText& text_;
  EngineLoop& loop_;
  ServeMetrics& metrics_;
  std::atomic<bool> ready_{false};
  std::int64_t created_;
};

}  // namespace algenta::serve
