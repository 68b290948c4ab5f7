#include <CLI/CLI.hpp>

#include "http/http_options.hpp"

namespace algenta::http {
namespace {

void add_milliseconds(CLI::App& app, const std::string& flag, std::chrono::milliseconds& value,
                      const std::string& help) {
  app.add_option_function<std::int64_t>(
         flag, [&value](std::int64_t ms) { value = std::chrono::milliseconds(ms); }, help)
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{3600000}))
      ->default_str(std::to_string(value.count()));
}

}  // namespace

void add_server_options(CLI::App& app, ServerOptions& options) {
  Limits& l = options.limits;
  app.add_option("--host", options.host, "address to listen on (an IP address; 0.0.0.0 for all)")
      ->capture_default_str();
  app.add_option("--port", options.port, "TCP port (0: any free port)")->capture_default_str();
  app.add_option("--http-threads", options.io_threads, "threads doing network I/O")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str();
  app.add_option("--handler-threads", options.handler_threads, "threads running request handlers")
      ->check(CLI::Range(1u, 4096u))
      ->capture_default_str();
  app.add_option("--max-body-bytes", l.max_body_bytes, "request body cap (413 above)")
      ->capture_default_str();
  app.add_option("--max-header-bytes", l.max_header_bytes,
                 "request line and header cap (431 above)")
      ->capture_default_str();
  app.add_option("--max-header-count", l.max_header_count, "header field count cap (431 above)")
      ->capture_default_str();
  app.add_option("--max-target-bytes", l.max_target_bytes, "request target cap (414 above)")
      ->capture_default_str();
  app.add_option("--max-connections", l.max_connections, "open connection cap (503 above)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  add_milliseconds(app, "--read-timeout-ms", l.read_timeout,
                   "a request must arrive whole within this after its first byte");
  add_milliseconds(app, "--idle-timeout-ms", l.idle_timeout, "idle keep-alive connections close after this");
  add_milliseconds(app, "--write-timeout-ms", l.write_timeout,
                   "a client that takes no data for this long is dropped");
}

}  // namespace algenta::http
