// The HTTP side of kube-lite: cpp-httplib routes every API path to the registry after
// latency, authentication, fault injection and authorization, streams watches as
// chunked responses, and logs each request.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "common/result.h"
#include "tools/kube-lite/auth.h"
#include "tools/kube-lite/crash_trigger.h"
#include "tools/kube-lite/faults.h"
#include "tools/kube-lite/field_validation.h"
#include "tools/kube-lite/registry.h"
#include "tools/kube-lite/request_log.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace weft::kube_lite {

class HttpServer;

struct ServerOptions {
  double fail_rate = 0;
  int retry_after_seconds = 1;
  int latency_ms = 0;
  size_t drop_watch_after = 0;
  std::chrono::milliseconds bookmark_interval{1000};
  uint64_t seed = 1;
  int threads = 256;   // one per open connection (watches and idle keep-alives hold one)
  int kill_after_writes = 0;        // crash tests (crash_trigger.h); 0: off
  std::string kill_pid_file, kill_writes_matching;
};

class Server {
 public:
  Server(Registry& registry, const Authenticator& auth, ServerOptions options, RequestLog* log);
  ~Server();
  // Binds host:port (port 0 = any free one); returns the port.
  Result<int> bind(const std::string& host, int port);
  void run();    // serves until stop()
  void stop();

 private:
  void handle(const httplib::Request& req, httplib::Response& res);
  Reply dispatch(const httplib::Request& req, httplib::Response& res, const User& user, bool& streaming);
  Reply serve_resource(const httplib::Request& req, httplib::Response& res, const User& user, const struct Route& route,
                       bool& streaming);

  Registry& registry_;
  const Authenticator& auth_;
  ServerOptions options_;
  RequestLog* log_;
  FaultInjector faults_;
  CrashTrigger crash_;
  FieldSchemas schemas_;
  std::unique_ptr<HttpServer> http_;
  std::string address_;
};

}  // namespace weft::kube_lite
