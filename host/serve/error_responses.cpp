#include "serve/error_responses.hpp"

#include "openai/routes.hpp"

namespace algenta::serve {
namespace {

constexpr const char* kRetryAfterSeconds = "1";

http::Response response_for(openai::ErrorKind kind, const std::string& body) {
  const openai::ErrorEntry& entry = openai::error_entry(kind);
  http::Response r;
  r.status = entry.status;
  r.body = body;
  if (entry.retry_after) r.headers.push_back({"Retry-After", kRetryAfterSeconds});
  return r;
}

}  // namespace

http::Response api_error_response(const openai::ApiError& error, std::string_view path) {
  http::Response r = response_for(error.kind, openai::error_body(error));
  if (error.kind == openai::ErrorKind::method_not_allowed) {
    r.headers.push_back({"Allow", openai::route_method(openai::match_route(path))});
  }
  if (error.kind == openai::ErrorKind::invalid_api_key) {
    r.headers.push_back({"WWW-Authenticate", "Bearer"});
  }
  return r;
}

http::Response transport_error_response(int status, std::string message) {
  const openai::ErrorKind kind = openai::kind_for_status(status);
  http::Response r = response_for(kind, openai::error_body(kind, message));
  r.status = status;
  return r;
}

}  // namespace algenta::serve
