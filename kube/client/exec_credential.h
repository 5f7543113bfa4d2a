// kubeconfig `exec` credentials (client.authentication.k8s.io/v1 and v1beta1), as kubectl
// runs them: the plugin is started without a terminal, with KUBERNETES_EXEC_INFO set to an
// ExecCredential (spec.interactive false, spec.cluster when provideClusterInfo), and prints
// an ExecCredential whose status.token is sent as the bearer token. The token is cached
// until status.expirationTimestamp (without one, until the API answers 401) and the plugin
// is run again after that.
//
// Deliberately narrower than kubectl: interactiveMode Always is refused (weft's binaries
// never have a terminal to hand the plugin), and a plugin answering with a client
// certificate instead of a token is an error naming the plugin (the HTTPS connection is
// set up once, so a rotated certificate could not be used).
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"

namespace weft::kube {

// A bearer token that may change: the HTTP transport asks before every request and
// reports a 401 so that a cached token is fetched again.
class TokenProvider {
 public:
  virtual ~TokenProvider() = default;
  virtual Result<std::string> token() = 0;
  virtual void unauthorized() = 0;
};

struct ExecConfig {
  std::string api_version;                                 // client.authentication.k8s.io/v1 | v1beta1
  std::string command;                                     // PATH lookup, or a path (relative: to the kubeconfig's folder)
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;    // added to this process's environment
  std::string install_hint;                                // printed when the command is missing
  bool provide_cluster_info = false;
  std::string interactive_mode;                            // Never | IfAvailable | Always ("" for v1beta1)
  // spec.cluster, when provide_cluster_info
  std::string server;
  std::string certificate_authority_data;                  // base64, as in the kubeconfig
  bool insecure_skip_tls_verify = false;
  std::string where;                                       // "kubeconfig F: users[u].user.exec", for errors
};

// What one plugin run answered.
struct ExecCredential {
  std::string token;
  std::optional<std::chrono::system_clock::time_point> expires;
};

// Parses the plugin's stdout (an ExecCredential of `api_version`); errors name the field.
Result<ExecCredential> parse_exec_credential(const std::string& text, const std::string& api_version);
// The KUBERNETES_EXEC_INFO document for the plugin.
std::string exec_info_json(const ExecConfig& config);

class ExecTokenProvider : public TokenProvider {
 public:
  using Clock = std::function<std::chrono::system_clock::time_point()>;
  explicit ExecTokenProvider(ExecConfig config, Clock now = nullptr);
  Result<std::string> token() override;
  void unauthorized() override;
  int runs() const { return runs_; }   // plugin runs so far

 private:
  Result<ExecCredential> run_plugin();

  ExecConfig config_;
  Clock now_;
  std::mutex mu_;
  std::optional<ExecCredential> cached_;
  int runs_ = 0;
};

}  // namespace weft::kube
