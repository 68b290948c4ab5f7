// The transport in process, through a plain socket: what the Python tests
// cannot see from outside (a writer dropped unanswered, an answer from
// another thread after the handler returned, stop's count).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <thread>

#include "http/server.hpp"

using namespace algenta::http;

namespace {

ServerOptions loopback() {
  ServerOptions o;
  o.port = 0;
  o.io_threads = 1;
  o.handler_threads = 2;
  return o;
}

// Sends `request` and reads until the server closes (bounded by a 5 s receive timeout).
std::string exchange(std::uint16_t port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size()));
  std::string reply;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) reply.append(buffer, n);
  ::close(fd);
  return reply;
}

}  // namespace

TEST_CASE("a handler that drops its writer unanswered yields a 500") {
  Server server(loopback(), [](Request, std::shared_ptr<ResponseWriter>) {});
  server.start();
  const std::string reply =
      exchange(server.port(), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(reply.rfind("HTTP/1.1 500 ", 0) == 0);
  CHECK(server.stop(std::chrono::milliseconds(1000)) == 0);
}

TEST_CASE("an answer may come from another thread after the handler returned") {
  std::vector<std::thread> later;
  Server server(loopback(), [&later](Request request, std::shared_ptr<ResponseWriter> writer) {
    later.emplace_back([writer, body = request.body] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      writer->begin_stream(200, "text/plain", {});
      writer->write_chunk("got " + body);
      writer->end_stream();
    });
  });
  server.start();
  const std::string reply = exchange(
      server.port(),
      "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc");
  for (auto& t : later) t.join();
  CHECK(reply.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(reply.find("\r\n\r\n7\r\ngot abc\r\n0\r\n\r\n") != std::string::npos);
  server.stop(std::chrono::milliseconds(1000));
}

TEST_CASE("the transport's refusals go through error_response") {
  ServerOptions o = loopback();
  o.limits.max_body_bytes = 10;
  o.error_response = [](int status, std::string message) {
    return Response{status, "application/json", {}, "{\"m\":\"" + message + "\"}"};
  };
  Server server(o, [](Request, std::shared_ptr<ResponseWriter> w) { w->send({}); });
  server.start();
  const std::string reply = exchange(
      server.port(), "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n01234567890");
  CHECK(reply.rfind("HTTP/1.1 413 Payload Too Large\r\n", 0) == 0);
  CHECK(reply.find("over the cap of 10 bytes") != std::string::npos);
  CHECK(reply.find("Connection: close") != std::string::npos);
  server.stop(std::chrono::milliseconds(1000));
}

TEST_CASE("a host that is not an address is refused naming it") {
  ServerOptions o = loopback();
  o.host = "not-an-address";
  CHECK_THROWS_WITH(Server(o, [](Request, std::shared_ptr<ResponseWriter>) {}),
                    Catch::Contains("not-an-address is not an IPv4 or IPv6 address"));
}
