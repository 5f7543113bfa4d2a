// PlainHttpConnection against a scripted server: how answers are framed (Content-Length,
// chunked with extensions and trailers, up to the close, after a 100 Continue), when a
// connection is kept, and that a request leaves as one write.
#include "kube/client/plain_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "kube/client/config.h"

namespace weft::kube {
namespace {

// Accepts one connection; for each scripted answer reads one request (head and
// Content-Length body) and writes the answer; then closes.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<std::string> answers) : answers_(std::move(answers)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    ::listen(listen_fd_, 1);
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedServer() {
    thread_.join();
    ::close(listen_fd_);
  }
  int port() const { return port_; }
  // Each request as received, and how many reads it took to arrive whole.
  std::vector<std::string> requests;
  std::vector<int> reads;

 private:
  void serve() {
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    std::string in;
    for (const auto& answer : answers_) {
      int n_reads = 0;
      size_t end;
      char buf[8192];
      auto complete = [&] {
        end = in.find("\r\n\r\n");
        if (end == std::string::npos) return false;
        const size_t at = in.find("Content-Length: ");
        const size_t body = at == std::string::npos || at > end ? 0 : std::stoul(in.substr(at + 16));
        return in.size() >= end + 4 + body;
      };
      while (!complete()) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        ++n_reads;
        in.append(buf, static_cast<size_t>(n));
      }
      requests.push_back(in);
      reads.push_back(n_reads);
      in.clear();
      ::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
    }
    ::close(fd);
  }

  std::vector<std::string> answers_;
  int listen_fd_ = -1, port_ = 0;
  std::thread thread_;
};

Clock::time_point soon() { return Clock::now() + std::chrono::seconds(5); }

std::unique_ptr<PlainHttpConnection> connect_to(const ScriptedServer& s) {
  auto c = PlainHttpConnection::open("127.0.0.1", s.port(), soon());
  EXPECT_TRUE(c) << c.message();
  return c ? std::move(*c) : nullptr;
}

const std::string kPost = "POST /api/v1/namespaces/a/pods HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n";

TEST(PlainHttpConnection, ReadsEachFramingAndKeepsTheConnectionWhileItMay) {
  ScriptedServer server({
      "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\n{\"a\":1}\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{\"b\"\r\n3\r\n:2}\r\n0\r\nX-Trailer: t\r\n\r\n",
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 409 Conflict\r\nRetry-After: 1\r\nContent-Length: 2\r\n\r\n{}",
      "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto the end",
  });
  auto c = connect_to(server);
  ASSERT_TRUE(c);
  auto first = c->exchange(kPost, "{\"x\":1}", soon());
  ASSERT_TRUE(first) << first.message();
  EXPECT_EQ(first->status, 201);
  EXPECT_EQ(first->body, "{\"a\":1}\n");
  EXPECT_EQ(first->header("content-type"), "application/json");
  EXPECT_TRUE(c->reusable());
  auto chunked = c->exchange("GET /b HTTP/1.1\r\nHost: x\r\n\r\n", "", soon());
  ASSERT_TRUE(chunked) << chunked.message();
  EXPECT_EQ(chunked->body, "{\"b\":2}");
  EXPECT_TRUE(c->reusable());
  auto after_continue = c->exchange(kPost, "{\"x\":2}", soon());
  ASSERT_TRUE(after_continue) << after_continue.message();
  EXPECT_EQ(after_continue->status, 409);
  EXPECT_EQ(after_continue->header("retry-after"), "1");
  EXPECT_EQ(after_continue->body, "{}");
  auto closing = c->exchange("GET /c HTTP/1.1\r\nHost: x\r\n\r\n", "", soon());
  ASSERT_TRUE(closing) << closing.message();
  EXPECT_EQ(closing->body, "to the end");
  EXPECT_FALSE(c->reusable());
  ASSERT_EQ(server.reads.size(), 4u);
  EXPECT_EQ(server.requests[0], kPost + "{\"x\":1}");
  EXPECT_EQ(server.reads[0], 1) << "head and body leave in one write";
}

TEST(PlainHttpConnection, AConnectionTheServerClosedIsNotReusedAndAFailureIsAConnectionError) {
  ScriptedServer server({"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"});
  auto c = connect_to(server);
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n", "", soon()));
  EXPECT_TRUE(c->reusable());
  std::this_thread::sleep_for(std::chrono::milliseconds(700));   // idle long enough to be checked
  EXPECT_FALSE(c->still_open());
  auto broken = c->exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n", "", soon());
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().code, 0);
  EXPECT_FALSE(c->reusable());
}

// A body bigger than what one read brings (a list of many objects) arrives whole.
TEST(PlainHttpConnection, ABigBodyArrivesWhole) {
  std::string big(3 << 20, 'x');
  for (size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>('a' + (i / 4096) % 26);
  ScriptedServer server({"HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(big.size()) + "\r\n\r\n" + big,
                         "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"});
  auto c = connect_to(server);
  ASSERT_TRUE(c);
  auto list = c->exchange("GET /api/v1/pods HTTP/1.1\r\nHost: x\r\n\r\n", "", soon());
  ASSERT_TRUE(list) << list.message();
  EXPECT_TRUE(list->body == big);
  EXPECT_TRUE(c->reusable());
  auto next = c->exchange("GET /api/v1/pods/p HTTP/1.1\r\nHost: x\r\n\r\n", "", soon());
  ASSERT_TRUE(next) << next.message();
  EXPECT_EQ(next->body, "{}");
}

// The transport's calls to an http:// server: a request leaves in one write (cpp-httplib's
// client wrote the head and the body apart), and the kept connection serves the next.
TEST(PlainHttpConnection, TheTransportSendsACallInOneWriteAndKeepsItsConnection) {
  ScriptedServer server({"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}",
                         "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnull"});
  ClientConfig config;
  config.server = *parse_server_url("http://127.0.0.1:" + std::to_string(server.port()));
  config.token = "secret";
  auto transport = make_http_transport(config);
  ASSERT_TRUE(transport) << transport.message();
  HttpRequest create{"POST", "/api/v1/namespaces/a/pods", std::string(3000, ' ') + "{}", "application/json"};
  auto created = (*transport)->send(create, soon());
  ASSERT_TRUE(created) << created.message();
  EXPECT_EQ(created->status, 201);
  auto got = (*transport)->send({"GET", "/api/v1/namespaces/a/pods/p", "", ""}, soon());
  ASSERT_TRUE(got) << got.message();
  EXPECT_EQ(got->body, "null");
  ASSERT_EQ(server.reads.size(), 2u);   // both on the one connection the server accepts
  EXPECT_EQ(server.reads[0], 1) << server.requests[0].substr(0, 200);
  EXPECT_NE(server.requests[0].find("\r\nAuthorization: Bearer secret\r\n"), std::string::npos);
  EXPECT_NE(server.requests[0].find("\r\nContent-Type: application/json\r\n"), std::string::npos);
  EXPECT_EQ(server.requests[1].find("Content-Length"), std::string::npos);
}

}  // namespace
}  // namespace weft::kube
