#include "serve/authorize.hpp"

#include <cctype>

#include "openai/errors.hpp"

namespace algenta::serve {

std::string_view bearer_token(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return {};
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i]) return {};
  }
  std::string_view token = authorization.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  return token;
}

void authorize(const ApiKeys& keys, openai::Route route, std::string_view authorization) {
  if (!keys.enabled() || !openai::route_needs_key(route)) return;
  if (authorization.empty()) {
    throw openai::ApiError(openai::ErrorKind::invalid_api_key,
                           "this server needs an API key: send the header "
                           "'Authorization: Bearer YOUR_KEY'");
  }
  const std::string_view token = bearer_token(authorization);
  if (token.empty()) {
    throw openai::ApiError(openai::ErrorKind::invalid_api_key,
                           "the Authorization header must be 'Bearer YOUR_KEY'");
  }
  if (!keys.accepts(token)) {
    throw openai::ApiError(openai::ErrorKind::invalid_api_key, "the API key is not valid");
  }
}

}  // namespace algenta::serve
