// Test support: a real kube-lite (tools/kube-lite) on a free loopback port, with its
// kubeconfig, a client on it, kubectl against it, and its request log. Stopped on
// destruction. Usage:
//   weft::testing::KubeLite api({.state = scenario_path, .fail_rate = 0.1});
//   ASSERT_EQ(api.error(), "");
//   auto nodes = api.client().list(weft::kube::resources::nodes(), "");
//   auto [code, out] = api.kubectl({"get", "nodes", "-o", "json"});
//   for (auto& r : api.requests()) ... r["verb"], r["path"], r["query"], r["user"], r["status"]
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/client/client.h"
#include "kube/client/config.h"
#include "tests/support/process.h"

namespace weft::testing {

struct KubeLiteOptions {
  std::string state;            // --state SCENARIO (YAML or JSON List), "" = empty cluster
  std::string tokens;           // --tokens FILE, "" = no authentication (everything allowed)
  double fail_rate = 0;         // --fail-rate: share of non-watch requests answered 500/429
  int latency_ms = 0;           // --latency
  int drop_watch_after = 0;     // --drop-watch-after N events (0 = never)
  std::string dump;             // --dump FILE written on stop()
  std::vector<std::string> extra_args;
  std::string binary;           // another build's kube-lite ("" = this build's)
  std::chrono::milliseconds start_timeout{20000};
};

// Fast retries, no client-side QPS limit: what tests want from a client.
kube::ClientOptions test_client_options();

class KubeLite {
 public:
  explicit KubeLite(KubeLiteOptions options = {});
  ~KubeLite();
  KubeLite(const KubeLite&) = delete;
  KubeLite& operator=(const KubeLite&) = delete;

  // Path of the built binary and the reason a test must skip ("" when it is built).
  static std::string binary_path();
  static std::string need();

  const std::string& error() const { return error_; }   // "" when it started
  std::string url() const { return url_; }              // http://127.0.0.1:PORT
  int port() const { return port_; }
  const std::string& kubeconfig() const { return kubeconfig_; }
  const kube::ClientConfig& config() const { return config_; }

  // A client shared by the test (created on first use), and fresh ones.
  kube::Client& client();
  std::unique_ptr<kube::Client> new_client(kube::ClientOptions options = test_client_options()) const;
  // A kubeconfig for the same server authenticating with a bearer token.
  std::string kubeconfig_for_token(const std::string& token, const std::string& name) const;
  std::unique_ptr<kube::Client> client_for_token(const std::string& token,
                                                 kube::ClientOptions options = test_client_options()) const;

  // kubectl --kubeconfig <ours> ARGS...: {exit code, stdout+stderr}.
  std::pair<int, std::string> kubectl(const std::vector<std::string>& args,
                                      std::chrono::milliseconds timeout = std::chrono::seconds(60)) const;

  // Every request so far, one JSON object each: {"verb","path","query","user","status","at"}.
  std::vector<nlohmann::json> requests() const;
  const std::string& request_log() const { return request_log_; }

  // SIGTERM (kube-lite then writes --dump); returns the exit status as waitpid gives it.
  int stop();
  std::string output();
  Process& process() { return *process_; }

 private:
  KubeLiteOptions options_;
  TempDir dir_;
  std::unique_ptr<Process> process_;
  std::string error_;
  std::string url_;
  int port_ = 0;
  std::string kubeconfig_;
  std::string request_log_;
  kube::ClientConfig config_;
  std::unique_ptr<kube::Client> client_;
  bool stopped_ = false;
};

}  // namespace weft::testing
