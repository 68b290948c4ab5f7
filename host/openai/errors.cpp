#include "openai/errors.hpp"

#include <array>
#include <nlohmann/json.hpp>

namespace algenta::openai {
namespace {

// THE table. Types and codes follow OpenAI's where it has one.
constexpr std::array<ErrorEntry, 15> kTable{{
    {ErrorKind::invalid_request, 400, "invalid_request_error", nullptr, false},
    {ErrorKind::invalid_api_key, 401, "authentication_error", "invalid_api_key", false},
    {ErrorKind::model_not_found, 404, "not_found_error", "model_not_found", false},
    {ErrorKind::route_not_found, 404, "not_found_error", "unknown_url", false},
    {ErrorKind::method_not_allowed, 405, "invalid_request_error", "method_not_allowed", false},
    {ErrorKind::request_timeout, 408, "invalid_request_error", "request_timeout", false},
    {ErrorKind::body_too_large, 413, "invalid_request_error", "request_too_large", false},
    {ErrorKind::target_too_long, 414, "invalid_request_error", "uri_too_long", false},
    {ErrorKind::expectation_failed, 417, "invalid_request_error", "expectation_failed", false},
    {ErrorKind::rate_limited, 429, "rate_limit_error", "rate_limit_exceeded", true},
    {ErrorKind::queue_full, 429, "rate_limit_error", "queue_full", true},
    {ErrorKind::headers_too_large, 431, "invalid_request_error", "request_header_fields_too_large", false},
    {ErrorKind::internal, 500, "server_error", "internal_error", false},
    {ErrorKind::overloaded, 503, "service_unavailable_error", "overloaded", true},
    {ErrorKind::not_ready, 503, "service_unavailable_error", "not_ready", true},
}};

}  // namespace

const ErrorEntry& error_entry(ErrorKind kind) {
  for (const ErrorEntry& e : kTable) {
    if (e.kind == kind) return e;
  }
  return kTable[12];  // unreachable: every kind has a row (a unit test checks)
}

ErrorKind kind_for_status(int status) {
  for (const ErrorEntry& e : kTable) {
    if (e.status == status) return e.kind;  // the first row of a status is its default
  }
  return status >= 500 ? ErrorKind::internal : ErrorKind::invalid_request;
}

std::string error_body(ErrorKind kind, std::string_view message,
                       const std::optional<std::string>& param) {
  const ErrorEntry& e = error_entry(kind);
  nlohmann::json error = {{"message", std::string(message)},
                          {"type", e.type},
                          {"param", param ? nlohmann::json(*param) : nlohmann::json(nullptr)},
                          {"code", e.code ? nlohmann::json(e.code) : nlohmann::json(nullptr)}};
  // Messages may quote client bytes: replace invalid UTF-8 rather than throw.
  return nlohmann::json{{"error", std::move(error)}}.dump(-1, ' ', false,
                                                          nlohmann::json::error_handler_t::replace);
}

}  // namespace algenta::openai
