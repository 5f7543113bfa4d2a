#include "descheduler/app/prometheus_load.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <httplib.h>

#include "kube/client/resource.h"

namespace weft::descheduler {
namespace {

// A credential file's content without the trailing newline editors and Secrets leave.
Result<std::string> read_secret(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) return make_error(what + " " + path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  if (s.empty()) return make_error(what + " " + path + ": is empty");
  return s;
}

}  // namespace

std::string promql_duration(Seconds d) {
  double s = d.count();
  if (s >= 1 && std::fmod(s, 1) == 0) {
    long long whole = static_cast<long long>(s);
    if (whole % 3600 == 0) return std::to_string(whole / 3600) + "h";
    if (whole % 60 == 0) return std::to_string(whole / 60) + "m";
    return std::to_string(whole) + "s";
  }
  return std::to_string(std::max<long long>(1, std::llround(s * 1000))) + "ms";
}

std::string expand_query(const std::string& tmpl, Seconds window, const std::string& label) {
  std::string out;
  for (size_t i = 0; i < tmpl.size();) {
    if (tmpl.compare(i, 8, "{window}") == 0) {
      out += promql_duration(window);
      i += 8;
    } else if (tmpl.compare(i, 7, "{label}") == 0) {
      out += label;
      i += 7;
    } else {
      out += tmpl[i++];
    }
  }
  return out;
}

PrometheusLoad::PrometheusLoad(std::string address, MetricsArgs metrics, std::chrono::milliseconds timeout)
    : address_(std::move(address)), metrics_(std::move(metrics)), timeout_(timeout) {
  while (!address_.empty() && address_.back() == '/') address_.pop_back();
}

Result<PromVector> PrometheusLoad::query(const std::string& promql, const std::vector<std::string>& labels,
                                         TimePoint now) const {
  // Split "scheme://host:port/prefix" into the client address and the path prefix.
  std::string base = address_, prefix;
  size_t scheme_end = base.find("://");
  size_t path_start = base.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
  if (path_start != std::string::npos) {
    prefix = base.substr(path_start);
    base = base.substr(0, path_start);
  }
  char at[32];
  std::snprintf(at, sizeof at, "%.3f", std::chrono::duration<double>(now.time_since_epoch()).count());
  std::string path = prefix + "/api/v1/query?query=" + kube::url_encode(promql) + "&time=" + at;
  std::string what = "GET " + address_ + "/api/v1/query?query=" + promql;
  httplib::Client cli(base);
  if (!cli.is_valid()) return make_error(what + ": '" + address_ + "' is not an http(s) URL");
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(timeout_);
  auto usecs = std::chrono::duration_cast<std::chrono::microseconds>(timeout_ - secs);
  cli.set_connection_timeout(secs.count(), usecs.count());
  cli.set_read_timeout(secs.count(), usecs.count());
  const PrometheusAuth& auth = metrics_.auth;
  // Files are read per query so a rotated token or password is picked up.
  if (!auth.bearer_token_file.empty()) {
    auto token = read_secret(auth.bearer_token_file, "Prometheus bearer token file");
    if (!token) return make_error(what + ": " + token.message());
    cli.set_bearer_token_auth(*token);
  }
  if (!auth.bearer_token.empty()) cli.set_bearer_token_auth(auth.bearer_token);
  if (!auth.username.empty()) {
    auto password = read_secret(auth.password_file, "Prometheus password file");
    if (!password) return make_error(what + ": " + password.message());
    cli.set_basic_auth(auth.username, *password);
  }
  if (!auth.ca_file.empty()) {
    if (!std::ifstream(auth.ca_file)) return make_error(what + ": Prometheus CA file " + auth.ca_file + ": cannot be read");
    cli.set_ca_cert_path(auth.ca_file.c_str());
  }
  cli.enable_server_certificate_verification(!auth.insecure_skip_verify);
  auto res = cli.Get(path);
  if (!res) {
    std::string why = httplib::to_string(res.error());
    if (res.error() == httplib::Error::SSLServerVerification) why += " (server certificate not trusted; set the CA file)";
    return make_error(what + ": " + why);
  }
  if (res->status == 401 || res->status == 403)
    return make_error(what + ": HTTP " + std::to_string(res->status) +
                      " (Prometheus refused the credentials; check the bearer token or basic auth options)");
  if (res->status != 200 && res->status != 400 && res->status != 422)
    return make_error(what + ": HTTP " + std::to_string(res->status) + ": " + res->body.substr(0, 200));
  auto points = parse_prometheus_vector(res->body, labels);
  if (!points) return make_error(what + ": " + points.message());
  return points;
}

LoadReport PrometheusLoad::fetch(TimePoint now) const {
  std::string name = "prometheus " + address_;
  std::map<std::string, ResourceResults> results;
  const std::vector<std::string> node_label = {metrics_.node_label};
  for (const auto& [res, q] : metrics_.resources) {
    Seconds window = metrics_.window_of(q);
    ResourceResults& into = results[res];
    for (auto [tmpl, out] : {std::pair{&q.query, &into.value}, std::pair{&q.freshness_query, &into.newest}}) {
      auto r = query(expand_query(*tmpl, window, metrics_.node_label), node_label, now);
      if (!r) {
        LoadReport down;
        down.source_name = name;
        down.source_error = r.message();
        return down;
      }
      *out = std::move(*r);
    }
  }
  LoadReport report = join_prometheus(results, name);
  const PodUsageQueries& pu = metrics_.pod_usage;
  if (!pu.enabled) return report;
  Seconds window = pu.window.value_or(metrics_.window);
  const std::vector<std::string> pod_labels = {"namespace", "pod"};
  PromVector parts[4];
  const std::string* templates[4] = {&pu.cpu_query, &pu.memory_query, &pu.cpu_freshness_query, &pu.memory_freshness_query};
  for (int i = 0; i < 4; ++i) {
    auto r = query(expand_query(*templates[i], window, metrics_.node_label), pod_labels, now);
    if (!r) {
      report.pods_error = r.message();
      return report;
    }
    parts[i] = std::move(*r);
  }
  join_pod_usage(parts[0], parts[1], parts[2], parts[3], report);
  return report;
}

}  // namespace weft::descheduler
