#include "descheduler/core/prometheus_utilization.h"

#include <cctype>

namespace weft::descheduler {
namespace {

bool name_char(char ch, bool first) {
  const unsigned char u = static_cast<unsigned char>(ch);
  return std::isalpha(u) || ch == '_' || ch == ':' || (!first && std::isdigit(u));
}

// upstream's message: "thresholds are expected to specify a single instance of
// "MetricResource" resource, got [...] instead".
Status only_metric_resource(const args::Ctx& c, const std::map<std::string, double>& t, const std::string& path) {
  if (t.size() == 1 && t.count(kMetricResource)) return {};
  std::string got;
  for (const auto& [res, _] : t) got += (got.empty() ? "" : " ") + res;
  return c.at(path, std::string("must name the single resource ") + kMetricResource +
                        " when the source is Prometheus (as upstream), got [" + got + "]");
}

}  // namespace

bool is_series_selector(const std::string& q) {
  size_t i = 0, n = q.size();
  auto skip_space = [&] {
    while (i < n && std::isspace(static_cast<unsigned char>(q[i]))) ++i;
  };
  skip_space();
  const size_t name_start = i;
  while (i < n && name_char(q[i], i == name_start)) ++i;
  const bool named = i > name_start;
  skip_space();
  if (i < n && q[i] == '{') {
    // Matchers: quoted values may hold any character but an unescaped quote.
    ++i;
    char quote = 0;
    for (; i < n; ++i) {
      if (quote) {
        if (q[i] == '\\') ++i;
        else if (q[i] == quote) quote = 0;
      } else if (q[i] == '"' || q[i] == '\'' || q[i] == '`') {
        quote = q[i];
      } else if (q[i] == '}') {
        break;
      } else if (q[i] == '{' || q[i] == '(' || q[i] == '[') {
        return false;
      }
    }
    if (i == n) return false;
    ++i;
  } else if (!named) {
    return false;
  }
  skip_space();
  return i == n;
}

Status parse_prometheus_utilization(const args::Ctx& c, const nlohmann::json& prom, const std::string& path,
                                    LoadAwareArgs& la) {
  auto query = args::get_string(c, args::field(prom, "query"), path + ".query");
  if (!query) return query.error();
  if (query->empty()) return c.at(path + ".query", "is required when the source is Prometheus");
  auto freshness = args::get_string(c, args::field(prom, "freshnessQuery"), path + ".freshnessQuery");
  if (!freshness) return freshness.error();
  if (freshness->empty()) {
    if (!is_series_selector(*query))
      return c.at(path + ".freshnessQuery",
                  "is required when the query is not a plain series selector: weft never acts on stale metrics and "
                  "must know each node's newest sample time (e.g. max by (instance) (timestamp(node_cpu_seconds_total)))");
    *freshness = std::string("max by (") + kInstanceLabel + ") (timestamp(" + *query + "))";
  }
  const std::string args_path = path.substr(0, path.rfind(".metricsUtilization"));
  if (auto s = only_metric_resource(c, la.thresholds, args::join(args_path, "thresholds")); !s) return s;
  if (auto s = only_metric_resource(c, la.target_thresholds, args::join(args_path, "targetThresholds")); !s) return s;
  la.requests_only = false;
  la.metric_resource = true;
  la.metrics.type = MetricsType::Prometheus;
  la.metrics.node_label = kInstanceLabel;
  la.metrics.resources = {{kMetricResource, ResourceQuery{*query, *freshness, std::nullopt, std::nullopt}}};
  la.metrics.pod_usage.enabled = false;
  return {};
}

}  // namespace weft::descheduler
