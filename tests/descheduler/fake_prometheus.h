// A local Prometheus HTTP API for descheduler tests: /api/v1/query answered by the test's
// handler, on a free port of 127.0.0.1 (http, or https with httplib::SSLServer).
#pragma once

#include <httplib.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <type_traits>

namespace weft::descheduler {

template <class Server = httplib::Server>
class FakePrometheus {
 public:
  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;
  template <class... Args>
  explicit FakePrometheus(Handler handler, Args&&... args) : server_(std::forward<Args>(args)...) {
    server_.Get("/api/v1/query", std::move(handler));
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakePrometheus() {
    server_.stop();
    thread_.join();
  }
  std::string url() const {
    return std::string(std::is_same_v<Server, httplib::SSLServer> ? "https" : "http") + "://127.0.0.1:" +
           std::to_string(port_);
  }

 private:
  Server server_;
  int port_ = 0;
  std::thread thread_;
};

// A query's answer: an instant vector of (labels, value) at `at` (seconds).
inline std::string prom_vector(const std::vector<std::pair<std::string, double>>& series, double at = 1700000000) {
  std::string out = R"({"status":"success","data":{"resultType":"vector","result":[)";
  for (size_t i = 0; i < series.size(); ++i) {
    char value[64];
    std::snprintf(value, sizeof value, "%.17g", series[i].second);
    out += (i ? "," : "") + std::string(R"({"metric":)") + series[i].first + R"(,"value":[)" + std::to_string(at) +
           R"(,")" + value + R"("]})";
  }
  return out + "]}}";
}

}  // namespace weft::descheduler
