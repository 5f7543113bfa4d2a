// The agent's HTTP endpoint: /metrics, /healthz, /readyz (after the first IB probe),
// /probe (the probe JSON), on the daemons' common server (common/daemon_http.h).
#pragma once

#include <functional>
#include <string>

#include "common/daemon_http.h"
#include "common/listen_address.h"
#include "common/result.h"

namespace weft::agent {

using weft::ListenAddress;
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
  // Binds (port 0 picks a free one) and starts serving; returns the bound port.
  Result<int> start(const ListenAddress& address) { return server_.start(address, "--listen"); }
  void stop() { server_.stop(); }

 private:
  DaemonHttpServer server_;
};

}  // namespace weft::agent
