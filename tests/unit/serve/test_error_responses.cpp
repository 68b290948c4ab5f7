#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "serve/error_responses.hpp"

using namespace algenta;
using openai::ApiError;
using openai::ErrorKind;

namespace {

std::string header(const http::Response& r, const std::string& name) {
  for (const auto& h : r.headers) {
    if (h.name == name) return h.value;
  }
  return "(absent)";
}

}  // namespace

TEST_CASE("429 and 503 answers carry Retry-After; others do not") {
  const http::Response full = serve::api_error_response(ApiError(ErrorKind::queue_full, "queue is full"));
  CHECK(full.status == 429);
  CHECK(header(full, "Retry-After") == "1");
  CHECK(nlohmann::json::parse(full.body)["error"]["code"] == "queue_full");
  CHECK(header(serve::api_error_response(ApiError(ErrorKind::rate_limited, "slow down")),
               "Retry-After") == "1");
  const http::Response not_ready = serve::api_error_response(ApiError(ErrorKind::not_ready, "loading"));
  CHECK(not_ready.status == 503);
  CHECK(header(not_ready, "Retry-After") == "1");
  const http::Response bad = serve::api_error_response(ApiError(ErrorKind::invalid_request, "x", "top_p"));
  CHECK(bad.status == 400);
  CHECK(header(bad, "Retry-After") == "(absent)");
  CHECK(nlohmann::json::parse(bad.body)["error"]["param"] == "top_p");
}

TEST_CASE("405 names the allowed method; 401 asks for a bearer token") {
  const http::Response wrong_method = serve::api_error_response(
      ApiError(ErrorKind::method_not_allowed, "no"), "/v1/chat/completions");
  CHECK(wrong_method.status == 405);
  CHECK(header(wrong_method, "Allow") == "POST");
  const http::Response no_key = serve::api_error_response(ApiError(ErrorKind::invalid_api_key, "no"));
  CHECK(no_key.status == 401);
  CHECK(header(no_key, "WWW-Authenticate") == "Bearer");
  CHECK(nlohmann::json::parse(no_key.body)["error"]["type"] == "authentication_error");
}

TEST_CASE("the transport's refusals use the same table") {
  for (int status : {400, 408, 413, 414, 417, 431, 500, 503}) {
    CAPTURE(status);
    const http::Response r = serve::transport_error_response(status, "why");
    CHECK(r.status == status);
    const auto body = nlohmann::json::parse(r.body);
    CHECK(body["error"]["message"] == "why");
    CHECK(body["error"]["type"] == openai::error_entry(openai::kind_for_status(status)).type);
  }
  CHECK(header(serve::transport_error_response(503, "busy"), "Retry-After") == "1");
}
