// OpenAI error JSON as HTTP responses: the handlers' refusals and the
// transport's own (413, 431, 503, ...), all from openai/errors' one table.
#pragma once

#include <string>
#include <string_view>

#include "http/server.hpp"
#include "openai/errors.hpp"

namespace algenta::serve {

// Status, type and code from the table; Retry-After where the table says;
// Allow on a 405 (the method `path`'s route takes).
http::Response api_error_response(const openai::ApiError& error, std::string_view path = {});

// For http::ServerOptions::error_response.
http::Response transport_error_response(int status, std::string message);

}  // namespace algenta::serve
