// kube-lite's connections: kept-alive connections that wait for their next request cost
// no CPU, and still answer when it comes.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/kube_lite.h"

namespace weft::kube_lite {
namespace {

using weft::testing::KubeLite;

double cpu_seconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string f;
  long ticks = 0;
  for (int i = 3; fields >> f && i <= 15; ++i)
    if (i >= 14) ticks += std::stol(f);   // utime, stime
  return static_cast<double>(ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

// Sends GET /version and reads until the whole answer (head and body) is in.
std::string get_version(int fd) {
  const std::string request = "GET /version HTTP/1.1\r\nHost: kube-lite\r\n\r\n";
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) return "";
  std::string answer;
  char buf[4096];
  while (true) {
    const size_t head_end = answer.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      const size_t at = answer.find("Content-Length: ");
      if (at != std::string::npos && answer.size() >= head_end + 4 + std::stoul(answer.substr(at + 16))) return answer;
    }
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return answer;
    answer.append(buf, static_cast<size_t>(n));
  }
}

TEST(KubeLiteConnections, IdleKeptAliveConnectionsCostNoCpuAndStillAnswer) {
  if (!KubeLite::need().empty()) GTEST_SKIP() << KubeLite::need();
  KubeLite api;
  ASSERT_EQ(api.error(), "");
  std::vector<int> fds;
  for (int i = 0; i < 40; ++i) {
    int fd = connect_to(api.port());
    ASSERT_GE(fd, 0);
    ASSERT_NE(get_version(fd).find("\"gitVersion\""), std::string::npos);
    fds.push_back(fd);
  }
  const double before = cpu_seconds(api.process().pid());
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const double idle = cpu_seconds(api.process().pid()) - before;
  // Polling each idle connection every 10 ms (cpp-httplib's own loop) cost ~0.17 s here.
  EXPECT_LT(idle, 0.05) << "CPU seconds spent by kube-lite with 40 idle connections over 2 s";
  for (int fd : fds) {
    EXPECT_NE(get_version(fd).find("\"gitVersion\""), std::string::npos) << "the kept-alive connection answers again";
    ::close(fd);
  }
}

}  // namespace
}  // namespace weft::kube_lite
