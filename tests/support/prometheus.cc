#include "tests/support/prometheus.h"

#include <httplib.h>

#include <fstream>
#include <regex>

namespace weft::testing {
namespace {

std::string yaml_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string scrape_config(const PrometheusOptions& o) {
  std::string y = "global:\n  scrape_interval: " + o.scrape_interval + "\n  evaluation_interval: " +
                  o.scrape_interval + "\nscrape_configs:\n";
  // One job per metrics path (static_configs share the job's path).
  std::map<std::string, std::vector<const PrometheusTarget*>> by_path;
  for (const auto& t : o.targets) by_path[t.metrics_path].push_back(&t);
  int n = 0;
  for (const auto& [path, targets] : by_path) {
    y += "  - job_name: " + yaml_quote(n == 0 ? o.job : o.job + "-" + std::to_string(n)) + "\n";
    y += "    metrics_path: " + yaml_quote(path) + "\n    scrape_timeout: " + o.scrape_interval + "\n";
    y += "    static_configs:\n";
    for (const auto* t : targets) {
      y += "      - targets: [" + yaml_quote(t->address) + "]\n";
      if (!t->labels.empty()) {
        y += "        labels:\n";
        for (const auto& [k, v] : t->labels) y += "          " + k + ": " + yaml_quote(v) + "\n";
      }
    }
    ++n;
  }
  if (o.targets.empty()) y += "  []\n";
  return y;
}

}  // namespace

std::string Prometheus::need() { return need_tools({"prometheus"}); }

Prometheus::Prometheus(PrometheusOptions options) : options_(std::move(options)), dir_("prometheus") {
  if (std::string why = need(); !why.empty()) {
    error_ = why;
    return;
  }
  config_file_ = dir_.file("prometheus.yml");
  {
    std::string cfg = scrape_config(options_);
    if (options_.targets.empty()) cfg = "global:\n  scrape_interval: " + options_.scrape_interval + "\n";
    write_file(config_file_, cfg);
  }
  port_ = free_port();
  url_ = "http://127.0.0.1:" + std::to_string(port_);
  std::vector<std::string> argv = {find_tool("prometheus"),
                                   "--config.file=" + config_file_,
                                   "--storage.tsdb.path=" + dir_.file("data"),
                                   "--web.listen-address=127.0.0.1:" + std::to_string(port_),
                                   "--log.level=warn"};
  for (const auto& a : options_.extra_args) argv.push_back(a);
  process_ = std::make_unique<Process>(Process::Options{.argv = argv, .keep_stdin_open = false});
  auto deadline = std::chrono::steady_clock::now() + options_.start_timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    auto [status, body] = http_get(url_ + "/-/ready", std::chrono::milliseconds(1000));
    if (status == 200) return;
    if (!process_->running()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  error_ = "prometheus did not become ready on " + url_ + ": " + process_->output();
}

Prometheus::~Prometheus() { stop(); }

void Prometheus::stop() {
  if (process_) process_->stop(std::chrono::milliseconds(3000));
}

std::string Prometheus::output() { return process_ ? process_->output() : ""; }

nlohmann::json Prometheus::query(const std::string& promql) const {
  httplib::Client cli("127.0.0.1", port_);
  cli.set_connection_timeout(2, 0);
  cli.set_read_timeout(5, 0);
  auto res = cli.Get("/api/v1/query", httplib::Params{{"query", promql}}, httplib::Headers{});
  if (!res) return {{"status", "error"}, {"error", "GET /api/v1/query: " + httplib::to_string(res.error())}};
  try {
    return nlohmann::json::parse(res->body);
  } catch (const nlohmann::json::parse_error& e) {
    return {{"status", "error"}, {"error", std::string("GET /api/v1/query: not JSON: ") + e.what()}};
  }
}

int Prometheus::series_count(const std::string& promql) const {
  auto r = query(promql);
  if (r.value("status", "") != "success") return -1;
  const auto& result = r["data"]["result"];
  return result.is_array() ? static_cast<int>(result.size()) : -1;
}

bool Prometheus::wait_for_series(const std::string& promql, int n, std::chrono::milliseconds timeout) const {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (series_count(promql) >= n) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

ExpositionServer::ExpositionServer() : server_(std::make_unique<httplib::Server>()) {
  server_->Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    hits_[req.path]++;
    auto it = texts_.find(req.path);
    if (it == texts_.end()) {
      res.status = 404;
      res.set_content("not found\n", "text/plain");
      return;
    }
    res.set_content(it->second, "text/plain; version=0.0.4");
  });
  port_ = server_->bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

ExpositionServer::~ExpositionServer() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

void ExpositionServer::set(const std::string& path, const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  texts_[path] = text;
}

void ExpositionServer::remove(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  texts_.erase(path);
}

int ExpositionServer::hits(const std::string& path) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = hits_.find(path);
  return it == hits_.end() ? 0 : it->second;
}

}  // namespace weft::testing
