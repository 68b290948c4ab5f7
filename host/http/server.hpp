// The HTTP transport, and all the rest of the host sees of it. Boost.Beast
// lives in server.cpp alone: it is slow to compile and nothing above the
// transport needs to know it.
//
// A request is read whole (within the limits below) and handed to a handler
// on a worker thread, so handlers may block. The handler answers through a
// ResponseWriter, once or as a stream, from any thread and at any later time:
// every write is posted to the connection's strand.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace algenta::http {

struct Header {
  std::string name;
  std::string value;
};

// A request target without its query string: the path.
std::string_view path_of(std::string_view target);

struct Request {
  std::string method;  // "GET", "POST", ... as sent
  std::string target;  // path and query as sent
  std::vector<Header> headers;
  std::string body;
  std::string peer;  // "address:port" of the client

  // The first header of that name (case-insensitive), or "" when absent.
  std::string_view header(std::string_view name) const;
  // The target without its query string.
  std::string_view path() const;
  // The value of one query parameter (no percent-decoding), or "".
  std::string_view query_parameter(std::string_view name) const;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<Header> headers;  // besides Content-Type, Content-Length, Connection
  std::string body;
};

// How a handler answers. Either send() once, or begin_stream(), any number
// of write_chunk() and end_stream(). Every call may come from any thread; none
// waits for the client. A writer dropped without an answer answers 500 (or
// ends the stream it began).
class ResponseWriter {
 public:
  virtual ~ResponseWriter() = default;

  // Each returns false when the client is gone (the data is dropped).
  virtual bool send(Response response) = 0;
  // Headers of a chunked response (text/event-stream for SSE).
  virtual bool begin_stream(int status, std::string content_type, std::vector<Header> headers) = 0;
  virtual bool write_chunk(std::string data) = 0;
  virtual void end_stream() = 0;

  // The client closed the connection, reset it, did not take the data within
  // the write timeout, or the server shut down before the answer ended.
  virtual bool client_gone() const = 0;
  // Called once, on a transport thread, when client_gone() becomes true; at
  // once on the caller's thread if it already is. It must not block.
  virtual void on_client_gone(std::function<void()> callback) = 0;
};

using Handler = std::function<void(Request request, std::shared_ptr<ResponseWriter> writer)>;

struct Limits {
  std::size_t max_body_bytes = 4 << 20;         // 413 above
  std::size_t max_header_bytes = 16 << 10;      // request line + header fields; 431 above
  std::size_t max_header_count = 100;           // 431 above
  std::size_t max_target_bytes = 8 << 10;       // 414 above
  std::size_t max_connections = 256;            // 503 above
  // A request must arrive whole within this time after its first byte.
  std::chrono::milliseconds read_timeout{30000};
  // An idle keep-alive connection is closed after this.
  std::chrono::milliseconds idle_timeout{5000};
  // A response (or one stream chunk) the client does not take within this
  // time drops the client.
  std::chrono::milliseconds write_timeout{30000};
  // Bytes a stream may have waiting for a slow client before it is dropped.
  std::size_t max_pending_stream_bytes = 8 << 20;
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8000;  // 0: any free port (see Server::port())
  unsigned io_threads = 2;
  unsigned handler_threads = 8;
  Limits limits;
  // Renders the transport's own refusals (400, 408, 413, 414, 431, 503) so
  // they share the body shape of the handlers' errors. Default: text/plain.
  std::function<Response(int status, std::string message)> error_response;
  // Told of each of those refusals, with the request's path when its request
  // line was read ("" otherwise), so that metrics count every request.
  // Called on a transport thread; it must not block.
  std::function<void(int status, std::string_view path)> on_refused;
};

class Server {
 public:
  // Binds and listens (throws std::runtime_error naming host, port and the
  // reason on failure); serves once start() is called.
  Server(ServerOptions options, Handler handler);
  ~Server();  // stop(0) if still running
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  std::uint16_t port() const;  // the bound port
  void start();

  // Graceful shutdown: stops accepting, closes idle connections, lets
  // requests in flight finish (a keep-alive connection closes after its
  // current answer) for up to `drain`, then closes what is left (its
  // handlers see client_gone()) and joins the threads. Returns the number
  // of connections that had to be cut. Safe to call once from any thread
  // that is not a handler.
  std::size_t stop(std::chrono::milliseconds drain);

  // Connections open now (for tests and metrics).
  std::size_t open_connections() const;

  struct Impl;  // opaque: defined in server.cpp

 private:
  std::shared_ptr<Impl> impl_;
};

// The reason phrase for a status ("Payload Too Large").
std::string_view reason_phrase(int status);

}  // namespace algenta::http
