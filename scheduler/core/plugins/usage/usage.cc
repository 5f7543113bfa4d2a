// usage (load-aware): scores nodes by the idle share of their real load, from the agents'
// weft.dev/load annotation, and filters nodes above thresholds. No herd: a report only
// knows the pods that ran through its window, so every pod bound since (PodScheduled after
// the report's time, or placed earlier in this session) counts as load by its requests,
// and one bound inside the window by the part of the window it missed, until a newer
// report arrives; a burst of placements spreads instead of piling on the node
// that looked idlest. A report older than usage.maxAge (default 5m, docs/contracts.md) or
// that does not decode is no report: the node counts as half loaded.
#include "scheduler/core/plugins/usage/usage.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "kube/load_annotation.h"

#include "scheduler/core/plugins/plugin_makers.h"

namespace weft::scheduler {
namespace {

struct Args {
  double weight = 1, cpu_weight = 1, memory_weight = 1;
  std::optional<double> cpu_threshold, memory_threshold;   // percent
  kube::Duration max_age = kube::kDefaultLoadMaxAge;   // usage.maxAge
};

// The share of a bound pod's requests its node's report has not measured: 1 when bound
// after the report, the part of the averaging window before its binding when bound inside
// it (a 60 s average barely shows a pod bound 0.3 s before it), 0 when bound earlier.
double unseen_share(const PodInfo& pod, const NodeLoad& load) {
  if (!pod.scheduled_at) return pod.phase == "Pending" ? 1 : 0;
  if (*pod.scheduled_at > *load.at) return 1;
  if (load.window_s <= 0) return 0;
  const double ran = std::chrono::duration<double>(*load.at - *pod.scheduled_at).count();
  return std::clamp(1 - ran / load.window_s, 0.0, 1.0);
}

class Usage : public OptionPlugin {
 public:
  Usage(const PluginOption& o, Args a) : OptionPlugin(o), args_(std::move(a)) {}

  void open(Session& ssn) override {
    const ClusterState& c = ssn.cluster;
    cpu_ = c.dim_of("cpu");
    mem_ = c.dim_of("memory");
    const int nodes = c.node_count();
    base_cpu_.assign(nodes, 0.5);
    base_mem_.assign(nodes, 0.5);
    free_cpu0_.resize(nodes);
    free_mem0_.resize(nodes);
    std::vector<char> fresh(nodes, 0);
    for (int n = 0; n < nodes; ++n) {
      free_cpu0_[n] = c.free(n, cpu_);
      free_mem0_[n] = c.free(n, mem_);
      const NodeInfo& node = ssn.snap.nodes[n];
      if (!load_fresh(ssn, node)) continue;
      fresh[n] = 1;
      base_cpu_[n] = node.load->cpu;
      base_mem_[n] = node.load->memory;
    }
    // Pods the report has not (fully) seen: bound after it, or bound with no known time
    // while it exists, count by their requests; a pod bound inside the report's averaging
    // window counts for the part of the window it missed.
    for (size_t p = 0; p < ssn.snap.pods.size(); ++p) {
      const PodInfo& pod = ssn.snap.pods[p];
      int n = ssn.node_of_pod[p];
      if (n < 0 || !fresh[n]) continue;
      const double unseen = unseen_share(pod, *ssn.snap.nodes[n].load);
      if (unseen <= 0) continue;
      base_cpu_[n] += unseen * fraction(c, static_cast<int>(p), n, cpu_);
      base_mem_[n] += unseen * fraction(c, static_cast<int>(p), n, mem_);
    }
    if (args_.cpu_threshold || args_.memory_threshold)
      ssn.add_predicate(opt_, [this, fresh](int, int node) -> std::string {
        if (!fresh[node]) return "";
        if ((args_.cpu_threshold && base_cpu_[node] * 100 > *args_.cpu_threshold) ||
            (args_.memory_threshold && base_mem_[node] * 100 > *args_.memory_threshold))
          return "node(s) had load above the usage thresholds";
        return "";
      });
    ssn.add_batch_node_order(opt_, [this, &ssn](int, const std::vector<int>& nodes, std::vector<double>& scores) {
      const ClusterState& c = ssn.cluster;
      const double cw = args_.cpu_weight, mw = args_.memory_weight;
      if (cw + mw <= 0) return;
      for (size_t i = 0; i < nodes.size(); ++i) {
        int n = nodes[i];
        double cpu = base_cpu_[n] + placed_fraction(c, n, cpu_, free_cpu0_[n]);
        double mem = base_mem_[n] + placed_fraction(c, n, mem_, free_mem0_[n]);
        double idle = ((1 - cpu) * cw + (1 - mem) * mw) / (cw + mw);
        scores[i] += args_.weight * 100.0 * std::clamp(idle, 0.0, 1.0);
      }
    });
  }

 private:
  bool load_fresh(const Session& ssn, const NodeInfo& n) const {
    if (!n.load || !n.load->at) return false;
    kube::LoadAnnotation reading;
    reading.cpu_at = reading.memory_at = *n.load->at;
    return kube::check_load_fresh(reading, ssn.snap.now, args_.max_age).ok();
  }

  static double fraction(const ClusterState& c, int pod, int node, int dim) {
    double a = static_cast<double>(c.allocatable(node, dim));
    return a > 0 ? static_cast<double>(c.request(pod)[dim]) / a : 0;
  }

  // What this session has placed on the node so far, as a share of it.
  static double placed_fraction(const ClusterState& c, int node, int dim, int64_t free_at_open) {
    double a = static_cast<double>(c.allocatable(node, dim));
    double placed = static_cast<double>(free_at_open - c.free(node, dim));
    return a > 0 && placed > 0 ? placed / a : 0;
  }

  Args args_;
  int cpu_ = -1, mem_ = -1;
  std::vector<double> base_cpu_, base_mem_;
  std::vector<int64_t> free_cpu0_, free_mem0_;
};

Result<std::unique_ptr<Plugin>> make(const PluginOption& option, std::vector<std::string>*) {
  Args a;
  for (const auto& [k, v] : option.arguments.items()) {
    if (k == "thresholds") {
      if (!v.is_object()) return make_error("argument 'thresholds': not a map {cpu, mem}");
      for (const auto& [tk, tv] : v.items()) {
        auto n = number_arg(tv, "thresholds." + tk);
        if (!n) return n.error();
        if (tk == "cpu") a.cpu_threshold = *n;
        else if (tk == "mem" || tk == "memory") a.memory_threshold = *n;
        else return unknown_argument("thresholds." + tk, "cpu, mem");
      }
      continue;
    }
    if (k == "usage.maxAge") {   // a Go duration ("90s", "2m"), or a number of seconds
      auto d = v.is_number() ? kube::duration_from_seconds(v.get<double>())
               : v.is_string() ? kube::parse_duration_at_least(v.get<std::string>(), kube::Duration::zero())
                               : Result<kube::Duration>(make_error("not a duration"));
      if (!d) return make_error("argument 'usage.maxAge': " + d.message());
      a.max_age = *d;
      continue;
    }
    auto n = number_arg(v, k);
    if (!n) return n.error();
    if (k == "usage.weight") a.weight = *n;
    else if (k == "cpu.weight") a.cpu_weight = *n;
    else if (k == "memory.weight") a.memory_weight = *n;
    else return unknown_argument(k, "usage.weight, cpu.weight, memory.weight, thresholds, usage.maxAge");
  }
  return std::unique_ptr<Plugin>(std::make_unique<Usage>(option, std::move(a)));
}

}  // namespace

Result<std::unique_ptr<Plugin>> make_usage_plugin(const PluginOption& option, std::vector<std::string>* warnings) {
  return make(option, warnings);
}

}  // namespace weft::scheduler
