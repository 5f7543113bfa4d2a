#include "node-agent/daemon/http_server.h"

#include <charconv>

#include <httplib.h>

namespace weft::agent {

Result<ListenAddress> parse_listen(const std::string& text) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos) return make_error("--listen '" + text + "': expected HOST:PORT");
  std::string host = text.substr(0, colon);
  std::string port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  int port = -1;
  auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || p != port_text.data() + port_text.size() || port < 0 || port > 65535)
    return make_error("--listen '" + text + "': port '" + port_text + "' is not 0..65535");
  return ListenAddress{host, port};
}

HttpServer::HttpServer(HttpHandlers handlers)
    : handlers_(std::move(handlers)), server_(std::make_unique<httplib::Server>()) {
  // A slow or stuck scraper must not hold a worker forever.
  server_->set_read_timeout(5, 0);
  server_->set_write_timeout(5, 0);
  server_->set_keep_alive_timeout(5);
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(handlers_.metrics(), "text/plain; version=0.0.4; charset=utf-8");
  });
  server_->Get("/healthz", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok\n", "text/plain"); });
  server_->Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    if (handlers_.ready()) {
      res.set_content("ok\n", "text/plain");
    } else {
      res.status = 503;
      res.set_content("waiting for the first IB probe\n", "text/plain");
    }
  });
  server_->Get("/probe", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(handlers_.probe(), "application/json");
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

HttpServer::~HttpServer() { stop(); }

Result<int> HttpServer::start(const ListenAddress& address) {
  int port = address.port;
  if (port == 0) {
    port = server_->bind_to_any_port(address.host);
    if (port <= 0) return make_error("--listen " + address.host + ":0: cannot bind");
  } else if (!server_->bind_to_port(address.host, port)) {
    return make_error("--listen " + address.host + ":" + std::to_string(port) + ": cannot bind (in use?)");
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  return port;
}

void HttpServer::stop() {
  if (thread_.joinable()) {
    server_->stop();
    thread_.join();
  }
}

}  // namespace weft::agent
