// scheduler_bench: throughput of the scheduling core beside naive baselines.
//   1. 5,000 nodes, 30,000 single-pod jobs: pods placed per second in one session.
//   2. 6,000 nodes, 9,600 HyperNodes in 3 tiers, 200 hard-topology gangs of 8-64 pods:
//      milliseconds per job.
//   3. 5,000 GPU nodes (192 cpu, 2 TiB, 8 nvidia.com/gpu) in 10 IB fabrics, 500 gangs of
//      8 one-GPU-node pods (weft.dev/ib-cluster: same): ms per gang, gangs in one fabric.
//   4. The `weft-scheduler simulate` process on case 1 written as a scenario file: what
//      a user of simulate waits for, beside the core's own figure.
// Rates are per CPU second of the measuring thread (the machine is shared); wall time is
// shown beside.
// Usage: scheduler_bench [--quick] [--no-simulate]   (--quick: smaller baseline samples)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <random>
#include <string>

#include "bench/scheduler/naive_baseline.h"
#include "scheduler/core/session.h"
#include "scheduler/core/topology.h"

namespace {

using nlohmann::json;
using namespace weft::scheduler;
using Seconds = std::chrono::duration<double>;

json node(const std::string& name, int cpu, const json& labels) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"status", {{"allocatable", {{"cpu", std::to_string(cpu)}, {"memory", std::to_string(cpu * 4) + "Gi"},
                                       {"pods", "110"}}}}}};
}

json podgroup(const std::string& name, int min, const json& spec_extra) {
  json spec = {{"minMember", min}, {"queue", "default"}};
  spec.update(spec_extra);
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata", {{"name", name}, {"namespace", "bench"}}},
          {"spec", spec}};
}

json pod(const std::string& name, const std::string& group, int cpu, const std::string& node_name = "") {
  json requests = {{"cpu", std::to_string(cpu)}, {"memory", std::to_string(cpu) + "Gi"}};
  json container = {{"name", "c"}, {"resources", {{"requests", requests}}}};
  json annotations = {{"scheduling.k8s.io/group-name", group}};
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", "bench"}, {"annotations", annotations}}},
            {"spec", {{"containers", json::array({container})}}}};
  if (!node_name.empty()) p["spec"]["nodeName"] = node_name;
  return p;
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double last_wall = 0;   // wall seconds of the last seconds() call

// CPU seconds of this thread while f runs (wall time in last_wall).
template <class F>
double seconds(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  double c0 = thread_cpu_seconds();
  f();
  last_wall = Seconds(std::chrono::steady_clock::now() - t0).count();
  return thread_cpu_seconds() - c0;
}

void single_pod_jobs(bool quick) {
  const int nodes = 5000, jobs = 30000;
  std::mt19937 rng(7);
  SnapshotBuilder b;
  for (int i = 0; i < nodes; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "node-%05d", i);
    (void)b.add(node(name, 32, json::object()));
  }
  for (int j = 0; j < jobs; ++j) {
    std::string g = "job-" + std::to_string(j);
    (void)b.add(podgroup(g, 1, json::object()));
    (void)b.add(pod(g + "-0", g, 1 + static_cast<int>(rng() % 4)));
  }
  Snapshot snap = b.build();
  Config config = Config::defaults();
  Decisions d;
  double t = seconds([&] { d = run_session(snap, config); });
  std::printf("| %-52s | %10.0f pods/s | %6.3f s cpu, %6.3f s wall | %6zu bound |\n",
              "weft core: one session, 30,000 single-pod jobs", static_cast<double>(d.bindings.size()) / t, t, last_wall,
              d.bindings.size());

  int sample = quick ? 300 : 2000;
  bench::NaiveScheduler naive(snap);
  int placed = 0;
  double tn = seconds([&] {
    for (int p = 0; p < sample; ++p) placed += naive.place_pod(p) >= 0;
  });
  char label[80];
  std::snprintf(label, sizeof label, "naive per-pod predicate scan (first %d pods)", sample);
  std::printf("| %-52s | %10.0f pods/s | %6.3f s cpu, %6.3f s wall | %6d bound |\n", label, placed / tn, tn, last_wall,
              placed);
}

void topology_jobs(bool quick) {
  // 6,000 nodes; tier 1: 6,000 single-node HyperNodes, tier 2: 3,000 pairs, tier 3: 600
  // groups of ten nodes: 9,600 HyperNodes. Half the nodes are partly used already.
  const int nodes = 6000;
  std::mt19937 rng(11);
  SnapshotBuilder b;
  auto hypernode = [](const std::string& name, int tier, const json& members) {
    return json{{"apiVersion", "topology.volcano.sh/v1alpha1"},
                {"kind", "HyperNode"},
                {"metadata", {{"name", name}}},
                {"spec", {{"tier", tier}, {"members", members}}}};
  };
  auto member = [](const char* type, const std::string& name) {
    return json{{"type", type}, {"selector", {{"exactMatch", {{"name", name}}}}}};
  };
  char buf[64];
  for (int i = 0; i < nodes; ++i) {
    std::snprintf(buf, sizeof buf, "node-%05d", i);
    (void)b.add(node(buf, 64, json::object()));
    std::string leaf = "t1-" + std::to_string(i);
    (void)b.add(hypernode(leaf, 1, json::array({member("Node", buf)})));
    if (rng() % 2) {
      std::string g = std::string("busy-") + buf;
      (void)b.add(podgroup(g, 1, json::object()));
      (void)b.add(pod(g + "-0", g, 8 * static_cast<int>(1 + rng() % 6), buf));
    }
  }
  for (int i = 0; i < nodes / 2; ++i)
    (void)b.add(hypernode("t2-" + std::to_string(i), 2,
                          json::array({member("HyperNode", "t1-" + std::to_string(2 * i)),
                                       member("HyperNode", "t1-" + std::to_string(2 * i + 1))})));
  for (int i = 0; i < nodes / 10; ++i) {
    json m = json::array();
    for (int k = 0; k < 5; ++k) m.push_back(member("HyperNode", "t2-" + std::to_string(5 * i + k)));
    (void)b.add(hypernode("t3-" + std::to_string(i), 3, m));
  }
  std::vector<std::vector<std::string>> job_pods;
  for (int j = 0; j < 200; ++j) {
    int size = 8 + static_cast<int>(rng() % 57);
    std::string g = "gang-" + std::to_string(j);
    (void)b.add(podgroup(g, size, {{"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 3}}}}));
    job_pods.emplace_back();
    for (int p = 0; p < size; ++p) {
      (void)b.add(pod(g + "-" + std::to_string(p), g, 8));
      job_pods.back().push_back("bench/" + g + "-" + std::to_string(p));
    }
  }
  Snapshot snap = b.build();
  std::printf("| %-52s | %zu HyperNodes, %zu pods |\n", "topology scenario", snap.hypernodes.size(), snap.pods.size());
  Config config = Config::defaults();
  Decisions d;
  double t = seconds([&] { d = run_session(snap, config); });
  size_t gangs = 0;
  for (const auto& w : d.status_writes)
    if (w.podgroup.rfind("bench/gang-", 0) == 0 && w.status["phase"] == "Running") ++gangs;
  std::printf("| %-52s | %10.2f ms/job  | %6.3f s cpu, %6.3f s wall | %3zu/200 gangs placed |\n",
              "weft core: one session, 200 hard gangs (8-64 pods)", 1000 * t / 200, t, last_wall, gangs);

  Topology topo = build_topology(snap);
  bench::NaiveScheduler naive(snap);
  int sample = quick ? 3 : 20, placed = 0;
  std::map<std::string, int> index;
  for (size_t i = 0; i < snap.pods.size(); ++i) index[snap.pods[i].key] = static_cast<int>(i);
  double tn = seconds([&] {
    for (int j = 0; j < sample; ++j) {
      std::vector<int> pods;
      for (const auto& k : job_pods[j]) pods.push_back(index[k]);
      placed += naive.place_gang(pods, topo, 3);
    }
  });
  char label[80];
  std::snprintf(label, sizeof label, "naive dry-run per HyperNode (first %d gangs)", sample);
  std::printf("| %-52s | %10.2f ms/job  | %6.3f s cpu, %6.3f s wall | %3d/%d gangs placed |\n", label,
              1000 * tn / sample, tn, last_wall, placed, sample);
}

void gpu_gangs() {
  const int nodes = 5000, gangs = 500;
  SnapshotBuilder b;
  char name[32];
  for (int i = 0; i < nodes; ++i) {
    std::snprintf(name, sizeof name, "gpu-%05d", i);
    json n = node(name, 192, {{"weft.dev/ib-fabric", "f" + std::to_string(i % 10)}});
    n["status"]["allocatable"]["memory"] = "2Ti";
    n["status"]["allocatable"]["nvidia.com/gpu"] = "8";
    (void)b.add(n);
  }
  for (int j = 0; j < gangs; ++j) {
    std::string g = "gang-" + std::to_string(j);
    json pg = podgroup(g, 8, json::object());
    pg["metadata"]["annotations"] = {{"weft.dev/ib-cluster", "same"}};
    (void)b.add(pg);
    for (int p = 0; p < 8; ++p) {
      json pd = pod(g + "-" + std::to_string(p), g, 96);
      pd["spec"]["containers"][0]["resources"]["requests"] = {{"cpu", "96"}, {"memory", "1Ti"}, {"nvidia.com/gpu", "8"}};
      (void)b.add(pd);
    }
  }
  Snapshot snap = b.build();
  std::map<std::string, std::string> fabric;
  for (const auto& n : snap.nodes) fabric[n.name] = *n.labels.find("weft.dev/ib-fabric");
  Decisions d;
  double t = seconds([&] { d = run_session(snap, Config::defaults()); });
  std::map<std::string, std::set<std::string>> fabrics_of;   // gang -> fabrics
  for (const auto& bind : d.bindings) fabrics_of[bind.pod.substr(0, bind.pod.rfind('-'))].insert(fabric[bind.node]);
  size_t whole = 0;
  for (const auto& [g, f] : fabrics_of) whole += f.size() == 1;
  std::printf("| %-52s | %10.2f ms/job  | %6.3f s cpu, %6.3f s wall | %zu/%d gangs bound, %zu in one fabric |\n",
              "weft core: 5,000 GPU nodes, 500 ib-cluster gangs of 8", 1000 * t / gangs, t, last_wall,
              fabrics_of.size(), gangs, whole);
}

// The 30,000 single-pod jobs of case 1 as a scenario file, through the simulate process.
void simulate_process() {
  const int nodes = 5000, jobs = 30000;
  std::string path = "/tmp/weft-scheduler-bench-" + std::to_string(getpid()) + ".yaml";
  {
    std::ofstream out(path);
    std::mt19937 rng(7);
    char name[32];
    for (int i = 0; i < nodes; ++i) {
      std::snprintf(name, sizeof name, "node-%05d", i);
      out << "---\n" << node(name, 32, json::object()).dump() << "\n";
    }
    for (int j = 0; j < jobs; ++j) {
      std::string g = "job-" + std::to_string(j);
      out << "---\n" << podgroup(g, 1, json::object()).dump() << "\n";
      out << "---\n" << pod(g + "-0", g, 1 + static_cast<int>(rng() % 4)).dump() << "\n";
    }
  }
  std::string cmd = std::string(WEFT_SCHEDULER_BIN) + " simulate " + path + " > /dev/null";
  rusage before{}, after{};
  getrusage(RUSAGE_CHILDREN, &before);
  auto t0 = std::chrono::steady_clock::now();
  int rc = std::system(cmd.c_str());
  double wall = Seconds(std::chrono::steady_clock::now() - t0).count();
  getrusage(RUSAGE_CHILDREN, &after);
  auto secs = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6; };
  double cpu = secs(after.ru_utime) - secs(before.ru_utime) + secs(after.ru_stime) - secs(before.ru_stime);
  std::remove(path.c_str());
  std::printf("| %-52s | %10.0f pods/s | %6.3f s cpu, %6.3f s wall | exit %d (parse, every cycle, report) |\n",
              "weft-scheduler simulate process, same 30,000 jobs", jobs / cpu, cpu, wall, WEXITSTATUS(rc));
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, with_simulate = true;
  for (int i = 1; i < argc; ++i) {
    quick = quick || std::strcmp(argv[i], "--quick") == 0;
    with_simulate = with_simulate && std::strcmp(argv[i], "--no-simulate") != 0;
  }
  std::printf("| case | figure | time | result |\n|---|---|---|---|\n");
  single_pod_jobs(quick);
  if (with_simulate) simulate_process();
  topology_jobs(quick);
  gpu_gangs();
  return 0;
}
