// kube-scheduler's scheduler_perf affinity workloads at 5,000 nodes, as bench cases:
// test/integration/scheduler_perf/affinity and topology_spreading performance-config.yaml
// (init and measured pod counts, CI thresholds) with their node and pod templates
// (node-default: 4 cpu, 32Gi, 110 pods; pods of 100m / 500Mi; the zone labels of
// labelNodePrepareStrategy, round robin). Each case carries the rules its placement must
// keep, checked from the API (or from a session's bindings) by check_rules.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/native_gang/cases.h"
#include "bench/native_gang/checks.h"
#include "kube/client/client.h"

namespace weft::bench {

// What a workload's pod templates require, over the pods matching `selector` (empty: every pod).
struct Rule {
  enum class Kind {
    OnePerDomain,   // required anti-affinity: at most one matching pod per value of `key`
    OneDomain,      // required affinity: all matching pods in one value of `key`
    MaxSkew,        // topology spread: counts per value of `key` within max_skew
    NodeLabelIn,    // required node affinity: every matching pod on a node whose `key` is in `values`
  };
  Kind kind = Kind::OnePerDomain;
  std::map<std::string, std::string> selector;
  std::string key;
  int max_skew = 0;
  std::vector<std::string> values;
};

struct AffinityCase {
  Case c;                    // nodes, init pods already bound (running_pods), measured pods
  std::vector<Rule> rules;
  int threshold = 0;         // kube-scheduler's CI threshold for the workload, pods/s
  std::string threshold_of;  // the scheduler_perf workload that threshold belongs to
};

std::vector<std::string> affinity_workloads();
// `divide` > 1 shrinks nodes and pods (a quick look); empty case name when unknown.
AffinityCase affinity_case(const std::string& name, const std::string& scheduler, int divide);

// The Volcano default scheduler configuration weft runs these with (predicates, nodeorder).
std::string volcano_default_config();

// Counts, skew and breaches of every rule over nodes and bound pods: "" when all hold.
std::string rule_breach(const std::vector<Rule>& rules, const std::vector<nlohmann::json>& nodes,
                        const std::vector<nlohmann::json>& pods);
// check_placement (all measured pods bound, no node over allocatable) plus the rules, from the API.
Verdict check_rules(kube::Client& client, const AffinityCase& a);

bool matches(const Rule& r, const nlohmann::json& pod);

}  // namespace weft::bench
