#include "kube/client/exec_credential.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "kube/time.h"

extern char** environ;

namespace weft::kube {

using nlohmann::json;

namespace {

// A plugin that prints nothing for this long is taken as hung (it would otherwise hold
// every API request of the process).
constexpr auto kPluginTimeout = std::chrono::seconds(60);

struct PluginRun {
  int exit_code = -1;          // 127: not found; -1: killed at the timeout
  std::string out, err;
  std::string spawn_error;
};

PluginRun run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  PluginRun r;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    r.spawn_error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    r.spawn_error = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    execvpe(args[0], args.data(), envp.data());
    _exit(errno == ENOENT ? 127 : 126);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  const auto until = std::chrono::steady_clock::now() + kPluginTimeout;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  bool timed_out = false;
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    if (poll(fds, 2, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) r.exit_code = -1;
  else r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string last_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  size_t nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

}  // namespace

Result<ExecCredential> parse_exec_credential(const std::string& text, const std::string& api_version) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return make_error(std::string("output is not JSON: ") + e.what());
  }
  if (!doc.is_object()) return make_error("output is not a JSON object");
  if (doc.value("kind", "") != "ExecCredential")
    return make_error("output kind is '" + doc.value("kind", "") + "', want ExecCredential");
  if (doc.value("apiVersion", "") != api_version)
    return make_error("output apiVersion is '" + doc.value("apiVersion", "") + "', want " + api_version +
                      " (the kubeconfig's exec.apiVersion)");
  if (!doc.contains("status") || !doc["status"].is_object()) return make_error("output has no status");
  const json& st = doc["status"];
  ExecCredential c;
  if (st.contains("token")) {
    if (!st["token"].is_string()) return make_error("status.token is not a string");
    c.token = st["token"].get<std::string>();
  }
  const bool has_cert = st.contains("clientCertificateData") || st.contains("clientKeyData");
  if (c.token.empty() && has_cert)
    return make_error("status has a client certificate and no token: weft takes tokens from exec plugins only");
  if (c.token.empty()) return make_error("status.token is missing or empty");
  if (st.contains("expirationTimestamp") && !st["expirationTimestamp"].is_null()) {
    if (!st["expirationTimestamp"].is_string()) return make_error("status.expirationTimestamp is not a string");
    auto t = parse_rfc3339(st["expirationTimestamp"].get<std::string>());
    if (!t) return make_error("status.expirationTimestamp: " + t.message());
    c.expires = *t;
  }
  return c;
}

std::string exec_info_json(const ExecConfig& config) {
  json spec = {{"interactive", false}};
  if (config.provide_cluster_info) {
    json cluster = {{"server", config.server}};
    if (!config.certificate_authority_data.empty())
      cluster["certificate-authority-data"] = config.certificate_authority_data;
    if (config.insecure_skip_tls_verify) cluster["insecure-skip-tls-verify"] = true;
    spec["cluster"] = cluster;
  }
  return json{{"apiVersion", config.api_version}, {"kind", "ExecCredential"}, {"spec", spec}}.dump();
}

ExecTokenProvider::ExecTokenProvider(ExecConfig config, Clock now) : config_(std::move(config)), now_(std::move(now)) {
  if (!now_) now_ = [] { return std::chrono::system_clock::now(); };
}

Result<std::string> ExecTokenProvider::token() {
  std::lock_guard lock(mu_);
  if (cached_ && (!cached_->expires || now_() < *cached_->expires)) return cached_->token;
  auto fresh = run_plugin();
  if (!fresh) {
    cached_.reset();
    return fresh.error();
  }
  cached_ = *fresh;
  return cached_->token;
}

void ExecTokenProvider::unauthorized() {
  std::lock_guard lock(mu_);
  cached_.reset();
}

Result<ExecCredential> ExecTokenProvider::run_plugin() {
  ++runs_;
  const std::string who = config_.where + ": exec plugin '" + config_.command + "'";
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    bool overridden = kv.rfind("KUBERNETES_EXEC_INFO=", 0) == 0;
    for (const auto& [k, v] : config_.env) overridden = overridden || kv.rfind(k + "=", 0) == 0;
    if (!overridden) env.push_back(kv);
  }
  for (const auto& [k, v] : config_.env) env.push_back(k + "=" + v);
  env.push_back("KUBERNETES_EXEC_INFO=" + exec_info_json(config_));
  std::vector<std::string> argv = {config_.command};
  argv.insert(argv.end(), config_.args.begin(), config_.args.end());
  PluginRun r = run_process(argv, env);
  if (!r.spawn_error.empty()) return make_error(who + ": " + r.spawn_error);
  if (r.exit_code == 127 && r.out.empty()) {
    return make_error(who + ": command not found" + (config_.install_hint.empty() ? "" : "; " + config_.install_hint));
  }
  if (r.exit_code == -1) return make_error(who + ": no answer within 60 s (killed)");
  if (r.exit_code != 0) {
    std::string why = last_line(r.err);
    return make_error(who + ": exit status " + std::to_string(r.exit_code) + (why.empty() ? "" : ": " + why));
  }
  auto c = parse_exec_credential(r.out, config_.api_version);
  if (!c) return make_error(who + ": " + c.message());
  return c;
}

}  // namespace weft::kube
