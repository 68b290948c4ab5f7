#include <catch2/catch.hpp>

#include "http/wire_format.hpp"

using namespace algenta::http;

TEST_CASE("a whole response carries its length, type and connection header") {
  Response r{201, "application/json", {{"X-Id", "7"}}, "{}"};
  CHECK(wire::whole_response(r, true) ==
        "HTTP/1.1 201 Unknown\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
        "Connection: keep-alive\r\nX-Id: 7\r\n\r\n{}");
  r.status = 413;
  const std::string closing = wire::whole_response(r, false);
  CHECK(closing.rfind("HTTP/1.1 413 Payload Too Large\r\n", 0) == 0);
  CHECK(closing.find("Connection: close\r\n") != std::string::npos);
}

TEST_CASE("a header that could split the header block is dropped") {
  CHECK_FALSE(wire::safe_header({"X-Evil", "a\r\nSet-Cookie: x=1"}));
  CHECK_FALSE(wire::safe_header({"X-Evil", std::string("a\0b", 3)}));
  CHECK_FALSE(wire::safe_header({"Bad Name", "v"}));
  CHECK_FALSE(wire::safe_header({"", "v"}));
  CHECK(wire::safe_header({"Retry-After", "1"}));
  Response r{200, "text/plain", {{"X-Evil", "a\nb"}, {"X-Good", "ok"}}, ""};
  const std::string text = wire::whole_response(r, true);
  CHECK(text.find("X-Evil") == std::string::npos);
  CHECK(text.find("X-Good: ok\r\n") != std::string::npos);
}

TEST_CASE("chunked framing: hex size, data, CRLF; the last chunk is zero") {
  CHECK(wire::chunk("hello") == "5\r\nhello\r\n");
  CHECK(wire::chunk(std::string(26, 'x')) == "1a\r\n" + std::string(26, 'x') + "\r\n");
  CHECK(wire::kLastChunk == "0\r\n\r\n");
}

TEST_CASE("a stream's head is chunked for HTTP/1.1 and not for HTTP/1.0") {
  const std::string head = wire::stream_head(200, "text/event-stream", {}, true, true);
  CHECK(head.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(head.find("Transfer-Encoding: chunked\r\n") != std::string::npos);
  CHECK(head.find("Content-Type: text/event-stream\r\n") != std::string::npos);
  CHECK(head.find("Content-Length") == std::string::npos);
  CHECK(head.substr(head.size() - 4) == "\r\n\r\n");
  const std::string old = wire::stream_head(200, "text/event-stream", {}, false, false);
  CHECK(old.find("Transfer-Encoding") == std::string::npos);
  CHECK(old.find("Connection: close\r\n") != std::string::npos);
}

TEST_CASE("a request's headers, path and query parameters") {
  Request r;
  r.target = "/stream?chunks=3&delay_ms=10&flag";
  r.headers = {{"Content-Type", "application/json"}, {"authorization", "Bearer k"}};
  CHECK(r.path() == "/stream");
  CHECK(r.query_parameter("chunks") == "3");
  CHECK(r.query_parameter("delay_ms") == "10");
  CHECK(r.query_parameter("flag").empty());
  CHECK(r.query_parameter("missing").empty());
  CHECK(r.header("AUTHORIZATION") == "Bearer k");
  CHECK(r.header("x-missing").empty());
}
