// The agent's HTTP endpoint: /metrics, /healthz, /readyz (after the first IB probe),
// /probe (the probe JSON). cpp-httplib, served from its own thread pool.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/result.h"

namespace httplib {
class Server;
}

namespace weft::agent {

struct ListenAddress {
  std::string host;
  int port = 0;
};
// "0.0.0.0:9464", "127.0.0.1:0", "[::]:9464", ":9464" (all interfaces).
Result<ListenAddress> parse_listen(const std::string& text);

struct HttpHandlers {
  std::function<std::string()> metrics;
  std::function<bool()> ready;
  std::function<std::string()> probe;
};

class HttpServer {
 public:
  explicit HttpServer(HttpHandlers handlers);
  ~HttpServer();
  // Binds (port 0 picks a free one) and starts serving; returns the bound port.
  Result<int> start(const ListenAddress& address);
  void stop();

 private:
  HttpHandlers handlers_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
};

}  // namespace weft::agent
