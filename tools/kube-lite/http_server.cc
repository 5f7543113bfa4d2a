#include "tools/kube-lite/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

namespace weft::kube_lite {

namespace {

int poll_retrying(pollfd* fds, nfds_t n, int timeout_ms) {
  int r;
  do {
    r = ::poll(fds, n, timeout_ms);
  } while (r < 0 && errno == EINTR);
  return r;
}

int millis(time_t sec, time_t usec) { return static_cast<int>(sec * 1000 + usec / 1000); }

void address_of(int sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if ((peer ? ::getpeername(sock, reinterpret_cast<sockaddr*>(&addr), &len)
            : ::getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len)) != 0)
    return;
  char text[INET6_ADDRSTRLEN] = {0};
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    port = ntohs(a->sin6_port);
  }
  ip = text;
}

// The response head of a body of known, non-zero length: held back to leave with the
// body (a 100 Continue, a HEAD answer or a chunked stream's head is sent at once).
bool is_head_with_body(std::string_view data) {
  if (data.size() < 16 || data.substr(0, 9) != "HTTP/1.1 " || data.substr(data.size() - 4) != "\r\n\r\n") return false;
  const size_t at = data.find("\r\nContent-Length: ");
  return at != std::string_view::npos && data.substr(at + 18, 3) != "0\r\n";
}

// One accepted connection: reads buffered (cpp-httplib reads a request's head byte by
// byte), blocking under SO_RCVTIMEO/SO_SNDTIMEO instead of polling first.
class Connection final : public httplib::Stream {
 public:
  Connection(int sock, int read_timeout_ms) : sock_(sock), read_timeout_ms_(read_timeout_ms) {}

  bool is_readable() const override {
    if (off_ < len_) return true;
    pollfd p{sock_, POLLIN, 0};
    return poll_retrying(&p, 1, read_timeout_ms_) > 0;
  }
  // A watch asks before each chunk: a send that fails or times out ends the stream, as a
  // poll for writability before it did (which never saw a client that had gone either).
  bool is_writable() const override { return !write_failed_; }

  ssize_t read(char* ptr, size_t size) override {
    if (off_ == len_) {
      if (size >= sizeof buf_) return receive(ptr, size);
      const ssize_t n = receive(buf_, sizeof buf_);
      if (n <= 0) return n;
      off_ = 0;
      len_ = static_cast<size_t>(n);
    }
    const size_t n = std::min(size, len_ - off_);
    std::memcpy(ptr, buf_ + off_, n);
    off_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (held_.empty()) {
      if (is_head_with_body(std::string_view(ptr, size))) {
        held_.assign(ptr, size);
        return static_cast<ssize_t>(size);
      }
      return send_some(ptr, size);
    }
    iovec parts[2] = {{held_.data() + held_sent_, held_.size() - held_sent_}, {const_cast<char*>(ptr), size}};
    msghdr msg{};
    msg.msg_iov = parts;
    msg.msg_iovlen = 2;
    ssize_t n;
    do {
      n = ::sendmsg(sock_, &msg, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      write_failed_ = true;
      return -1;
    }
    const size_t head_left = held_.size() - held_sent_;
    if (static_cast<size_t>(n) < head_left) {
      held_sent_ += static_cast<size_t>(n);
      return 0;   // cpp-httplib writes the rest again
    }
    held_.clear();
    held_sent_ = 0;
    return n - static_cast<ssize_t>(head_left);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    if (!addresses_read_) read_addresses();
    ip = remote_ip_;
    port = remote_port_;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    if (!addresses_read_) read_addresses();
    ip = local_ip_;
    port = local_port_;
  }
  socket_t socket() const override { return sock_; }

  // A held head whose body never came (a HEAD answer).
  bool flush() {
    while (held_sent_ < held_.size()) {
      const ssize_t n = send_some(held_.data() + held_sent_, held_.size() - held_sent_);
      if (n < 0) return false;
      held_sent_ += static_cast<size_t>(n);
    }
    held_.clear();
    held_sent_ = 0;
    return true;
  }

 private:
  ssize_t receive(char* ptr, size_t size) {
    ssize_t n;
    do {
      n = ::recv(sock_, ptr, size, 0);
    } while (n < 0 && errno == EINTR);
    return n;
  }
  ssize_t send_some(const char* ptr, size_t size) {
    ssize_t n;
    do {
      n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n < 0) write_failed_ = true;
    return n;
  }
  void read_addresses() const {
    address_of(sock_, true, remote_ip_, remote_port_);
    address_of(sock_, false, local_ip_, local_port_);
    addresses_read_ = true;
  }

  int sock_, read_timeout_ms_;
  char buf_[4096];
  size_t off_ = 0, len_ = 0;
  std::string held_;
  size_t held_sent_ = 0;
  bool write_failed_ = false;
  mutable bool addresses_read_ = false;
  mutable std::string remote_ip_, local_ip_;
  mutable int remote_port_ = 0, local_port_ = 0;
};

void set_timeout(int sock, int option, time_t sec, time_t usec) {
  timeval tv{};
  tv.tv_sec = static_cast<decltype(tv.tv_sec)>(sec);
  tv.tv_usec = static_cast<decltype(tv.tv_usec)>(usec);
  ::setsockopt(sock, SOL_SOCKET, option, &tv, sizeof tv);
}

}  // namespace

void HttpServer::shut_down() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    for (socket_t sock : open_) ::shutdown(sock, SHUT_RD);   // a recv waiting for a request returns
  }
  stop();
}

bool HttpServer::process_and_close_socket(socket_t sock) {
  // Waiting for the next request is the first read of it: the longer of the two timeouts.
  const time_t read_sec = std::max<time_t>(read_timeout_sec_, keep_alive_timeout_sec_);
  set_timeout(sock, SO_RCVTIMEO, read_sec, read_timeout_sec_ >= keep_alive_timeout_sec_ ? read_timeout_usec_ : 0);
  set_timeout(sock, SO_SNDTIMEO, write_timeout_sec_, write_timeout_usec_);
  bool ok = false, serve = false;
  {
    std::lock_guard lock(mu_);
    serve = !stopping_;
    if (serve) open_.insert(sock);
  }
  Connection conn(sock, millis(read_timeout_sec_, read_timeout_usec_));
  for (size_t left = serve ? keep_alive_max_count_ : 0; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
    bool closed = false;
    ok = process_request(conn, /*close_connection=*/left == 1, closed, nullptr);
    if (!conn.flush() || !ok || closed) break;
  }
  {
    std::lock_guard lock(mu_);
    open_.erase(sock);
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace weft::kube_lite
