// Where the API server is and how to authenticate to it: from a kubeconfig file or
// from the in-cluster service account. Errors name the file and the field.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "common/result.h"
#include "kube/client/exec_credential.h"

namespace weft::kube {

struct ServerAddress {
  std::string scheme;     // "http" or "https"
  std::string host;
  int port = 0;
  std::string base_path;  // "" or "/prefix" (no trailing slash)
  std::string url() const;  // scheme://host:port/base
};

// "https://10.0.0.1:6443", "http://127.0.0.1:8080/prefix", "https://[::1]:443".
Result<ServerAddress> parse_server_url(const std::string& url);

struct ClientConfig {
  ServerAddress server;
  std::string ca_pem;            // CA bundle text (from -data or read from a file)
  std::string ca_file;           // where ca_pem came from, for messages
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string token;             // static bearer token
  std::string token_file;        // re-read when it changes (service account, tokenFile)
  // users[].user.exec (when no token or tokenFile is set): asked before every request.
  std::shared_ptr<TokenProvider> token_provider;
  bool insecure_skip_tls_verify = false;
  std::string source;            // "kubeconfig /path (context x)" or "in-cluster service account"
};

// Parses a kubeconfig (YAML or JSON). context "" means current-context. Relative file
// paths in it are resolved against the kubeconfig's directory, as kubectl does.
Result<ClientConfig> parse_kubeconfig(const std::string& text, const std::string& path,
                                      const std::string& context = "");
Result<ClientConfig> load_kubeconfig(const std::string& path, const std::string& context = "");

// The service account mounted into a pod: KUBERNETES_SERVICE_HOST/PORT from env and
// token, ca.crt under dir (normally /var/run/secrets/kubernetes.io/serviceaccount).
using Environment = std::map<std::string, std::string>;
Result<ClientConfig> load_in_cluster(const Environment& env,
                                     const std::string& dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// --kubeconfig > $KUBECONFIG > in-cluster > ~/.kube/config. $KUBECONFIG is a ':' list
// merged as kubectl does (kubeconfig_merge.h); entries that do not exist are skipped.
Result<ClientConfig> resolve_config(const std::string& kubeconfig_flag, const Environment& env,
                                    const std::string& service_account_dir =
                                        "/var/run/secrets/kubernetes.io/serviceaccount");
Environment current_environment();

}  // namespace weft::kube
