// The endpoints and their aliases, and which need a key. Anything that is not
// exactly /health or /ready needs one when keys are configured, so an alias
// or an unknown path can never slip past the check.
#pragma once

#include <string>
#include <string_view>

namespace algenta::openai {

enum class Route {
  chat_completions,  // POST /v1/chat/completions, /chat/completions
  completions,       // POST /v1/completions, /completions
  models,            // GET /v1/models, /models
  model,             // GET /v1/models/{id}
  health,            // GET /health: the process is up
  ready,             // GET /ready: the engine is loaded
  metrics,           // GET /metrics: Prometheus text (needs a key)
  embeddings,        // /v1/embeddings: 404 until it exists
  rerank,            // /v1/rerank, /rerank, /v2/rerank: 404 until it exists
  unknown,
};

// By path alone (no query); one trailing slash is ignored.
Route match_route(std::string_view path);
const char* route_method(Route route);  // "GET" or "POST"; "" for the 404 routes
// The route's label in /metrics ("chat_completions", ...; "other" for the 404 routes).
const char* route_name(Route route);
bool route_needs_key(Route route);
// The {id} of /v1/models/{id}.
std::string model_in_path(std::string_view path);

// The route, or ApiError 404 (unknown, embeddings, rerank) or 405 (the Allow
// value is route_method()). HEAD is allowed wherever GET is.
Route resolve_route(std::string_view method, std::string_view path);

}  // namespace algenta::openai
