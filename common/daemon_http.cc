#include "common/daemon_http.h"

#include <httplib.h>

namespace weft {
namespace {

void answer(httplib::Response& res, const ProbeResult& r) {
  res.status = r.ok ? 200 : 503;
  res.set_content(r.ok ? "ok\n" : r.why + "\n", "text/plain");
}

}  // namespace

DaemonHttpServer::DaemonHttpServer(DaemonHttpHandlers handlers)
    : handlers_(std::move(handlers)), server_(std::make_unique<httplib::Server>()) {
  server_->set_read_timeout(5, 0);
  server_->set_write_timeout(5, 0);
  server_->set_keep_alive_timeout(5);
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(handlers_.metrics(), "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    answer(res, handlers_.healthy ? handlers_.healthy() : ProbeResult{});
  });
  server_->Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    answer(res, handlers_.ready ? handlers_.ready() : ProbeResult{});
  });
  for (const auto& [path, body] : handlers_.json_routes)
    server_->Get(path, [&body = body](const httplib::Request&, httplib::Response& res) {
      res.set_content(body(), "application/json");
    });
  server_->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    res.status = 500;
    res.set_content("internal error: " + what + "\n", "text/plain");
  });
}

DaemonHttpServer::~DaemonHttpServer() { stop(); }

Result<int> DaemonHttpServer::start(const ListenAddress& address, const std::string& flag) {
  const std::string where = flag + " " + address.host + ":" + std::to_string(address.port);
  int port = address.port;
  if (port == 0) {
    port = server_->bind_to_any_port(address.host);
    if (port <= 0) return make_error(where + ": cannot bind");
  } else if (!server_->bind_to_port(address.host, port)) {
    return make_error(where + ": cannot bind (in use?)");
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return port;
}

void DaemonHttpServer::stop() {
  if (thread_.joinable()) {
    server_->stop();
    thread_.join();
  }
}

}  // namespace weft
