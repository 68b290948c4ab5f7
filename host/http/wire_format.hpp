// The bytes the transport writes: status line and headers, chunked framing.
// Apart from the Beast code so that unit tests can check them.
#pragma once

#include <string>
#include <string_view>

#include "http/server.hpp"

namespace algenta::http::wire {

// A whole response with Content-Length. A handler's header whose name or
// value could split the header block (CR, LF, NUL, or a name that is not a
// token) is dropped, never written.
std::string whole_response(const Response& response, bool keep_alive);

// The head of a streamed response; `chunked` false for HTTP/1.0 clients,
// whose stream ends when the connection closes.
std::string stream_head(int status, std::string_view content_type,
                        const std::vector<Header>& headers, bool keep_alive, bool chunked);

// One chunk in chunked transfer coding; `data` must not be empty (an empty
// chunk ends the body).
std::string chunk(std::string_view data);
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

bool safe_header(const Header& header);

}  // namespace algenta::http::wire
