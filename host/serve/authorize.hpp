// The bearer check every route but /health and /ready passes when keys are
// configured.
#pragma once

#include <string_view>

#include "openai/routes.hpp"
#include "serve/api_keys.hpp"

namespace algenta::serve {

// The token of "Bearer TOKEN" (scheme case-insensitive), or "" if the
// header is absent or another scheme.
std::string_view bearer_token(std::string_view authorization);

// Throws openai::ApiError (invalid_api_key, 401) when keys are enabled, the
// route needs one, and `authorization` does not carry an accepted key.
void authorize(const ApiKeys& keys, openai::Route route, std::string_view authorization);

}  // namespace algenta::serve
