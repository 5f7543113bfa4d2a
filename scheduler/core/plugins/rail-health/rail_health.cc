// rail-health: a multi-node gang is as fast as its slowest member's network, so a node
// with fewer active IB rails than it should have is scored down for such gangs. Expected
// rails: the node's own weft.dev/ib-rails, and (with `rail-health.peers`) the most any node
// of its rail group (same weft.dev/ib-fabric and weft.dev/ib-leaf) has, which also catches
// an HCA gone from the node altogether. Score: weight x 100 x active / expected; nodes
// without the agent's rail labels score as healthy. When a gang binds, the degraded nodes
// it used or was kept off are reported (Decisions::degraded_rails, an Event on the job).
#include "scheduler/core/plugins/rail-health/rail_health.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>

#include "common/keys.h"
#include "scheduler/core/derived_tiers.h"
#include "scheduler/core/plugins/plugin_makers.h"

namespace weft::scheduler {
namespace {

struct Args {
  double weight = 1;
  int min_member = 2;   // gangs of at least this many pods
  bool peers = true;
};

struct Rails {
  int active = 0, expected = 0;
  bool degraded() const { return active < expected; }
};

std::optional<int> count_label(const NodeInfo& n, const char* key) {
  const std::string v = label_or(n, key);
  int out = -1;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || out < 0) return std::nullopt;
  return out;
}

// Per node: its rails when the agent's labels say (nullopt otherwise).
std::vector<std::optional<Rails>> rails_of(const Snapshot& s, bool peers) {
  std::vector<std::optional<Rails>> out(s.nodes.size());
  std::map<std::pair<std::string, std::string>, int> group_rails;   // (fabric, leaf) -> most rails
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const NodeInfo& n = s.nodes[i];
    auto rails = count_label(n, keys::kRails);
    auto active = count_label(n, keys::kRailsActive);
    if (!rails || !active) continue;
    out[i] = Rails{*active, *rails};
    const std::string leaf = label_or(n, keys::kLeaf);
    if (peers && !leaf.empty()) {
      int& most = group_rails[{label_or(n, keys::kFabric), leaf}];
      most = std::max(most, *rails);
    }
  }
  if (!peers) return out;
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    if (!out[i]) continue;
    auto g = group_rails.find({label_or(s.nodes[i], keys::kFabric), label_or(s.nodes[i], keys::kLeaf)});
    if (g != group_rails.end()) out[i]->expected = std::max(out[i]->expected, g->second);
  }
  return out;
}

std::string node_list(const std::vector<std::pair<std::string, Rails>>& nodes) {
  std::string out;
  size_t shown = 0;
  for (const auto& [name, r] : nodes) {
    if (shown++ == 5) return out + " and " + std::to_string(nodes.size() - 5) + " more";
    out += (out.empty() ? "" : ", ") + name + " (" + std::to_string(r.active) + "/" + std::to_string(r.expected) +
           " rails active)";
  }
  return out;
}

class RailHealth : public OptionPlugin {
 public:
  RailHealth(const PluginOption& o, Args a) : OptionPlugin(o), args_(a) {}

  void open(Session& ssn) override {
    rails_ = rails_of(ssn.snap, args_.peers);
    ssn.add_batch_node_order(opt_, [this, &ssn](int pod, const std::vector<int>& nodes, std::vector<double>& scores) {
      const int job = ssn.job_of_pod[pod];
      if (job < 0 || ssn.jobs[job].min_member < args_.min_member) return;
      for (size_t i = 0; i < nodes.size(); ++i) {
        const auto& r = rails_[nodes[i]];
        const double healthy = !r || r->expected <= 0 ? 1.0 : std::min(1.0, double(r->active) / r->expected);
        scores[i] += args_.weight * 100.0 * healthy;
        if (r && r->degraded()) candidates_[job].insert(nodes[i]);
      }
    });
  }

  // For each gang bound this session: the degraded nodes it used, and those it was offered but kept off.
  void close(Session& ssn) override {
    std::map<int, std::set<int>> used;   // job -> nodes
    for (const auto& b : ssn.out.bindings) {
      auto p = std::lower_bound(ssn.snap.pods.begin(), ssn.snap.pods.end(), b.pod,
                                [](const PodInfo& pod, const std::string& key) { return pod.key < key; });
      if (p == ssn.snap.pods.end() || p->key != b.pod) continue;
      const int job = ssn.job_of_pod[p - ssn.snap.pods.begin()];
      const int node = ssn.node_index(b.node);
      if (job < 0 || node < 0 || !ssn.jobs[job].group || ssn.jobs[job].min_member < args_.min_member) continue;
      used[job];
      if (rails_[node] && rails_[node]->degraded()) used[job].insert(node);
    }
    for (const auto& [job, nodes] : used) report(ssn, job, nodes);
  }

 private:
  void report(Session& ssn, int job, const std::set<int>& used) {
    std::vector<std::pair<std::string, Rails>> went, kept_off;
    for (int n : used) went.emplace_back(ssn.snap.nodes[n].name, *rails_[n]);
    for (int n : candidates_[job])
      if (!used.count(n)) kept_off.emplace_back(ssn.snap.nodes[n].name, *rails_[n]);
    const std::string& key = ssn.jobs[job].key;
    for (const auto& [name, r] : went) ssn.out.degraded_rails.push_back({key, name, true});
    for (const auto& [name, r] : kept_off) ssn.out.degraded_rails.push_back({key, name, false});
    if (!went.empty())
      ssn.out.events.push_back({"PodGroup", key, "Warning", "DegradedRailsUsed",
                                "placed on node(s) with fewer active IB rails than expected: " + node_list(went)});
    else if (!kept_off.empty())
      ssn.out.events.push_back({"PodGroup", key, "Normal", "DegradedRailsAvoided",
                                "kept off node(s) with fewer active IB rails than expected: " + node_list(kept_off)});
  }

  Args args_;
  std::vector<std::optional<Rails>> rails_;
  std::map<int, std::set<int>> candidates_;   // job -> degraded nodes it was scored on
};

Result<std::unique_ptr<Plugin>> make(const PluginOption& option) {
  Args a;
  for (const auto& [k, v] : option.arguments.items()) {
    if (k == "rail-health.peers") {
      auto b = bool_arg(v, k);
      if (!b) return b.error();
      a.peers = *b;
      continue;
    }
    auto n = number_arg(v, k);
    if (!n) return n.error();
    if (k == "rail-health.weight") {
      if (*n < 0) return make_error("argument 'rail-health.weight': " + v.dump() + " is negative");
      a.weight = *n;
    } else if (k == "rail-health.minMember") {
      if (*n < 1 || *n != static_cast<int>(*n))
        return make_error("argument 'rail-health.minMember': " + v.dump() + " is not a whole number >= 1");
      a.min_member = static_cast<int>(*n);
    } else {
      return unknown_argument(k, "rail-health.weight, rail-health.minMember, rail-health.peers");
    }
  }
  return std::unique_ptr<Plugin>(std::make_unique<RailHealth>(option, a));
}

}  // namespace

Result<std::unique_ptr<Plugin>> make_rail_health_plugin(const PluginOption& option, std::vector<std::string>*) {
  return make(option);
}

}  // namespace weft::scheduler
