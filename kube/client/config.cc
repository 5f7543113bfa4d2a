#include "kube/client/config.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "kube/client/base64.h"
#include "kube/client/kubeconfig_merge.h"

extern char** environ;

namespace weft::kube {
namespace {

Result<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot read: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string resolve_relative(const std::string& file, const std::string& kubeconfig_path) {
  if (file.empty() || file[0] == '/') return file;
  auto dir = std::filesystem::path(kubeconfig_path).parent_path();
  return (dir / file).string();
}

// Finds the entry called `name` in a kubeconfig list (clusters, users, contexts) and
// returns its inner map (entry[inner]).
Result<YAML::Node> named_entry(const YAML::Node& root, const std::string& list, const std::string& inner,
                               const std::string& name) {
  const YAML::Node seq = root[list];
  if (!seq || !seq.IsSequence()) return make_error("field '" + list + "': missing or not a list");
  for (size_t i = 0; i < seq.size(); ++i) {
    const YAML::Node entry = seq[i];
    if (!entry.IsMap()) return make_error("field '" + list + "[" + std::to_string(i) + "]': not a map");
    if (entry["name"] && entry["name"].IsScalar() && entry["name"].as<std::string>() == name) {
      const YAML::Node body = entry[inner];
      if (!body || !body.IsMap()) {
        return make_error("field '" + list + "[" + std::to_string(i) + "]." + inner + "': missing or not a map");
      }
      return body;
    }
  }
  return make_error("field '" + list + "': no entry named '" + name + "'");
}

Result<std::string> scalar(const YAML::Node& map, const std::string& key, const std::string& where) {
  const YAML::Node v = map[key];
  if (!v || v.IsNull()) return std::string();
  if (!v.IsScalar()) return make_error("field '" + where + "." + key + "': not a string");
  return v.as<std::string>();
}

// Reads PEM material from "<key>-data" (base64) or "<key>" (a file path).
Status pem_field(const YAML::Node& map, const std::string& key, const std::string& where,
                 const std::string& kubeconfig_path, std::string& pem, std::string* file_out) {
  auto data = scalar(map, key + "-data", where);
  if (!data) return data.error();
  if (!data->empty()) {
    auto decoded = base64_decode(*data);
    if (!decoded) return make_error("field '" + where + "." + key + "-data': " + decoded.message());
    if (decoded->find("-----BEGIN") == std::string::npos) {
      return make_error("field '" + where + "." + key + "-data': not PEM after base64 decoding");
    }
    pem = std::move(*decoded);
    if (file_out) *file_out = "(" + key + "-data)";
    return {};
  }
  auto file = scalar(map, key, where);
  if (!file) return file.error();
  if (file->empty()) return {};
  std::string path = resolve_relative(*file, kubeconfig_path);
  auto text = read_whole_file(path);
  if (!text) return make_error("field '" + where + "." + key + "': " + text.message());
  pem = std::move(*text);
  if (file_out) *file_out = path;
  return {};
}

// users[].user.exec -> a provider that runs the plugin when a token is needed.
Result<std::shared_ptr<TokenProvider>> exec_provider(const YAML::Node& exec, const std::string& where,
                                                     const std::string& kubeconfig_path, const ClientConfig& cfg,
                                                     const YAML::Node& cluster) {
  if (!exec.IsMap()) return make_error("field '" + where + "': not a map");
  ExecConfig e;
  e.where = "kubeconfig " + kubeconfig_path + ": " + where;
  auto field = [&](const char* key) { return scalar(exec, key, where); };
  auto api_version = field("apiVersion");
  if (!api_version) return api_version.error();
  e.api_version = *api_version;
  if (e.api_version != "client.authentication.k8s.io/v1" && e.api_version != "client.authentication.k8s.io/v1beta1")
    return make_error("field '" + where + ".apiVersion': '" + e.api_version +
                      "' is not client.authentication.k8s.io/v1 or v1beta1");
  auto command = field("command");
  if (!command) return command.error();
  if (command->empty()) return make_error("field '" + where + ".command': missing");
  e.command = command->find('/') != std::string::npos ? resolve_relative(*command, kubeconfig_path) : *command;
  if (const YAML::Node args = exec["args"]; args && !args.IsNull()) {
    if (!args.IsSequence()) return make_error("field '" + where + ".args': not a list");
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i].IsScalar()) return make_error("field '" + where + ".args[" + std::to_string(i) + "]': not a string");
      e.args.push_back(args[i].as<std::string>());
    }
  }
  if (const YAML::Node env = exec["env"]; env && !env.IsNull()) {
    if (!env.IsSequence()) return make_error("field '" + where + ".env': not a list");
    for (size_t i = 0; i < env.size(); ++i) {
      const std::string at = where + ".env[" + std::to_string(i) + "]";
      if (!env[i].IsMap()) return make_error("field '" + at + "': not a map");
      auto name = scalar(env[i], "name", at);
      auto value = scalar(env[i], "value", at);
      if (!name) return name.error();
      if (!value) return value.error();
      if (name->empty()) return make_error("field '" + at + ".name': missing");
      e.env.emplace_back(*name, *value);
    }
  }
  auto hint = field("installHint");
  if (!hint) return hint.error();
  e.install_hint = *hint;
  auto mode = field("interactiveMode");
  if (!mode) return mode.error();
  e.interactive_mode = *mode;
  if (e.interactive_mode.empty() && e.api_version == "client.authentication.k8s.io/v1")
    return make_error("field '" + where + ".interactiveMode': required for client.authentication.k8s.io/v1");
  if (e.interactive_mode == "Always")
    return make_error("field '" + where + ".interactiveMode': Always needs a terminal, and weft runs without one "
                      "(use Never or IfAvailable)");
  if (!e.interactive_mode.empty() && e.interactive_mode != "Never" && e.interactive_mode != "IfAvailable")
    return make_error("field '" + where + ".interactiveMode': '" + e.interactive_mode +
                      "' is not Never, IfAvailable or Always");
  if (const YAML::Node p = exec["provideClusterInfo"]; p && !p.IsNull()) {
    if (!p.IsScalar() || !YAML::convert<bool>::decode(p, e.provide_cluster_info))
      return make_error("field '" + where + ".provideClusterInfo': not a boolean");
  }
  e.server = cfg.server.url();
  if (auto ca = scalar(cluster, "certificate-authority-data", ""); ca) e.certificate_authority_data = *ca;
  if (e.certificate_authority_data.empty() && !cfg.ca_pem.empty())
    e.certificate_authority_data = base64_encode(cfg.ca_pem);
  e.insecure_skip_tls_verify = cfg.insecure_skip_tls_verify;
  return std::shared_ptr<TokenProvider>(std::make_shared<ExecTokenProvider>(std::move(e)));
}

bool file_exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

}  // namespace

std::string ServerAddress::url() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return scheme + "://" + h + ":" + std::to_string(port) + base_path;
}

Result<ServerAddress> parse_server_url(const std::string& url) {
  ServerAddress a;
  auto sep = url.find("://");
  if (sep == std::string::npos) return make_error("server '" + url + "': expected http:// or https:// URL");
  a.scheme = url.substr(0, sep);
  if (a.scheme != "http" && a.scheme != "https") {
    return make_error("server '" + url + "': scheme must be http or https");
  }
  std::string rest = url.substr(sep + 3);
  auto slash = rest.find('/');
  std::string hostport = rest.substr(0, slash);
  if (slash != std::string::npos) {
    a.base_path = rest.substr(slash);
    while (!a.base_path.empty() && a.base_path.back() == '/') a.base_path.pop_back();
  }
  std::string port_text;
  if (!hostport.empty() && hostport[0] == '[') {
    auto close = hostport.find(']');
    if (close == std::string::npos) return make_error("server '" + url + "': unterminated IPv6 address");
    a.host = hostport.substr(1, close - 1);
    if (close + 1 < hostport.size()) {
      if (hostport[close + 1] != ':') return make_error("server '" + url + "': bad port");
      port_text = hostport.substr(close + 2);
    }
  } else {
    auto colon = hostport.rfind(':');
    a.host = hostport.substr(0, colon);
    if (colon != std::string::npos) port_text = hostport.substr(colon + 1);
  }
  if (a.host.empty()) return make_error("server '" + url + "': missing host");
  if (port_text.empty()) {
    a.port = a.scheme == "https" ? 443 : 80;
  } else {
    char* end = nullptr;
    long p = std::strtol(port_text.c_str(), &end, 10);
    if (*end != '\0' || p <= 0 || p > 65535) return make_error("server '" + url + "': bad port '" + port_text + "'");
    a.port = static_cast<int>(p);
  }
  return a;
}

Result<ClientConfig> parse_kubeconfig(const std::string& text, const std::string& path, const std::string& context) {
  auto fail = [&](const std::string& what) { return make_error("kubeconfig " + path + ": " + what); };
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return fail("line " + std::to_string(e.mark.line + 1) + " column " + std::to_string(e.mark.column + 1) +
                ": " + e.msg);
  }
  if (!root.IsMap()) return fail("not a kubeconfig (top level is not a map)");
  try {
    std::string ctx_name = context;
    if (ctx_name.empty()) {
      auto cur = scalar(root, "current-context", "");
      if (!cur) return fail(cur.message());
      ctx_name = *cur;
      if (ctx_name.empty()) return fail("field 'current-context': missing (and no context was given)");
    }
    auto ctx = named_entry(root, "contexts", "context", ctx_name);
    if (!ctx) return fail(ctx.message());
    auto cluster_name = scalar(*ctx, "cluster", "contexts[" + ctx_name + "].context");
    if (!cluster_name) return fail(cluster_name.message());
    if (cluster_name->empty()) return fail("field 'contexts[" + ctx_name + "].context.cluster': missing");
    auto user_name = scalar(*ctx, "user", "contexts[" + ctx_name + "].context");
    if (!user_name) return fail(user_name.message());

    ClientConfig cfg;
    cfg.source = "kubeconfig " + path + " (context " + ctx_name + ")";
    auto cluster = named_entry(root, "clusters", "cluster", *cluster_name);
    if (!cluster) return fail(cluster.message());
    const std::string cwhere = "clusters[" + *cluster_name + "].cluster";
    auto server = scalar(*cluster, "server", cwhere);
    if (!server) return fail(server.message());
    if (server->empty()) return fail("field '" + cwhere + ".server': missing");
    auto addr = parse_server_url(*server);
    if (!addr) return fail("field '" + cwhere + ".server': " + addr.message());
    cfg.server = *addr;
    if (auto s = pem_field(*cluster, "certificate-authority", cwhere, path, cfg.ca_pem, &cfg.ca_file); !s) {
      return fail(s.message());
    }
    if (const YAML::Node insecure = (*cluster)["insecure-skip-tls-verify"]; insecure && !insecure.IsNull()) {
      if (!insecure.IsScalar()) return fail("field '" + cwhere + ".insecure-skip-tls-verify': not a boolean");
      bool value = false;
      if (!YAML::convert<bool>::decode(insecure, value)) {
        return fail("field '" + cwhere + ".insecure-skip-tls-verify': not a boolean: '" +
                    insecure.as<std::string>() + "'");
      }
      cfg.insecure_skip_tls_verify = value;
    }

    if (!user_name->empty()) {
      auto user = named_entry(root, "users", "user", *user_name);
      if (!user) return fail(user.message());
      const std::string uwhere = "users[" + *user_name + "].user";
      if (auto s = pem_field(*user, "client-certificate", uwhere, path, cfg.client_cert_pem, nullptr); !s) {
        return fail(s.message());
      }
      if (auto s = pem_field(*user, "client-key", uwhere, path, cfg.client_key_pem, nullptr); !s) {
        return fail(s.message());
      }
      if (cfg.client_cert_pem.empty() != cfg.client_key_pem.empty()) {
        return fail("field '" + uwhere + "': client-certificate and client-key must be given together");
      }
      auto token = scalar(*user, "token", uwhere);
      if (!token) return fail(token.message());
      cfg.token = *token;
      auto token_file = scalar(*user, "tokenFile", uwhere);
      if (!token_file) return fail(token_file.message());
      if (!token_file->empty()) cfg.token_file = resolve_relative(*token_file, path);
      // A static token wins over exec, as in kubectl (its exec round tripper leaves a
      // request that already carries an Authorization header alone).
      if (const YAML::Node exec = (*user)["exec"]; exec && !exec.IsNull() && cfg.token.empty() &&
                                                   cfg.token_file.empty()) {
        auto provider = exec_provider(exec, uwhere + ".exec", path, cfg, *cluster);
        if (!provider) return fail(provider.message());
        cfg.token_provider = std::move(*provider);
      }
      if ((*user)["auth-provider"] && cfg.token.empty() && cfg.token_file.empty() && cfg.client_cert_pem.empty() &&
          !cfg.token_provider) {
        return fail("field '" + uwhere + ".auth-provider': not supported (removed from kubectl in 1.26; use exec)");
      }
    }
    if (cfg.server.scheme == "http" && (!cfg.client_cert_pem.empty())) {
      return fail("field '" + cwhere + ".server': client certificates need an https server");
    }
    return cfg;
  } catch (const YAML::Exception& e) {
    return fail(e.what());
  }
}

Result<ClientConfig> load_kubeconfig(const std::string& path, const std::string& context) {
  auto text = read_whole_file(path);
  if (!text) return make_error("kubeconfig " + text.message());
  return parse_kubeconfig(*text, path, context);
}

Result<ClientConfig> load_in_cluster(const Environment& env, const std::string& dir) {
  auto host_it = env.find("KUBERNETES_SERVICE_HOST");
  auto port_it = env.find("KUBERNETES_SERVICE_PORT");
  if (host_it == env.end() || host_it->second.empty() || port_it == env.end() || port_it->second.empty()) {
    return make_error("in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
  }
  std::string host = host_it->second;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  auto addr = parse_server_url("https://" + host + ":" + port_it->second);
  if (!addr) return make_error("in-cluster config: " + addr.message());
  ClientConfig cfg;
  cfg.server = *addr;
  cfg.source = "in-cluster service account (" + dir + ")";
  cfg.token_file = dir + "/token";
  auto token = read_whole_file(cfg.token_file);
  if (!token) return make_error("in-cluster config: token " + token.message());
  cfg.ca_file = dir + "/ca.crt";
  auto ca = read_whole_file(cfg.ca_file);
  if (!ca) return make_error("in-cluster config: CA " + ca.message());
  cfg.ca_pem = std::move(*ca);
  return cfg;
}

Result<ClientConfig> resolve_config(const std::string& kubeconfig_flag, const Environment& env,
                                    const std::string& service_account_dir) {
  if (!kubeconfig_flag.empty()) return load_kubeconfig(kubeconfig_flag);
  if (auto it = env.find("KUBECONFIG"); it != env.end() && !it->second.empty()) {
    std::stringstream list(it->second);
    std::string entry, first;
    std::vector<std::string> files;
    while (std::getline(list, entry, ':')) {
      if (entry.empty()) continue;
      if (first.empty()) first = entry;
      if (file_exists(entry) && std::find(files.begin(), files.end(), entry) == files.end()) files.push_back(entry);
    }
    if (files.size() == 1) return load_kubeconfig(files.front());
    if (files.size() > 1) {
      auto merged = merge_kubeconfigs(files);
      if (!merged) return merged.error();
      return parse_kubeconfig(*merged, "$KUBECONFIG (" + it->second + ")");
    }
    if (!first.empty()) return make_error("kubeconfig " + first + " (from $KUBECONFIG): no such file");
  }
  if (env.count("KUBERNETES_SERVICE_HOST") && file_exists(service_account_dir + "/token")) {
    return load_in_cluster(env, service_account_dir);
  }
  if (auto it = env.find("HOME"); it != env.end() && !it->second.empty()) {
    std::string home_config = it->second + "/.kube/config";
    if (file_exists(home_config)) return load_kubeconfig(home_config);
  }
  return make_error(
      "no Kubernetes API configuration: give --kubeconfig, set $KUBECONFIG, run in a pod with a service "
      "account, or create ~/.kube/config");
}

Environment current_environment() {
  Environment env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

}  // namespace weft::kube
