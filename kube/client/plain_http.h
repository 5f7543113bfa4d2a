// One kept-alive plain-HTTP/1.1 connection for calls (not watch streams), used by the
// transport for http:// servers. cpp-httplib's client polls the socket before each
// read and write and writes a request's head and body apart: about eight system calls
// a call where this makes three (a liveness peek when the connection sat idle, one send
// of head and body together, one receive for most answers). A scheduler's bindings and
// a client's creates are thousands of calls a second, and on a virtual machine each
// system call is microseconds.
#pragma once

#include <memory>
#include <string>

#include "common/result.h"
#include "kube/client/rate_limit.h"
#include "kube/client/transport.h"

namespace weft::kube {

class PlainHttpConnection {
 public:
  // Connects to host:port (resolved with getaddrinfo) before the deadline.
  static Result<std::unique_ptr<PlainHttpConnection>> open(const std::string& host, int port,
                                                           Clock::time_point deadline);
  ~PlainHttpConnection();
  PlainHttpConnection(const PlainHttpConnection&) = delete;
  PlainHttpConnection& operator=(const PlainHttpConnection&) = delete;

  // The request line and headers ("METHOD /path HTTP/1.1\r\n...\r\n\r\n") and the body,
  // sent together; the whole answer (Content-Length, chunked, or up to the close) read
  // back, into `body_room`'s memory when given (HttpRequest::body_room). An error is a
  // connection failure (code 0): do not reuse the connection.
  Result<HttpResponse> exchange(const std::string& head, const std::string& body, Clock::time_point deadline,
                                std::string* body_room = nullptr);
  // False when the server said it closes the connection, or the connection failed.
  bool reusable() const { return reusable_; }
  // A connection idle for a while may have been closed by the server: looks without
  // blocking (a closed one reads end-of-stream).
  bool still_open();

 private:
  explicit PlainHttpConnection(int fd) : fd_(fd) {}
  struct Framing {
    bool chunked = false, http10 = false;
    bool close = false;       // the server closes the connection after this answer
    long long length = -1;    // Content-Length; -1: chunked or up to the close
  };
  Status set_timeouts(Clock::time_point deadline);
  // More bytes into in_ (false: closed, failed or timed out; why says which).
  bool receive(Clock::time_point deadline, std::string& why);
  bool read_line(std::string& line, Clock::time_point deadline, std::string& why);
  Status read_head(HttpResponse& out, Clock::time_point deadline, Framing& framing);
  Status read_body(HttpResponse& out, Clock::time_point deadline, Framing& framing);

  int fd_;
  bool reusable_ = true;
  long long timeout_ms_ = -1;   // the socket's send/receive timeout as last set
  Clock::time_point last_used_;
  std::string in_;              // received, not yet consumed
  size_t pos_ = 0;              // consumed bytes of in_
};

}  // namespace weft::kube
