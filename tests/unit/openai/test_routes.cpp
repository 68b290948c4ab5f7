#include <catch2/catch.hpp>

#include "openai/errors.hpp"
#include "openai/routes.hpp"

using namespace algenta::openai;

namespace {
ErrorKind refusal_kind(const char* method, const char* path) {
  try {
    resolve_route(method, path);
  } catch (const ApiError& e) {
    return e.kind;
  }
  FAIL("accepted " << method << " " << path);
  throw;
}
}  // namespace

TEST_CASE("routes and their aliases") {
  CHECK(resolve_route("POST", "/v1/chat/completions") == Route::chat_completions);
  CHECK(resolve_route("POST", "/chat/completions/") == Route::chat_completions);
  CHECK(resolve_route("POST", "/v1/completions") == Route::completions);
  CHECK(resolve_route("GET", "/models") == Route::models);
  CHECK(resolve_route("GET", "/v1/models/qwen") == Route::model);
  CHECK(model_in_path("/v1/models/qwen/") == "qwen");
  CHECK(resolve_route("GET", "/health") == Route::health);
  CHECK(resolve_route("GET", "/ready") == Route::ready);
  CHECK(resolve_route("HEAD", "/health") == Route::health);
}

TEST_CASE("unknown routes, embeddings and rerank are 404; a wrong method is 405") {
  CHECK(refusal_kind("POST", "/v1/embeddings") == ErrorKind::route_not_found);
  CHECK(refusal_kind("POST", "/v1/rerank") == ErrorKind::route_not_found);
  CHECK(refusal_kind("POST", "/v2/rerank") == ErrorKind::route_not_found);
  CHECK(refusal_kind("GET", "/v1/nothing") == ErrorKind::route_not_found);
  CHECK(refusal_kind("GET", "/v1/chat/completions") == ErrorKind::method_not_allowed);
  CHECK(refusal_kind("POST", "/v1/models") == ErrorKind::method_not_allowed);
  CHECK(refusal_kind("HEAD", "/v1/completions") == ErrorKind::method_not_allowed);
  CHECK(std::string(route_method(Route::chat_completions)) == "POST");
}

TEST_CASE("only /health and /ready go without a key") {
  for (const char* path : {"/v1/chat/completions", "/chat/completions", "/v1/models", "/models",
                           "/v1/models/x", "/v1/embeddings", "/anything", "/health/x", "/healthz",
                           "//health", "/v1/health"}) {
    CAPTURE(path);
    CHECK(route_needs_key(match_route(path)));
  }
  CHECK_FALSE(route_needs_key(match_route("/health")));
  CHECK_FALSE(route_needs_key(match_route("/ready/")));
}
