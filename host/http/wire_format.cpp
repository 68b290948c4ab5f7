#include "http/wire_format.hpp"

#include <cstdio>

namespace algenta::http::wire {
namespace {

bool token_char(char c) {
  if (c >= '0' && c <= '9') return true;
  if (c >= 'a' && c <= 'z') return true;
  if (c >= 'A' && c <= 'Z') return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

void status_line(std::string& out, int status) {
  out += "HTTP/1.1 ";
  out += std::to_string(status);
  out += ' ';
  out += reason_phrase(status);
  out += "\r\n";
}

void header_line(std::string& out, std::string_view name, std::string_view value) {
  out += name;
  out += ": ";
  out += value;
  out += "\r\n";
}

void handler_headers(std::string& out, const std::vector<Header>& headers) {
  for (const Header& h : headers) {
    if (safe_header(h)) header_line(out, h.name, h.value);
  }
}

}  // namespace

bool safe_header(const Header& header) {
  if (header.name.empty()) return false;
  for (char c : header.name) {
    if (!token_char(c)) return false;
  }
  for (char c : header.value) {
    if (c == '\r' || c == '\n' || c == '\0') return false;
  }
  return true;
}

std::string whole_response(const Response& response, bool keep_alive) {
  std::string out;
  out.reserve(256 + response.body.size());
  status_line(out, response.status);
  header_line(out, "Content-Type", response.content_type);
  header_line(out, "Content-Length", std::to_string(response.body.size()));
  header_line(out, "Connection", keep_alive ? "keep-alive" : "close");
  handler_headers(out, response.headers);
  out += "\r\n";
  out += response.body;
  return out;
}

std::string stream_head(int status, std::string_view content_type,
                        const std::vector<Header>& headers, bool keep_alive, bool chunked) {
  std::string out;
  status_line(out, status);
  header_line(out, "Content-Type", content_type);
  header_line(out, "Cache-Control", "no-cache");
  if (chunked) header_line(out, "Transfer-Encoding", "chunked");
  header_line(out, "Connection", keep_alive ? "keep-alive" : "close");
  handler_headers(out, headers);
  out += "\r\n";
  return out;
}

std::string chunk(std::string_view data) {
  char size[32];
  const int n = std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  std::string out;
  out.reserve(static_cast<std::size_t>(n) + data.size() + 2);
  out.append(size, static_cast<std::size_t>(n));
  out += data;
  out += "\r\n";
  return out;
}

}  // namespace algenta::http::wire
