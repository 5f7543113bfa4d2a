// affinity_bench: kube-scheduler's scheduler_perf affinity workloads at 5,000 nodes
// through weft's scheduling core, beside a naive baseline in the same run.
//
// Each workload as scheduler_perf's affinity/performance-config.yaml shapes it: its
// init pods are placed by a first session and bound, then the measured pods are placed
// by one session (Volcano's default config: plain predicates and nodeorder). Nodes are
// scheduler_perf's node-default (4 cpu, 32Gi, 110 pods; zone1 labels where the workload
// labels them), pods request 100m / 500Mi. Each result is checked (anti-affine pods one
// per node, affine and node-affine pods in zone1, spread within maxSkew) and shown beside
// kube-scheduler's CI threshold (pods/s) for the same workload.
//
// The naive baseline checks each (pod, node) pair by scanning every placed pod, as a
// filter without an index does; it is timed on a sample of pods.
// SchedulingBasic (pods with none of these fields) is the control: it must not get slower.
// Usage: affinity_bench [--quick]   (--quick: 500 nodes, a tenth of the pods)
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "scheduler/core/config.h"
#include "scheduler/core/session.h"

namespace {

using nlohmann::json;
using namespace weft::scheduler;

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

Config volcano_default() {
  auto c = parse_config(
      "actions: \"enqueue, allocate, backfill\"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n"
      "  - name: conformance\n- plugins:\n  - name: overcommit\n  - name: drf\n  - name: predicates\n"
      "  - name: proportion\n  - name: nodeorder\n",
      "bench.conf");
  return *c;
}

enum class Kind { Plain, AntiAffinity, Affinity, PreferredAffinity, PreferredAntiAffinity, NodeAffinity, Spread, Mixed };

struct Workload {
  const char* name;
  Kind kind;
  int init_pods, measure_pods;
  double threshold;   // kube-scheduler's CI threshold, pods/s
  bool zone_labels;   // nodes labelled topology.kubernetes.io/zone (zone1, or 10 zones for spread)
};

json node(int i, const Workload& w) {
  char name[32];
  std::snprintf(name, sizeof name, "node-%05d", i);
  json labels = {{"kubernetes.io/hostname", name}};
  if (w.kind == Kind::Spread) labels["topology.kubernetes.io/zone"] = "zone" + std::to_string(i % 10);
  else if (w.zone_labels) labels["topology.kubernetes.io/zone"] = "zone1";
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"status", {{"allocatable", {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}}}}}};
}

json term(const json& selector, const char* key) {
  return {{"labelSelector", {{"matchLabels", selector}}}, {"topologyKey", key}, {"namespaces", {"sched-0", "sched-1"}}};
}

// The pod templates of scheduler_perf (templates/pod-with-*.yaml), by kind.
json pod_spec(Kind kind, json& labels) {
  json spec = json::object();
  switch (kind) {
    case Kind::AntiAffinity:
      labels = {{"name", "test"}, {"color", "green"}};
      spec["affinity"] = {{"podAntiAffinity",
                           {{"requiredDuringSchedulingIgnoredDuringExecution",
                             {term({{"color", "green"}}, "kubernetes.io/hostname")}}}}};
      break;
    case Kind::Affinity:
      labels = {{"foo", ""}};
      spec["affinity"] = {{"podAffinity",
                           {{"requiredDuringSchedulingIgnoredDuringExecution",
                             {term({{"foo", ""}}, "topology.kubernetes.io/zone")}}}}};
      break;
    case Kind::PreferredAffinity:
    case Kind::PreferredAntiAffinity: {
      labels = {{"foo", ""}};
      json weighted = {{"weight", 1}, {"podAffinityTerm", term({{"foo", ""}}, "kubernetes.io/hostname")}};
      spec["affinity"] = {{kind == Kind::PreferredAffinity ? "podAffinity" : "podAntiAffinity",
                           {{"preferredDuringSchedulingIgnoredDuringExecution", {weighted}}}}};
      break;
    }
    case Kind::NodeAffinity:
      spec["affinity"] = {
          {"nodeAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution",
             {{"nodeSelectorTerms",
               {{{"matchExpressions",
                  {{{"key", "topology.kubernetes.io/zone"}, {"operator", "In"}, {"values", {"zone1"}}}}}}}}}}}}};
      break;
    case Kind::Spread:
      labels = {{"foo", ""}};
      spec["topologySpreadConstraints"] = {{{"maxSkew", 5},
                                            {"topologyKey", "topology.kubernetes.io/zone"},
                                            {"whenUnsatisfiable", "DoNotSchedule"},
                                            {"labelSelector", {{"matchLabels", {{"foo", ""}}}}}}};
      break;
    case Kind::Plain:
    case Kind::Mixed:
      break;
  }
  spec["containers"] = {{{"name", "pause"}, {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "500Mi"}}}}}}};
  return spec;
}

json pod(const std::string& ns, const std::string& name, Kind kind, const std::string& node_name = "") {
  json labels = json::object();
  json spec = pod_spec(kind, labels);
  if (!node_name.empty()) spec["nodeName"] = node_name;
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
            {"spec", spec}};
  if (!node_name.empty()) p["status"] = {{"phase", "Running"}};
  return p;
}

// The init pods through one session; returns them bound.
std::vector<json> place_init(const std::vector<json>& nodes, std::vector<json> init, const Config& config) {
  SnapshotBuilder b;
  for (const auto& n : nodes) (void)b.add(n);
  for (const auto& p : init) (void)b.add(p);
  Decisions d = run_session(b.build(), config);
  std::map<std::string, std::string> at;
  for (const auto& bnd : d.bindings) at[bnd.pod] = bnd.node;
  std::vector<json> out;
  for (auto& p : init) {
    std::string key = p["metadata"]["namespace"].get<std::string>() + "/" + p["metadata"]["name"].get<std::string>();
    if (auto it = at.find(key); it != at.end()) {
      p["spec"]["nodeName"] = it->second;
      p["status"] = {{"phase", "Running"}};
      out.push_back(std::move(p));
    }
  }
  return out;
}

// What the workload promises of the measured placements.
std::string check(const Workload& w, const std::vector<json>& nodes, const std::vector<json>& bound,
                  const Decisions& d) {
  std::map<std::string, std::string> zone;
  for (const auto& n : nodes)
    zone[n["metadata"]["name"]] = n["metadata"]["labels"].value("topology.kubernetes.io/zone", "");
  std::map<std::string, int> per_node, per_zone;
  for (const auto& p : bound) ++per_node[p["spec"]["nodeName"].get<std::string>()];
  for (const auto& b : d.bindings) ++per_node[b.node];
  if (w.kind == Kind::AntiAffinity)
    for (const auto& [n, c] : per_node)
      if (c > 1) return "FAIL: " + std::to_string(c) + " anti-affine pods on " + n;
  if (w.kind == Kind::Affinity || w.kind == Kind::NodeAffinity)
    for (const auto& b : d.bindings)
      if (zone[b.node] != "zone1") return "FAIL: " + b.pod + " outside zone1";
  if (w.kind == Kind::Spread) {
    for (const auto& [n, c] : per_node) per_zone[zone[n]] += c;
    int lo = 1 << 30, hi = 0;
    for (int z = 0; z < 10; ++z) {
      int c = per_zone["zone" + std::to_string(z)];
      lo = std::min(lo, c), hi = std::max(hi, c);
    }
    if (hi - lo > 5) return "FAIL: skew " + std::to_string(hi - lo);
    return "ok (skew " + std::to_string(hi - lo) + ")";
  }
  return "ok";
}

// The naive filter: for each node, every placed pod is looked at.
double naive_rate(const Workload& w, const std::vector<json>& nodes, const std::vector<json>& bound, int sample) {
  std::vector<std::pair<std::string, std::string>> placed;   // (node, zone) of pods that match the selector
  std::map<std::string, std::string> zone;
  for (const auto& n : nodes)
    zone[n["metadata"]["name"]] = n["metadata"]["labels"].value("topology.kubernetes.io/zone", "");
  for (const auto& p : bound) placed.push_back({p["spec"]["nodeName"], zone[p["spec"]["nodeName"]]});
  double t0 = thread_cpu_seconds();
  int done = 0;
  for (int i = 0; i < sample; ++i) {
    int chosen = -1;
    for (size_t n = 0; n < nodes.size() && chosen < 0; ++n) {
      const std::string& name = nodes[n]["metadata"]["name"].get_ref<const std::string&>();
      int matching = 0;
      for (const auto& [pn, pz] : placed)
        matching += w.kind == Kind::AntiAffinity ? pn == name : pz == zone[name];
      bool ok = w.kind == Kind::AntiAffinity ? matching == 0 : matching > 0 || placed.empty();
      if (ok) chosen = static_cast<int>(n);
    }
    if (chosen >= 0) {
      const std::string& name = nodes[chosen]["metadata"]["name"].get_ref<const std::string&>();
      placed.push_back({name, zone[name]});
      ++done;
    }
  }
  return done / std::max(1e-9, thread_cpu_seconds() - t0);
}

void run(const Workload& w, int scale_nodes, int divide, const Config& config) {
  std::vector<json> nodes;
  for (int i = 0; i < scale_nodes; ++i) nodes.push_back(node(i, w));
  std::vector<json> init;
  const int init_pods = w.init_pods / divide, measure_pods = w.measure_pods / divide;
  if (w.kind == Kind::Mixed) {
    for (Kind k : {Kind::Plain, Kind::Affinity, Kind::AntiAffinity, Kind::PreferredAffinity, Kind::PreferredAntiAffinity})
      for (int i = 0; i < init_pods; ++i)
        init.push_back(pod("sched-0", "init-" + std::to_string(static_cast<int>(k)) + "-" + std::to_string(i), k));
  } else {
    for (int i = 0; i < init_pods; ++i) init.push_back(pod("sched-0", "init-" + std::to_string(i), w.kind));
  }
  std::vector<json> bound = place_init(nodes, std::move(init), config);
  SnapshotBuilder b;
  for (const auto& n : nodes) (void)b.add(n);
  for (const auto& p : bound) (void)b.add(p);
  for (int i = 0; i < measure_pods; ++i) (void)b.add(pod("sched-1", "m-" + std::to_string(i), w.kind));
  Snapshot snap = b.build();
  auto t0 = std::chrono::steady_clock::now();
  double c0 = thread_cpu_seconds();
  Decisions d = run_session(snap, config);
  double cpu = thread_cpu_seconds() - c0;
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double rate = static_cast<double>(d.bindings.size()) / cpu;
  std::string naive = "-";
  if (w.kind == Kind::AntiAffinity || w.kind == Kind::Affinity) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", naive_rate(w, nodes, bound, std::min(100, measure_pods)));
    naive = buf;
  }
  std::string threshold = w.threshold > 0 ? std::to_string(static_cast<int>(w.threshold)) : "-";
  std::printf("| %-30s | %5zu+%-5d | %6zu | %9.0f | %6.3f s / %6.3f s | %6s | %8s | %s |\n", w.name, bound.size(),
              measure_pods, d.bindings.size(), rate, cpu, wall, threshold.c_str(), naive.c_str(),
              check(w, nodes, bound, d).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int nodes = quick ? 500 : 5000, divide = quick ? 10 : 1;
  // scheduler_perf's 5000-node performance workloads: init pods, measured pods, CI threshold.
  const Workload workloads[] = {
      {"SchedulingBasic (no pod fields)", Kind::Plain, 5000, 10000, 270, false},
      {"SchedulingPodAntiAffinity", Kind::AntiAffinity, 1000, 2000, 60, false},
      {"SchedulingPodAffinity", Kind::Affinity, 5000, 5000, 35, true},
      {"SchedulingPreferredPodAffinity", Kind::PreferredAffinity, 5000, 5000, 90, false},
      {"SchedulingPreferredPodAntiAffinity", Kind::PreferredAntiAffinity, 5000, 5000, 90, false},
      {"SchedulingNodeAffinity", Kind::NodeAffinity, 5000, 10000, 220, true},
      {"TopologySpreading (maxSkew 5)", Kind::Spread, 5000, 5000, 0, true},
      {"MixedSchedulingBasePod", Kind::Mixed, 2000, 5000, 140, true},
  };
  Config config = volcano_default();
  std::printf("%d nodes; weft core, one session for the measured pods; rates per CPU second of this thread\n\n", nodes);
  std::printf("| %-30s | %-11s | %-6s | %-9s | %-19s | %-6s | %-8s | %s |\n", "workload", "init+meas.", "bound",
              "pods/s", "cpu / wall", "k-s CI", "naive/s", "check");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const auto& w : workloads) run(w, nodes, divide, config);
  return 0;
}
