#include "descheduler/app/prometheus_load.h"

#include <cmath>
#include <cstdio>

#include <httplib.h>

#include "kube/client/resource.h"

namespace weft::descheduler {

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

std::string expand_query(const std::string& tmpl, const MetricsArgs& metrics) {
  std::string out;
  for (size_t i = 0; i < tmpl.size();) {
    if (tmpl.compare(i, 8, "{window}") == 0) {
      out += promql_duration(metrics.window);
      i += 8;
    } else if (tmpl.compare(i, 7, "{label}") == 0) {
      out += metrics.node_label;
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

Result<std::map<std::string, PromPoint>> PrometheusLoad::query(const std::string& promql, TimePoint now) const {
  // Split "scheme://host:port/prefix" into the client address and the path prefix.
  std::string base = address_, prefix;
  size_t scheme_end = base.find("://");
  size_t path_start = base.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
  if (path_start != std::string::npos) {
    prefix = base.substr(path_start);
    base = base.substr(0, path_start);
  }
  char at[32];
  std::snprintf(at, sizeof at, "%.3f",
                std::chrono::duration<double>(now.time_since_epoch()).count());
  std::string path = prefix + "/api/v1/query?query=" + kube::url_encode(promql) + "&time=" + at;
  std::string what = "GET " + address_ + "/api/v1/query?query=" + promql;
  httplib::Client cli(base);
  if (!cli.is_valid()) return make_error(what + ": '" + address_ + "' is not an http(s) URL");
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(timeout_);
  auto usecs = std::chrono::duration_cast<std::chrono::microseconds>(timeout_ - secs);
  cli.set_connection_timeout(secs.count(), usecs.count());
  cli.set_read_timeout(secs.count(), usecs.count());
  auto res = cli.Get(path);
  if (!res) return make_error(what + ": " + httplib::to_string(res.error()));
  if (res->status != 200 && res->status != 400 && res->status != 422)
    return make_error(what + ": HTTP " + std::to_string(res->status) + ": " + res->body.substr(0, 200));
  auto points = parse_prometheus_vector(res->body, metrics_.node_label);
  if (!points) return make_error(what + ": " + points.message());
  return points;
}

LoadReport PrometheusLoad::fetch(TimePoint now) const {
  std::string name = "prometheus " + address_;
  PrometheusResults results;
  const std::pair<const std::string*, std::map<std::string, PromPoint>*> queries[] = {
      {&metrics_.cpu_query, &results.cpu},
      {&metrics_.memory_query, &results.memory},
      {&metrics_.freshness_query, &results.cpu_newest},
      {&metrics_.memory_freshness_query, &results.memory_newest}};
  for (const auto& [tmpl, into] : queries) {
    auto r = query(expand_query(*tmpl, metrics_), now);
    if (!r) {
      LoadReport down;
      down.source_name = name;
      down.source_error = r.message();
      return down;
    }
    *into = std::move(*r);
  }
  return join_prometheus(results, name);
}

}  // namespace weft::descheduler
