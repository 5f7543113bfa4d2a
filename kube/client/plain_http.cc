#include "kube/client/plain_http.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace weft::kube {

namespace {

constexpr size_t kReadSize = 32 * 1024;
const std::string kClosed = "connection closed by the server";
// An idle connection this old is checked before reuse (the server may have closed it).
constexpr auto kCheckIdleAfter = std::chrono::milliseconds(500);

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

long long millis_left(Clock::time_point deadline) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
}

Error failed(const std::string& what) { return make_error(what, 0); }

// Connects one address without blocking past the deadline.
int connect_one(const addrinfo* a, Clock::time_point deadline, std::string& why) {
  int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
  if (fd < 0) {
    why = std::strerror(errno);
    return -1;
  }
  if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
    why = std::strerror(errno);
    ::close(fd);
    return -1;
  }
  pollfd p{fd, POLLOUT, 0};
  int r;
  do {
    r = ::poll(&p, 1, static_cast<int>(std::max<long long>(millis_left(deadline), 0)));
  } while (r < 0 && errno == EINTR);
  int err = 0;
  socklen_t len = sizeof err;
  if (r <= 0 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
    why = r == 0 ? "connection timed out" : std::strerror(err ? err : errno);
    ::close(fd);
    return -1;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  int yes = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  return fd;
}

}  // namespace

Result<std::unique_ptr<PlainHttpConnection>> PlainHttpConnection::open(const std::string& host, int port,
                                                                       Clock::time_point deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string h = host.size() > 2 && host.front() == '[' ? host.substr(1, host.size() - 2) : host;
  if (int e = ::getaddrinfo(h.c_str(), std::to_string(port).c_str(), &hints, &found); e != 0)
    return failed("cannot resolve " + host + ": " + ::gai_strerror(e));
  std::string why = "no address";
  int fd = -1;
  for (const addrinfo* a = found; a && fd < 0; a = a->ai_next) fd = connect_one(a, deadline, why);
  ::freeaddrinfo(found);
  if (fd < 0) return failed("Could not establish connection (" + why + ")");
  return std::unique_ptr<PlainHttpConnection>(new PlainHttpConnection(fd));
}

PlainHttpConnection::~PlainHttpConnection() { ::close(fd_); }

bool PlainHttpConnection::still_open() {
  if (Clock::now() - last_used_ < kCheckIdleAfter) return true;
  char byte;
  const ssize_t n = ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);   // nothing to read: still open
}

Status PlainHttpConnection::set_timeouts(Clock::time_point deadline) {
  // In steps of 100 ms (rounded up): calls with the same timeout reuse the setting.
  const long long left = millis_left(deadline);
  if (left <= 0) return failed("deadline exceeded");
  const long long ms = (left + 99) / 100 * 100;
  if (ms == timeout_ms_) return {};
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms % 1000) * 1000);
  if (::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
      ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0)
    return failed(std::string("setsockopt: ") + std::strerror(errno));
  timeout_ms_ = ms;
  return {};
}

bool PlainHttpConnection::receive(Clock::time_point deadline, std::string& why) {
  if (pos_ > 0 && pos_ == in_.size()) {
    in_.clear();
    pos_ = 0;
  }
  char buf[kReadSize];
  ssize_t n;
  do {
    n = ::recv(fd_, buf, sizeof buf, 0);
  } while (n < 0 && errno == EINTR);
  if (n > 0) {
    in_.append(buf, static_cast<size_t>(n));
    return true;
  }
  if (n == 0) why = kClosed;
  else why = errno == EAGAIN || errno == EWOULDBLOCK || Clock::now() >= deadline ? "deadline exceeded" : std::strerror(errno);
  return false;
}

bool PlainHttpConnection::read_line(std::string& line, Clock::time_point deadline, std::string& why) {
  size_t eol;
  while ((eol = in_.find("\r\n", pos_)) == std::string::npos)
    if (!receive(deadline, why)) return false;
  line.assign(in_, pos_, eol - pos_);
  pos_ = eol + 2;
  return true;
}

Status PlainHttpConnection::read_head(HttpResponse& out, Clock::time_point deadline, Framing& framing) {
  std::string why, line;
  do {   // 1xx answers (100 Continue) come before the real one
    if (!read_line(line, deadline, why)) return failed(why);
    if (line.compare(0, 5, "HTTP/") != 0 || line.find(' ') == std::string::npos)
      return failed("not an HTTP answer: " + line.substr(0, 80));
    framing.http10 = line.compare(0, 8, "HTTP/1.0") == 0;
    out.status = std::atoi(line.c_str() + line.find(' ') + 1);
    out.headers.clear();
    for (;;) {
      if (!read_line(line, deadline, why)) return failed(why);
      if (line.empty()) break;
      const size_t colon = line.find(':');
      if (colon != std::string::npos) out.headers[lower(line.substr(0, colon))] = trim(line.substr(colon + 1));
    }
  } while (out.status >= 100 && out.status < 200);
  framing.chunked = lower(out.header("transfer-encoding")).find("chunked") != std::string::npos;
  const std::string length = out.header("content-length");
  framing.length = framing.chunked || length.empty() ? -1 : std::atoll(length.c_str());
  const std::string connection = lower(out.header("connection"));
  framing.close = connection == "close" || (framing.http10 && connection != "keep-alive");
  return {};
}

Status PlainHttpConnection::read_body(HttpResponse& out, Clock::time_point deadline, Framing& framing) {
  std::string why, line;
  // out.body may hold a reused room's old bytes: every way below replaces them.
  if (out.status == 204 || out.status == 304) {
    out.body.clear();
    return {};
  }
  if (framing.chunked) {
    out.body.clear();
    for (;;) {
      if (!read_line(line, deadline, why)) return failed(why);
      const size_t size = std::strtoull(line.c_str(), nullptr, 16);   // stops at a ";extension"
      if (size == 0) break;
      while (in_.size() - pos_ < size + 2)
        if (!receive(deadline, why)) return failed(why);
      out.body.append(in_, pos_, size);
      pos_ += size + 2;
    }
    do {   // trailers, up to the empty line
      if (!read_line(line, deadline, why)) return failed(why);
    } while (!line.empty());
    return {};
  }
  if (framing.length < 0) {   // up to the close
    framing.close = true;
    while (receive(deadline, why)) {}
    if (why != kClosed) return failed(why);
  } else if (const size_t length = static_cast<size_t>(framing.length); length > in_.size() - pos_) {
    // A big body (a list) is received straight into the answer, not copied over from in_.
    // (Grown, a string zeroes its new bytes: a reused room of about this size has few.)
    size_t have = in_.size() - pos_;
    if (length > out.body.capacity()) {
      // A room too small: its old bytes are not copied over, and the next pages of about
      // this size fit in the new one (reserved, not touched: no memory until received).
      out.body.clear();
      out.body.reserve(length + length / 8);
    }
    out.body.resize(length);
    std::memcpy(out.body.data(), in_.data() + pos_, have);
    in_.clear();
    pos_ = 0;
    while (have < length) {
      ssize_t n;
      do {
        n = ::recv(fd_, out.body.data() + have, length - have, 0);
      } while (n < 0 && errno == EINTR);
      if (n == 0) return failed(kClosed);
      if (n < 0) return failed(errno == EAGAIN || errno == EWOULDBLOCK ? "deadline exceeded" : std::strerror(errno));
      have += static_cast<size_t>(n);
    }
    return {};
  }
  const size_t length = framing.length < 0 ? in_.size() - pos_ : static_cast<size_t>(framing.length);
  out.body.assign(in_, pos_, length);
  pos_ += length;
  return {};
}

Result<HttpResponse> PlainHttpConnection::exchange(const std::string& head, const std::string& body,
                                                   Clock::time_point deadline, std::string* body_room) {
  reusable_ = false;   // until the answer is read whole
  if (auto s = set_timeouts(deadline); !s) return s.error();
  iovec parts[2] = {{const_cast<char*>(head.data()), head.size()}, {const_cast<char*>(body.data()), body.size()}};
  size_t sent = 0;
  const size_t total = head.size() + body.size();
  while (sent < total) {
    msghdr msg{};
    iovec rest[2];
    int n_rest = 0;
    size_t skip = sent;
    for (const auto& p : parts) {
      if (skip >= p.iov_len) {
        skip -= p.iov_len;
        continue;
      }
      rest[n_rest++] = {static_cast<char*>(p.iov_base) + skip, p.iov_len - skip};
      skip = 0;
    }
    msg.msg_iov = rest;
    msg.msg_iovlen = static_cast<size_t>(n_rest);
    const ssize_t n = ::sendmsg(fd_, &msg, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failed(errno == EAGAIN ? "deadline exceeded" : std::strerror(errno));
    sent += static_cast<size_t>(n);
  }
  HttpResponse out;
  if (body_room) out.body = std::move(*body_room);
  Framing framing;
  if (auto st = read_head(out, deadline, framing); !st) return st.error();
  if (auto st = read_body(out, deadline, framing); !st) return st.error();
  reusable_ = !framing.close;
  last_used_ = Clock::now();
  return out;
}

}  // namespace weft::kube
