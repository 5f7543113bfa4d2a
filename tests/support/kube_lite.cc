#include "tests/support/kube_lite.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace weft::testing {

using std::chrono::milliseconds;

kube::ClientOptions test_client_options() {
  kube::ClientOptions o;
  o.qps = 0;
  o.timeout = milliseconds(10000);
  o.max_attempts = 6;
  o.backoff = kube::BackoffPolicy{milliseconds(10), 2.0, milliseconds(200), 0.5};
  return o;
}

std::string KubeLite::binary_path() { return binary("tools/kube-lite/kube-lite"); }

std::string KubeLite::need() {
  std::error_code ec;
  if (!std::filesystem::exists(binary_path(), ec)) return "kube-lite not built at " + binary_path();
  return "";
}

KubeLite::KubeLite(KubeLiteOptions options) : options_(std::move(options)), dir_("kube-lite") {
  if (auto reason = need(); !reason.empty()) {
    error_ = reason;
    return;
  }
  kubeconfig_ = dir_.file("kubeconfig");
  request_log_ = dir_.file("requests.jsonl");
  std::vector<std::string> argv = {options_.binary.empty() ? binary_path() : options_.binary, "--listen", "127.0.0.1:0", "--kubeconfig-out", kubeconfig_,
                                   "--request-log", request_log_};
  auto add = [&](const std::string& flag, const std::string& value) {
    argv.push_back(flag);
    argv.push_back(value);
  };
  if (!options_.state.empty()) add("--state", options_.state);
  if (!options_.tokens.empty()) add("--tokens", options_.tokens);
  if (options_.fail_rate > 0) add("--fail-rate", std::to_string(options_.fail_rate));
  if (options_.latency_ms > 0) add("--latency", std::to_string(options_.latency_ms));
  if (options_.drop_watch_after > 0) add("--drop-watch-after", std::to_string(options_.drop_watch_after));
  if (!options_.dump.empty()) add("--dump", options_.dump);
  argv.insert(argv.end(), options_.extra_args.begin(), options_.extra_args.end());
  process_ = std::make_unique<Process>(Process::Options{.argv = argv, .keep_stdin_open = false});
  static const std::regex listening("listening on (http://127\\.0\\.0\\.1:([0-9]+))");
  auto line = process_->wait_for_line(listening, options_.start_timeout);
  if (!line) {
    error_ = "kube-lite did not start: " + process_->output();
    return;
  }
  std::smatch m;
  std::regex_search(*line, m, listening);
  url_ = m[1];
  port_ = std::stoi(m[2]);
  auto cfg = kube::load_kubeconfig(kubeconfig_);
  if (!cfg) {
    error_ = cfg.message();
    return;
  }
  config_ = *cfg;
}

KubeLite::~KubeLite() {
  client_.reset();
  if (process_ && !stopped_) process_->stop();
}

kube::Client& KubeLite::client() {
  if (!client_) client_ = new_client();
  return *client_;
}

std::unique_ptr<kube::Client> KubeLite::new_client(kube::ClientOptions options) const {
  auto c = kube::Client::from_config(config_, options);
  if (!c) throw std::runtime_error("kube-lite client: " + c.message());
  return std::move(c.value());
}

std::string KubeLite::kubeconfig_for_token(const std::string& token, const std::string& name) const {
  std::string path = dir_.file("kubeconfig-" + name);
  std::ostringstream out;
  out << "apiVersion: v1\nkind: Config\ncurrent-context: " << name << "\n"
      << "clusters:\n- name: kube-lite\n  cluster:\n    server: " << url_ << "\n"
      << "users:\n- name: " << name << "\n  user:\n    token: \"" << token << "\"\n"
      << "contexts:\n- name: " << name << "\n  context:\n    cluster: kube-lite\n    user: " << name << "\n";
  write_file(path, out.str());
  return path;
}

std::unique_ptr<kube::Client> KubeLite::client_for_token(const std::string& token, kube::ClientOptions options) const {
  kube::ClientConfig cfg = config_;
  cfg.token = token;
  cfg.token_file.clear();
  auto c = kube::Client::from_config(cfg, options);
  if (!c) throw std::runtime_error("kube-lite client: " + c.message());
  return std::move(c.value());
}

std::pair<int, std::string> KubeLite::kubectl(const std::vector<std::string>& args, milliseconds timeout) const {
  std::vector<std::string> argv = {"kubectl", "--kubeconfig", kubeconfig_};
  argv.insert(argv.end(), args.begin(), args.end());
  // kubectl caches discovery under $HOME; keep each server's cache apart.
  argv.insert(argv.begin() + 3, {"--cache-dir", dir_.file("kubectl-cache")});
  return run_command(argv, timeout);
}

std::vector<nlohmann::json> KubeLite::requests() const {
  std::vector<nlohmann::json> out;
  std::ifstream in(request_log_);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  return out;
}

int KubeLite::stop() {
  if (!process_ || stopped_) return -1;
  stopped_ = true;
  return process_->stop(milliseconds(10000));
}

std::string KubeLite::output() { return process_ ? process_->output() : ""; }

}  // namespace weft::testing
