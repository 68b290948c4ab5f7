#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "openai/errors.hpp"

using namespace algenta::openai;

TEST_CASE("every error kind has one row: status, type and code") {
  struct Row {
    ErrorKind kind;
    int status;
    const char* type;
    const char* code;
  };
  const Row rows[] = {
      {ErrorKind::invalid_request, 400, "invalid_request_error", nullptr},
      {ErrorKind::invalid_api_key, 401, "authentication_error", "invalid_api_key"},
      {ErrorKind::model_not_found, 404, "not_found_error", "model_not_found"},
      {ErrorKind::route_not_found, 404, "not_found_error", "unknown_url"},
      {ErrorKind::method_not_allowed, 405, "invalid_request_error", "method_not_allowed"},
      {ErrorKind::request_timeout, 408, "invalid_request_error", "request_timeout"},
      {ErrorKind::body_too_large, 413, "invalid_request_error", "request_too_large"},
      {ErrorKind::target_too_long, 414, "invalid_request_error", "uri_too_long"},
      {ErrorKind::expectation_failed, 417, "invalid_request_error", "expectation_failed"},
      {ErrorKind::rate_limited, 429, "rate_limit_error", "rate_limit_exceeded"},
      {ErrorKind::queue_full, 429, "rate_limit_error", "queue_full"},
      {ErrorKind::headers_too_large, 431, "invalid_request_error", "request_header_fields_too_large"},
      {ErrorKind::internal, 500, "server_error", "internal_error"},
      {ErrorKind::overloaded, 503, "service_unavailable_error", "overloaded"},
      {ErrorKind::not_ready, 503, "service_unavailable_error", "not_ready"},
  };
  for (const Row& row : rows) {
    const ErrorEntry& e = error_entry(row.kind);
    CAPTURE(row.status, row.type);
    CHECK(e.kind == row.kind);
    CHECK(e.status == row.status);
    CHECK(std::string(e.type) == row.type);
    CHECK((e.code ? std::string(e.code) : "null") == (row.code ? row.code : "null"));
    CHECK(e.retry_after == (row.status == 429 || row.status == 503));
  }
}

TEST_CASE("the transport's statuses map to their kinds") {
  CHECK(kind_for_status(413) == ErrorKind::body_too_large);
  CHECK(kind_for_status(431) == ErrorKind::headers_too_large);
  CHECK(kind_for_status(414) == ErrorKind::target_too_long);
  CHECK(kind_for_status(408) == ErrorKind::request_timeout);
  CHECK(kind_for_status(503) == ErrorKind::overloaded);
  CHECK(kind_for_status(400) == ErrorKind::invalid_request);
  CHECK(kind_for_status(500) == ErrorKind::internal);
}

TEST_CASE("the error body is OpenAI's shape, param and code null when absent") {
  const auto j = nlohmann::json::parse(error_body(ErrorKind::invalid_request, "bad", "temperature"));
  CHECK(j == nlohmann::json::parse(
                 R"({"error":{"message":"bad","type":"invalid_request_error","param":"temperature","code":null}})"));
  const auto k = nlohmann::json::parse(error_body(ErrorKind::queue_full, "full"));
  CHECK(k["error"]["param"].is_null());
  CHECK(k["error"]["code"] == "queue_full");
}

TEST_CASE("an error message quoting bytes that are not UTF-8 still makes JSON") {
  const std::string body = error_body(ErrorKind::invalid_request, std::string("bad \xff byte"));
  CHECK_NOTHROW(nlohmann::json::parse(body));
}
