// Test support: a real Prometheus server (the Debian `prometheus` binary) on a free
// loopback port, scraping static targets every second, with a temp storage dir; plus a
// tiny HTTP server that serves exposition text the test sets (stand-in agents).
// Usage:
//   weft::testing::ExpositionServer agents;
//   agents.set("/n1", "weft_node_cpu_busy_ratio{node=\"n1\"} 0.9\n");
//   weft::testing::Prometheus prom({.targets = {{agents.address(), "/n1", {{"instance", "n1"}}}}});
//   ASSERT_EQ(prom.error(), "");
//   prom.wait_for_series("weft_node_cpu_busy_ratio", 1, std::chrono::seconds(20));
//   auto r = prom.query("max(weft_node_cpu_busy_ratio)");   // r["data"]["result"]...
// Both stop on destruction.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/process.h"

namespace httplib {
class Server;
}

namespace weft::testing {

struct PrometheusTarget {
  std::string address;                       // host:port
  std::string metrics_path = "/metrics";
  std::map<std::string, std::string> labels; // added to every series of the target
};

struct PrometheusOptions {
  std::vector<PrometheusTarget> targets;
  std::string scrape_interval = "1s";
  std::string job = "weft";
  std::vector<std::string> extra_args;
  std::chrono::milliseconds start_timeout{30000};
};

class Prometheus {
 public:
  explicit Prometheus(PrometheusOptions options = {});
  ~Prometheus();
  Prometheus(const Prometheus&) = delete;
  Prometheus& operator=(const Prometheus&) = delete;

  static std::string need();                 // skip reason, "" when `prometheus` is installed

  const std::string& error() const { return error_; }   // "" when it started and is ready
  std::string url() const { return url_; }              // http://127.0.0.1:PORT
  int port() const { return port_; }
  const std::string& config_file() const { return config_file_; }

  // GET /api/v1/query?query=Q: the JSON body; {"status":"error","error":...} when the
  // server could not be reached or answered garbage.
  nlohmann::json query(const std::string& promql) const;
  // Number of series in an instant-vector result (-1 on error).
  int series_count(const std::string& promql) const;
  // Polls (every 200 ms) until the query yields at least n series; false on timeout.
  bool wait_for_series(const std::string& promql, int n, std::chrono::milliseconds timeout) const;

  void stop();
  std::string output();

 private:
  PrometheusOptions options_;
  TempDir dir_;
  std::unique_ptr<Process> process_;
  std::string error_, url_, config_file_;
  int port_ = 0;
};

// Serves text at paths on 127.0.0.1:<free port> (text/plain; version=0.0.4); 404 elsewhere.
class ExpositionServer {
 public:
  ExpositionServer();
  ~ExpositionServer();
  ExpositionServer(const ExpositionServer&) = delete;
  ExpositionServer& operator=(const ExpositionServer&) = delete;

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  void set(const std::string& path, const std::string& text);
  void remove(const std::string& path);     // the path answers 404 (a target gone down)
  int hits(const std::string& path) const;  // requests served for the path

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::map<std::string, std::string> texts_;
  std::map<std::string, int> hits_;
};

}  // namespace weft::testing
