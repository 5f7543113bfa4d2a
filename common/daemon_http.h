// The daemons' HTTP endpoint: /metrics (Prometheus text), /healthz, /readyz, and any
// further GET routes a daemon adds (the agent's /probe). cpp-httplib, served from its
// own threads; a slow scraper cannot hold a worker for more than 5 s.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "common/listen_address.h"
#include "common/result.h"

namespace httplib {
class Server;
}

namespace weft {

// A probe's answer: 200 "ok", or 503 with why.
struct ProbeResult {
  bool ok = true;
  std::string why;
};

struct DaemonHttpHandlers {
  std::function<std::string()> metrics;                               // required
  std::function<ProbeResult()> healthy;                               // unset: always ok
  std::function<ProbeResult()> ready;                                 // unset: always ok
  std::map<std::string, std::function<std::string()>> json_routes;   // path -> JSON body
};

class DaemonHttpServer {
 public:
  explicit DaemonHttpServer(DaemonHttpHandlers handlers);
  ~DaemonHttpServer();
  DaemonHttpServer(const DaemonHttpServer&) = delete;
  DaemonHttpServer& operator=(const DaemonHttpServer&) = delete;
  // Binds (port 0: a free one) and serves; returns the bound port. `flag` names the
  // option in errors.
  Result<int> start(const ListenAddress& address, const std::string& flag);
  void stop();

 private:
  DaemonHttpHandlers handlers_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
};

}  // namespace weft
