#include "scheduler/core/plugins/podtopologyspread/pod_topology_spread.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "scheduler/core/framework/spread_rules.h"

namespace weft::scheduler {
namespace {

bool has_constraint(const Snapshot& snap, bool hard) {
  return std::any_of(snap.pods.begin(), snap.pods.end(), [&](const PodInfo& p) {
    if (!p.constraints) return false;
    const auto& spread = p.contract().spread;
    return std::any_of(spread.begin(), spread.end(), [&](const SpreadConstraint& c) { return c.hard == hard; });
  });
}

// One constraint of the pod, counted over the eligible nodes.
struct Counted {
  const SpreadConstraint* constraint;
  int term, key;
  bool self;                        // the pod matches the selector itself
  std::vector<int32_t> per_domain;
  std::vector<char> present;        // domains with an eligible node
  int32_t min = 0;
};

class State {
 public:
  State(Session& ssn, bool hard) : ssn_(ssn), placed_(ssn.cluster.placed()), hard_(hard) {}

  std::string filter(int pod, int node) {
    if (ssn_.snap.pods[pod].contract().spread.empty()) return "";
    const std::vector<Counted>& counted = count(pod);
    for (const auto& c : counted)
      if (placed_.domain(c.key, node) < 0) return kSpreadMissingLabelReason;
    for (const auto& c : counted) {
      int32_t skew = c.per_domain[placed_.domain(c.key, node)] + (c.self ? 1 : 0) - c.min;
      if (skew > c.constraint->max_skew) return kSpreadReason;
    }
    return "";
  }

  void score(int pod, const std::vector<int>& nodes, std::vector<double>& scores, double weight) {
    if (ssn_.snap.pods[pod].contract().spread.empty()) return;
    const std::vector<Counted>& counted = count(pod);
    if (counted.empty()) return;
    std::vector<double> topology_weight;
    for (const auto& c : counted) {
      std::vector<char> seen(placed_.domain_count(c.key), 0);
      int size = 0;
      for (int n : nodes)
        if (int d = placed_.domain(c.key, n); d >= 0 && !seen[d]) seen[d] = 1, ++size;
      topology_weight.push_back(std::log(size + 2.0));
    }
    raw_.assign(nodes.size(), -1);
    double lo = std::numeric_limits<double>::max(), hi = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      double s = 0;
      bool all_keys = true;
      for (size_t k = 0; k < counted.size() && all_keys; ++k) {
        int d = placed_.domain(counted[k].key, nodes[i]);
        if (d < 0) all_keys = false;
        else s += counted[k].per_domain[d] * topology_weight[k] + (counted[k].constraint->max_skew - 1);
      }
      if (!all_keys) continue;   // such nodes score 0
      raw_[i] = s;
      lo = std::min(lo, s), hi = std::max(hi, s);
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (raw_[i] < 0) continue;
      scores[i] += weight * (hi == 0 ? 100.0 : 100.0 * (hi + lo - raw_[i]) / hi);
    }
  }

 private:
  bool eligible(const PodInfo& p, const SpreadConstraint& c, int node) const {
    return spread_counts_node(c, p, ssn_.snap.nodes[node]);
  }

  const std::vector<Counted>& count(int pod) {
    if (pod == pod_ && placed_.version() == version_) return counted_;
    pod_ = pod;
    version_ = placed_.version();
    counted_.clear();
    const PodInfo& p = ssn_.snap.pods[pod];
    const auto& spread = p.contract().spread;
    for (size_t i = 0; i < spread.size(); ++i) {
      const SpreadConstraint& c = spread[i];
      if (c.hard != hard_) continue;
      PodSelection sel = spread_selection(c, p);
      Counted counted{&c, placed_.term({sel}, true, term_identity(p, "spread." + std::to_string(i), c.match_label_keys, {})), placed_.topology_key(c.topology_key), sel.matches(ssn_.snap, p),
                      {}, {}, 0};
      counted_.push_back(std::move(counted));
    }
    if (counted_.empty()) return counted_;
    for (auto& c : counted_) {
      c.per_domain.assign(placed_.domain_count(c.key), 0);
      c.present.assign(placed_.domain_count(c.key), 0);
    }
    const int nodes = ssn_.cluster.node_count();
    for (int n = 0; n < nodes; ++n) {
      bool all_keys = true;
      for (const auto& c : counted_) all_keys = all_keys && placed_.domain(c.key, n) >= 0;
      if (!all_keys) continue;
      for (auto& c : counted_) {
        if (!eligible(p, *c.constraint, n)) continue;
        int d = placed_.domain(c.key, n);
        c.present[d] = 1;
        c.per_domain[d] += placed_.count_on_node(c.term, n);
      }
    }
    for (auto& c : counted_) {
      int domains = 0;
      int32_t min = std::numeric_limits<int32_t>::max();
      for (size_t d = 0; d < c.present.size(); ++d)
        if (c.present[d]) ++domains, min = std::min(min, c.per_domain[d]);
      c.min = domains == 0 || domains < c.constraint->min_domains ? 0 : min;
    }
    return counted_;
  }

  Session& ssn_;
  PlacedPods& placed_;
  bool hard_;
  int pod_ = -1;
  uint64_t version_ = 0;
  std::vector<Counted> counted_;
  std::vector<double> raw_;
};

}  // namespace

void add_pod_topology_spread_filter(Session& ssn, const PluginOption& option) {
  if (!has_constraint(ssn.snap, true)) return;
  auto state = std::make_shared<State>(ssn, true);
  ssn.add_dynamic_predicate(option, [state](int pod, int node) { return state->filter(pod, node); });
}

void add_pod_topology_spread_score(Session& ssn, const PluginOption& option, double weight) {
  if (weight == 0 || !has_constraint(ssn.snap, false)) return;
  auto state = std::make_shared<State>(ssn, false);
  ssn.add_batch_node_order(option, [state, weight](int pod, const std::vector<int>& nodes, std::vector<double>& scores) {
    state->score(pod, nodes, scores, weight);
  });
}

}  // namespace weft::scheduler
