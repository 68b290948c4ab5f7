// The transport on Boost.Asio and Beast's request parser. One Connection per
// socket, all of its state touched only on its strand; handlers run on a
// separate pool so a blocking handler never stalls I/O.
#include "http/server.hpp"

#include <sys/socket.h>

#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "http/wire_format.hpp"

namespace algenta::http {
namespace {

namespace net = boost::asio;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using Strand = net::strand<net::io_context::executor_type>;

// After a refusal the server stops sending but keeps reading (and dropping)
// what the client still sends for a moment: closing with unread input would
// reset the connection, and the client could lose the refusal.
constexpr std::chrono::milliseconds kLingerTime{2000};
constexpr std::size_t kLingerBytes = 8 << 20;

// The "client gone" flag a writer and its connection share, and the
// callback to run once when it turns true.
class GoneSignal {
 public:
  bool gone() const { return gone_.load(std::memory_order_acquire); }

  void mark() {
    std::function<void()> callback;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (gone_.exchange(true)) return;
      callback.swap(callback_);
    }
    if (callback) callback();
  }

  void on_gone(std::function<void()> callback) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!gone_.load()) {
        callback_ = std::move(callback);
        return;
      }
    }
    if (callback) callback();
  }

 private:
  std::atomic<bool> gone_{false};
  std::mutex mutex_;
  std::function<void()> callback_;
};

std::string default_error_text(int status, const std::string& message) {
  return std::to_string(status) + " " + std::string(reason_phrase(status)) + ": " + message + "\n";
}

}  // namespace

class Connection;

struct Server::Impl {
  ServerOptions options;
  Handler handler;
  net::io_context io;
  // The acceptor and its retry timer are touched only on this strand.
  Strand accept_strand{net::make_strand(io)};
  tcp::acceptor acceptor{accept_strand};
  net::steady_timer accept_retry{accept_strand};
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::vector<std::thread> io_threads;
  std::unique_ptr<net::thread_pool> handler_pool;
  std::atomic<bool> draining{false};
  std::atomic<bool> stopped{false};
  bool started = false;

  mutable std::mutex registry_mutex;
  std::condition_variable registry_changed;
  std::unordered_map<Connection*, std::weak_ptr<Connection>> registry;
  std::size_t serving = 0;  // registered connections not refused for overload

  void refused(int status, std::string_view path) const {
    if (options.on_refused) options.on_refused(status, path);
  }

  Response error_response(int status, const std::string& message) const {
    Response r;
    if (options.error_response) {
      r = options.error_response(status, message);
    } else {
      r.content_type = "text/plain; charset=utf-8";
      r.body = default_error_text(status, message);
    }
    r.status = status;
    return r;
  }

  void accept();
  void on_accept(const boost::system::error_code& ec, tcp::socket socket);
  void deregister(Connection* c, bool overloaded);
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, Server::Impl& server, bool overloaded)
      : strand_(net::make_strand(server.io)),
        socket_(std::move(socket)),
        read_timer_(server.io),
        write_timer_(server.io),
        server_(server),
        limits_(server.options.limits),
        overloaded_(overloaded) {
    boost::system::error_code ec;
    // Each streamed event goes out when written: with Nagle's algorithm a
    // small write waits for the ACK of the one before, which a client
    // delays up to 40 ms on a reused connection (every first token was late).
    socket_.set_option(tcp::no_delay(true), ec);
    const tcp::endpoint peer = socket_.remote_endpoint(ec);
    if (!ec) peer_ = peer.address().to_string() + ":" + std::to_string(peer.port());
  }

  bool overloaded() const { return overloaded_; }

  void start() {
    net::dispatch(strand_, [self = shared_from_this()] {
      if (self->overloaded_) {
        self->begin_request();
        self->refuse(503, "the server has " + std::to_string(self->limits_.max_connections) +
                              " connections open, its cap; retry later");
      } else {
        self->wait_for_request();
      }
    });
  }

  // From Server::stop: idle connections close now, busy ones after their answer.
  void drain() {
    net::dispatch(strand_, [self = shared_from_this()] {
      if (self->phase_ == Phase::idle) self->close();
    });
  }

  void cut() {
    net::dispatch(strand_, [self = shared_from_this()] { self->close(); });
  }

  // The writer's calls, posted here; `seq` names the request they answer.
  void post(std::function<void(Connection&)> call) {
    if (server_.stopped.load()) return;
    net::post(strand_, [self = shared_from_this(), call = std::move(call)] { call(*self); });
  }

  void answer(std::uint64_t seq, Response response) {
    if (!current(seq) || started_) return;
    started_ = true;
    keep_alive_ = keep_alive_ && !server_.draining.load();
    std::string bytes = wire::whole_response(response, keep_alive_);
    // HEAD: the headers a GET would get, Content-Length included, no body.
    if (head_request_) bytes.resize(bytes.size() - response.body.size());
    enqueue(std::move(bytes), true);
  }

  void begin(std::uint64_t seq, int status, std::string content_type, std::vector<Header> headers) {
    if (!current(seq) || started_) return;
    started_ = true;
    streaming_ = true;
    keep_alive_ = keep_alive_ && !server_.draining.load();
    enqueue(wire::stream_head(status, content_type, headers, keep_alive_, chunked_), false);
  }

  void chunk(std::uint64_t seq, std::string data) {
    if (!current(seq) || !streaming_ || final_queued_) return;
    enqueue(chunked_ ? wire::chunk(data) : std::move(data), false);
  }

  void end(std::uint64_t seq) {
    if (!current(seq) || !streaming_ || final_queued_) return;
    enqueue(chunked_ ? std::string(wire::kLastChunk) : std::string(), true);
  }

  // The writer was dropped: answer 500, or end the stream it began and
  // close, so the client sees the stream cut rather than waiting.
  void abandon(std::uint64_t seq) {
    if (!current(seq) || final_queued_) return;
    keep_alive_ = false;
    if (!started_) {
      started_ = true;
      enqueue(wire::whole_response(
                  server_.error_response(500, "the request's handler ended without an answer"),
                  false),
              true);
    } else {
      end(seq);
    }
  }

  std::shared_ptr<GoneSignal> gone_signal() const { return gone_; }

 private:
  enum class Phase { idle, reading, handling, closing };

  bool current(std::uint64_t seq) const { return !closed_ && seq == seq_ && phase_ == Phase::handling; }

  // --- timers: a generation number makes a late expiry of a re-armed timer harmless
  template <class OnExpiry>
  void arm(net::steady_timer& timer, std::uint64_t& generation, std::chrono::milliseconds after,
           OnExpiry on_expiry) {
    const std::uint64_t mine = ++generation;
    timer.expires_after(after);
    timer.async_wait(net::bind_executor(
        strand_, [self = shared_from_this(), mine, &generation, on_expiry](
                     const boost::system::error_code& ec) {
          if (ec || self->closed_ || generation != mine) return;
          on_expiry(*self);
        }));
  }
  void disarm(net::steady_timer& timer, std::uint64_t& generation) {
    ++generation;
    timer.cancel();
  }

  // --- reading a request
  void begin_request() {
    ++seq_;
    gone_ = std::make_shared<GoneSignal>();
    started_ = streaming_ = final_queued_ = false;
    keep_alive_ = true;
    chunked_ = true;
    head_request_ = false;
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(limits_.max_header_bytes));
    parser_->body_limit(limits_.max_body_bytes);
  }

  void wait_for_request() {
    if (closed_) return;
    if (server_.draining.load()) return close();
    begin_request();
    if (buffer_.size() > 0) return read_header();  // the client sent it already
    phase_ = Phase::idle;
    arm(read_timer_, read_generation_, limits_.idle_timeout, [](Connection& c) { c.close(); });
    socket_.async_wait(tcp::socket::wait_read,
                       net::bind_executor(strand_, [self = shared_from_this()](
                                                       const boost::system::error_code& ec) {
                         if (self->closed_) return;
                         self->disarm(self->read_timer_, self->read_generation_);
                         if (ec || self->server_.draining.load()) return self->close();
                         self->read_header();
                       }));
  }

  void read_header() {
    phase_ = Phase::reading;
    // The whole request must arrive within the read timeout: a client that
    // trickles bytes is dropped, not waited on.
    arm(read_timer_, read_generation_, limits_.read_timeout, [](Connection& c) { c.close(); });
    bhttp::async_read_header(
        socket_, buffer_, *parser_,
        net::bind_executor(strand_, [self = shared_from_this()](
                                        const boost::system::error_code& ec, std::size_t) {
          self->on_header(ec);
        }));
  }

  void on_header(const boost::system::error_code& ec) {
    if (closed_) return;
    if (ec) return on_read_error(ec);
    const auto& head = parser_->get();
    std::size_t count = 0;
    for (auto it = head.begin(); it != head.end(); ++it) ++count;
    if (count > limits_.max_header_count) {
      return refuse(431, "the request has " + std::to_string(count) + " header fields, over the cap of " +
                             std::to_string(limits_.max_header_count));
    }
    if (head.target().size() > limits_.max_target_bytes) {
      return refuse(414, "the request target is " + std::to_string(head.target().size()) +
                             " bytes, over the cap of " + std::to_string(limits_.max_target_bytes) +
                             " bytes");
    }
    if (parser_->is_done()) return on_request();
    const auto expect = head[bhttp::field::expect];
    if (!expect.empty()) {
      if (!boost::beast::iequals(expect, "100-continue")) {
        return refuse(417, "the Expect header " + std::string(expect) + " is not supported");
      }
      continue_sent_ = std::make_shared<std::string>("HTTP/1.1 100 Continue\r\n\r\n");
      net::async_write(socket_, net::buffer(*continue_sent_),
                       net::bind_executor(strand_, [self = shared_from_this()](
                                                       const boost::system::error_code& ec2,
                                                       std::size_t) {
                         if (self->closed_) return;
                         if (ec2) return self->close();
                         self->read_body();
                       }));
      return;
    }
    read_body();
  }

  void read_body() {
    bhttp::async_read(socket_, buffer_, *parser_,
                      net::bind_executor(strand_, [self = shared_from_this()](
                                                      const boost::system::error_code& ec,
                                                      std::size_t) {
                        if (self->closed_) return;
                        if (ec) return self->on_read_error(ec);
                        self->on_request();
                      }));
  }

  void on_read_error(const boost::system::error_code& ec) {
    if (ec == bhttp::error::header_limit) {
      return refuse(431, "the request line and header fields are over the cap of " +
                             std::to_string(limits_.max_header_bytes) + " bytes");
    }
    if (ec == bhttp::error::body_limit) {
      std::string size;
      if (parser_->content_length()) size = " (Content-Length " + std::to_string(*parser_->content_length()) + ")";
      return refuse(413, "the request body" + size + " is over the cap of " +
                             std::to_string(limits_.max_body_bytes) + " bytes");
    }
    if (ec == bhttp::error::end_of_stream || ec == net::error::eof ||
        ec == net::error::connection_reset || ec == net::error::operation_aborted) {
      return close();
    }
    refuse(400, "malformed HTTP request: " + ec.message());
  }

  void on_request() {
    disarm(read_timer_, read_generation_);
    auto& message = parser_->get();
    Request request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    for (const auto& field : message) {
      request.headers.push_back({std::string(field.name_string()), std::string(field.value())});
    }
    request.body = std::move(message.body());
    request.peer = peer_;
    keep_alive_ = message.keep_alive() && !server_.draining.load();
    chunked_ = message.version() >= 11;
    head_request_ = message.method() == bhttp::verb::head;
    if (!chunked_) keep_alive_ = false;
    parser_.reset();
    phase_ = Phase::handling;
    watch_for_hangup();
    auto writer = make_writer();
    net::post(*server_.handler_pool, [&server = server_, request = std::move(request),
                                      writer = std::move(writer)]() mutable {
      try {
        server.handler(std::move(request), writer);
      } catch (const std::exception& e) {
        writer->send(server.error_response(500, std::string("the handler failed: ") + e.what()));
      } catch (...) {
        writer->send(server.error_response(500, "the handler failed"));
      }
    });
  }

  std::shared_ptr<ResponseWriter> make_writer();

  // A refusal by the transport itself; the connection closes after it.
  void refuse(int status, const std::string& message) {
    disarm(read_timer_, read_generation_);
    phase_ = Phase::handling;
    keep_alive_ = false;
    started_ = true;
    std::string_view target;  // the request line is parsed first: set even when a header failed
    if (parser_) {
      const auto sent = parser_->get().target();
      target = std::string_view(sent.data(), sent.size());
    }
    server_.refused(status, path_of(target));
    Response response = server_.error_response(status, message);
    bool has_retry_after = false;
    for (const Header& h : response.headers) has_retry_after |= boost::beast::iequals(h.name, "Retry-After");
    if (status == 503 && !has_retry_after) response.headers.push_back({"Retry-After", "1"});
    enqueue(wire::whole_response(response, false), true);
  }

  // While a handler works nobody reads the socket; this notices a client
  // that hangs up or resets, so the handler can stop early.
  void watch_for_hangup() {
    if (watching_ || closed_) return;
    watching_ = true;
    socket_.async_wait(
        tcp::socket::wait_read,
        net::bind_executor(strand_, [self = shared_from_this()](const boost::system::error_code& ec) {
          self->watching_ = false;
          if (self->closed_) return;
          if (self->answered_) {  // cancelled because the answer is out
            self->answered_ = false;
            return self->after_answer();
          }
          if (ec) return;
          char probe;
          const ssize_t n =
              ::recv(self->socket_.native_handle(), &probe, 1, MSG_PEEK | MSG_DONTWAIT);
          if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            return self->close();  // hung up or reset
          }
          if (n < 0) return self->watch_for_hangup();
          // n > 0: the next request, pipelined; it is read after this answer.
        }));
  }

  // --- writing
  void enqueue(std::string data, bool final) {
    if (closed_) return;
    if (final) final_queued_ = true;
    if (!data.empty()) {
      pending_bytes_ += data.size();
      out_.push_back(std::move(data));
    }
    if (streaming_ && pending_bytes_ > limits_.max_pending_stream_bytes) {
      return close();  // the client does not keep up
    }
    if (!writing_) write_next();
  }

  void write_next() {
    if (out_.empty()) {
      if (final_queued_) answer_done();
      return;
    }
    writing_ = true;
    arm(write_timer_, write_generation_, limits_.write_timeout, [](Connection& c) { c.close(); });
    net::async_write(socket_, net::buffer(out_.front()),
                     net::bind_executor(strand_, [self = shared_from_this()](
                                                     const boost::system::error_code& ec,
                                                     std::size_t) {
                       self->writing_ = false;
                       if (self->closed_) return;
                       self->disarm(self->write_timer_, self->write_generation_);
                       if (ec) return self->close();
                       self->pending_bytes_ -= self->out_.front().size();
                       self->out_.pop_front();
                       self->write_next();
                     }));
  }

  void answer_done() {
    if (watching_) {
      answered_ = true;
      boost::system::error_code ignored;
      socket_.cancel(ignored);  // the watch's handler continues in after_answer
      return;
    }
    after_answer();
  }

  void after_answer() {
    if (!keep_alive_ || server_.draining.load()) return linger_then_close();
    wait_for_request();
  }

  void linger_then_close() {
    phase_ = Phase::closing;
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    arm(read_timer_, read_generation_, kLingerTime, [](Connection& c) { c.close(); });
    discard_input();
  }

  void discard_input() {
    socket_.async_read_some(
        net::buffer(discard_),
        net::bind_executor(strand_, [self = shared_from_this()](const boost::system::error_code& ec,
                                                                std::size_t n) {
          if (self->closed_) return;
          self->discarded_ += n;
          if (ec || self->discarded_ > kLingerBytes) return self->close();
          self->discard_input();
        }));
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    if (phase_ == Phase::handling && !(final_queued_ && out_.empty())) gone_->mark();
    disarm(read_timer_, read_generation_);
    disarm(write_timer_, write_generation_);
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    out_.clear();
    server_.deregister(this, overloaded_);
  }

  Strand strand_;
  tcp::socket socket_;
  net::steady_timer read_timer_;
  net::steady_timer write_timer_;
  std::uint64_t read_generation_ = 0;
  std::uint64_t write_generation_ = 0;
  Server::Impl& server_;
  const Limits& limits_;
  const bool overloaded_;
  std::string peer_;

  boost::beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::shared_ptr<std::string> continue_sent_;
  Phase phase_ = Phase::idle;
  std::uint64_t seq_ = 0;
  std::shared_ptr<GoneSignal> gone_ = std::make_shared<GoneSignal>();
  bool keep_alive_ = true;
  bool chunked_ = true;
  bool head_request_ = false;
  bool started_ = false;
  bool streaming_ = false;
  bool final_queued_ = false;
  bool watching_ = false;
  bool answered_ = false;
  bool writing_ = false;
  bool closed_ = false;
  std::deque<std::string> out_;
  std::size_t pending_bytes_ = 0;
  std::array<char, 4096> discard_{};
  std::size_t discarded_ = 0;
};

namespace {

// Checks the "gone" flag without a round trip, and posts everything else.
class ConnectionWriter final : public ResponseWriter {
 public:
  ConnectionWriter(std::shared_ptr<Connection> connection, std::uint64_t seq)
      : connection_(std::move(connection)), seq_(seq), gone_(connection_->gone_signal()) {}

  ~ConnectionWriter() override {
    connection_->post([seq = seq_](Connection& c) { c.abandon(seq); });
  }

  bool send(Response response) override {
    if (gone_->gone()) return false;
    connection_->post([seq = seq_, r = std::move(response)](Connection& c) mutable {
      c.answer(seq, std::move(r));
    });
    return true;
  }

  bool begin_stream(int status, std::string content_type, std::vector<Header> headers) override {
    if (gone_->gone()) return false;
    connection_->post([seq = seq_, status, t = std::move(content_type),
                       h = std::move(headers)](Connection& c) mutable {
      c.begin(seq, status, std::move(t), std::move(h));
    });
    return true;
  }

  bool write_chunk(std::string data) override {
    if (gone_->gone()) return false;
    if (data.empty()) return true;  // an empty chunk would end the body
    connection_->post([seq = seq_, d = std::move(data)](Connection& c) mutable {
      c.chunk(seq, std::move(d));
    });
    return true;
  }

  void end_stream() override {
    connection_->post([seq = seq_](Connection& c) { c.end(seq); });
  }

  bool client_gone() const override { return gone_->gone(); }

  void on_client_gone(std::function<void()> callback) override {
    gone_->on_gone(std::move(callback));
  }

 private:
  std::shared_ptr<Connection> connection_;
  std::uint64_t seq_;
  std::shared_ptr<GoneSignal> gone_;
};

}  // namespace

std::shared_ptr<ResponseWriter> Connection::make_writer() {
  return std::make_shared<ConnectionWriter>(shared_from_this(), seq_);
}

void Server::Impl::accept() {
  acceptor.async_accept(net::make_strand(io),
                        net::bind_executor(accept_strand, [this](const boost::system::error_code& ec,
                                                                 tcp::socket socket) {
                          on_accept(ec, std::move(socket));
                        }));
}

void Server::Impl::on_accept(const boost::system::error_code& ec, tcp::socket socket) {
  if (ec == net::error::operation_aborted || draining.load() || !acceptor.is_open()) return;
  if (ec) {
    // Out of descriptors, most likely: wait a little rather than spin.
    std::cerr << "algenta-host http: accept failed: " << ec.message() << "\n";
    accept_retry.expires_after(std::chrono::milliseconds(100));
    accept_retry.async_wait(net::bind_executor(accept_strand, [this](const boost::system::error_code& e) {
      if (!e && !draining.load()) accept();
    }));
    return;
  }
  std::shared_ptr<Connection> connection;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    const bool overloaded = serving >= options.limits.max_connections;
    // Refusals are cheap but not free: past twice the cap, just close.
    if (overloaded && registry.size() >= 2 * options.limits.max_connections) {
      boost::system::error_code ignored;
      socket.close(ignored);
    } else {
      connection = std::make_shared<Connection>(std::move(socket), *this, overloaded);
      registry.emplace(connection.get(), connection);
      if (!overloaded) ++serving;
    }
  }
  if (connection) connection->start();
  accept();
}

void Server::Impl::deregister(Connection* c, bool overloaded) {
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    if (registry.erase(c) && !overloaded) --serving;
  }
  registry_changed.notify_all();
}

Server::Server(ServerOptions options, Handler handler) : impl_(std::make_shared<Impl>()) {
  impl_->options = std::move(options);
  impl_->handler = std::move(handler);
  const ServerOptions& o = impl_->options;
  if (o.io_threads == 0 || o.handler_threads == 0) {
    throw std::runtime_error("the HTTP server needs at least one I/O thread and one handler thread");
  }
  const std::string where = o.host + " port " + std::to_string(o.port);
  boost::system::error_code ec;
  const std::string host = o.host == "localhost" ? "127.0.0.1" : o.host;
  const net::ip::address address = net::ip::make_address(host, ec);
  if (ec) {
    throw std::runtime_error("cannot listen on " + where + ": " + o.host +
                             " is not an IPv4 or IPv6 address");
  }
  const tcp::endpoint endpoint(address, o.port);
  tcp::acceptor& a = impl_->acceptor;
  if (a.open(endpoint.protocol(), ec) ||
      a.set_option(net::socket_base::reuse_address(true), ec) || a.bind(endpoint, ec) ||
      a.listen(net::socket_base::max_listen_connections, ec)) {
    throw std::runtime_error("cannot listen on " + where + ": " + ec.message());
  }
}

Server::~Server() {
  if (impl_ && !impl_->stopped.load()) stop(std::chrono::milliseconds(0));
}

std::uint16_t Server::port() const {
  boost::system::error_code ec;
  return impl_->acceptor.local_endpoint(ec).port();
}

void Server::start() {
  Impl& s = *impl_;
  if (s.started) return;
  s.started = true;
  s.handler_pool = std::make_unique<net::thread_pool>(s.options.handler_threads);
  s.work.emplace(s.io.get_executor());
  net::post(s.accept_strand, [&s] { s.accept(); });
  for (unsigned i = 0; i < s.options.io_threads; ++i) {
    s.io_threads.emplace_back([&s] { s.io.run(); });
  }
}

std::size_t Server::stop(std::chrono::milliseconds drain) {
  Impl& s = *impl_;
  if (s.stopped.load()) return 0;
  s.draining.store(true);
  if (!s.started) {
    s.stopped.store(true);
    boost::system::error_code ignored;
    s.acceptor.close(ignored);
    return 0;
  }
  net::post(s.accept_strand, [&s] {
    boost::system::error_code ignored;
    s.acceptor.close(ignored);
    s.accept_retry.cancel();
  });
  auto each_connection = [&s](auto action) {
    std::vector<std::shared_ptr<Connection>> live;
    {
      std::lock_guard<std::mutex> lock(s.registry_mutex);
      for (auto& [raw, weak] : s.registry) {
        if (auto c = weak.lock()) live.push_back(std::move(c));
      }
    }
    for (auto& c : live) action(*c);
  };
  each_connection([](Connection& c) { c.drain(); });
  std::size_t cut = 0;
  {
    std::unique_lock<std::mutex> lock(s.registry_mutex);
    s.registry_changed.wait_for(lock, drain, [&s] { return s.registry.empty(); });
    cut = s.registry.size();
  }
  each_connection([](Connection& c) { c.cut(); });
  {
    std::unique_lock<std::mutex> lock(s.registry_mutex);
    s.registry_changed.wait_for(lock, std::chrono::seconds(1), [&s] { return s.registry.empty(); });
  }
  // Handlers see client_gone() now and are expected to return promptly.
  s.handler_pool->join();
  s.stopped.store(true);
  s.work.reset();
  s.io.stop();
  for (std::thread& t : s.io_threads) t.join();
  s.io_threads.clear();
  return cut;
}

std::size_t Server::open_connections() const {
  std::lock_guard<std::mutex> lock(impl_->registry_mutex);
  return impl_->registry.size();
}

}  // namespace algenta::http
