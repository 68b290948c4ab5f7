// OpenAI's error JSON, {"error": {"message", "type", "param", "code"}}, from
// one table: every refusal the server makes names a kind here, and the kind
// alone decides the status, type and code.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace algenta::openai {

enum class ErrorKind {
  invalid_request,     // 400: a body or parameter the API refuses
  invalid_api_key,     // 401: missing or wrong bearer key
  model_not_found,     // 404: a model this server does not serve
  route_not_found,     // 404: no such endpoint (yet)
  method_not_allowed,  // 405
  request_timeout,     // 408
  body_too_large,      // 413
  target_too_long,     // 414
  expectation_failed,  // 417
  rate_limited,        // 429: the caller is over its rate
  queue_full,          // 429: the request queue is full
  headers_too_large,   // 431
  internal,            // 500
  overloaded,          // 503: too many connections
  not_ready,           // 503: the engine is not loaded yet
};

struct ErrorEntry {
  ErrorKind kind;
  int status;
  const char* type;
  const char* code;  // nullptr: JSON null
  bool retry_after;  // the answer carries Retry-After
};

const ErrorEntry& error_entry(ErrorKind kind);

// The kind the transport's own refusals (by status alone) map to.
ErrorKind kind_for_status(int status);

// A refusal on its way to the client. `param` names the offending field
// ("messages[2].content") when there is one.
struct ApiError : std::runtime_error {
  ApiError(ErrorKind kind, std::string message, std::optional<std::string> param = std::nullopt)
      : std::runtime_error(std::move(message)), kind(kind), param(std::move(param)) {}
  ErrorKind kind;
  std::optional<std::string> param;
};

// The JSON body for an error.
std::string error_body(ErrorKind kind, std::string_view message,
                       const std::optional<std::string>& param = std::nullopt);
inline std::string error_body(const ApiError& e) { return error_body(e.kind, e.what(), e.param); }

}  // namespace algenta::openai
