// One descheduling cycle at 5,000 nodes and 100,000 pods. Prints, in one run:
//  - plan (in process): scenario decode, make_plan, peak RSS of a forked child;
//  - `weft-descheduler plan` (the binary): wall time and peak RSS;
//  - `weft-descheduler run --once --dry-run` against kube-lite holding the same cluster:
//    wall time, peak RSS and API requests (one list per kind);
//  - the naive baseline: listing pods node by node (a request per node), as a
//    descheduler without a cluster-wide list does.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <regex>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "descheduler/app/cluster_source.h"
#include "descheduler/core/planner.h"
#include "descheduler/core/policy.h"
#include "kube/client/client.h"
#include "kube/client/config.h"
#include "tests/support/process.h"

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace wd = weft::descheduler;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

json node(int i) {
  std::string name = "node-" + std::to_string(i);
  char leaf[32], spine[32];
  std::snprintf(leaf, sizeof leaf, "0x%016x", 0x1000 + i / 20);
  std::snprintf(spine, sizeof spine, "0x%016x", 0x100 + i / 400);
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"labels",
             {{"kubernetes.io/hostname", name}, {"weft.dev/rdma", "ib"}, {"weft.dev/ib-fabric", "fab-" + std::to_string(i / 1000)},
              {"weft.dev/ib-leaf", leaf}, {"weft.dev/ib-spine", spine}}}}},
          {"status",
           {{"allocatable", {{"cpu", "64"}, {"memory", "256Gi"}, {"pods", "110"}}},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json pod(int i, int node_index, std::mt19937& rng) {
  std::string ns = i % 50 == 0 ? "kube-system" : "team-" + std::to_string(i % 7);
  bool daemon = i % 20 == 0;
  std::string owner = daemon ? "agent" : "rs-" + std::to_string(i % 5000);
  int cpu_m = 250 + static_cast<int>(rng() % 8) * 250;
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata",
             {{"name", "pod-" + std::to_string(i)},
              {"namespace", ns},
              {"labels", {{"app", owner}}},
              {"ownerReferences", json::array({{{"apiVersion", "apps/v1"}, {"kind", daemon ? "DaemonSet" : "ReplicaSet"},
                                                {"name", owner}, {"uid", "u-" + owner}, {"controller", true}}})}}},
            {"spec",
             {{"nodeName", "node-" + std::to_string(node_index)},
              {"priority", i % 13 == 0 ? 100000 : 0},
              {"containers", json::array({{{"name", "c"}, {"image", "app"},
                                           {"resources", {{"requests", {{"cpu", std::to_string(cpu_m) + "m"},
                                                                        {"memory", std::to_string(cpu_m * 4) + "Mi"}}}}}}})}}},
            {"status", {{"phase", "Running"}}}};
  return p;
}

void generate(const std::string& dir, int nodes, int pods) {
  std::mt19937 rng(42);
  {
    std::ofstream out(dir + "/scenario.json");
    out << "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
    for (int i = 0; i < nodes; ++i) out << (i ? "," : "") << node(i).dump();
    for (int i = 0; i < pods; ++i) out << "," << pod(i, i % nodes, rng).dump();
    out << "]}";
  }
  std::ofstream out(dir + "/load.json");
  out << "{\"nodes\":[";
  std::string now = wd::format_rfc3339(std::chrono::system_clock::now());
  bool first = true;
  for (int i = 0; i < nodes; ++i) {
    if (i % 100 == 99) continue;   // 1 % of nodes report nothing: unknown
    double cpu = i % 20 == 0 ? 0.92 : i % 5 == 1 ? 0.12 : 0.5;
    double mem = i % 20 == 0 ? 0.6 : i % 5 == 1 ? 0.15 : 0.5;
    out << (first ? "" : ",") << json{{"name", "node-" + std::to_string(i)}, {"cpu", cpu}, {"memory", mem}, {"at", now}}.dump();
    first = false;
  }
  out << "]}";
}

const char* kPolicy = R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: p
  pluginConfig:
  - name: DefaultEvictor
    args: {priorityThreshold: {value: 10000}, nodeFit: true, ignorePvcPods: true}
  - name: LoadAware
    args:
      thresholds: {cpu: 30, memory: 30}
      targetThresholds: {cpu: 80, memory: 85}
  plugins:
    balance:
      enabled: [LoadAware]
)";

struct ChildResult {
  int status = -1;
  double seconds = 0;
  long max_rss_kib = 0;
  std::string output;
};

// fork/exec with output to a file; wall time and the child's own peak RSS (wait4).
ChildResult run_child(const std::vector<std::string>& argv, const std::string& out_file) {
  auto start = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    FILE* f = std::fopen(out_file.c_str(), "w");
    dup2(fileno(f), 1);
    dup2(fileno(f), 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  ChildResult r;
  struct rusage ru {};
  wait4(pid, &r.status, 0, &ru);
  r.seconds = since(start);
  r.max_rss_kib = ru.ru_maxrss;
  r.output = weft::testing::read_file(out_file);
  return r;
}

// In a forked child: decode + plan, report through a pipe; peak RSS of that child alone.
void plan_in_process(const std::string& dir) {
  int fds[2];
  if (pipe(fds) != 0) return;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    auto t0 = Clock::now();
    auto cluster = wd::cluster_from_file(dir + "/scenario.json");
    double decode = since(t0);
    auto load = wd::parse_load_file(weft::testing::read_file(dir + "/load.json"), "load.json");
    auto policy = wd::parse_policy_text(kPolicy, "policy");
    if (!cluster || !load || !policy) _exit(2);
    auto t1 = Clock::now();
    auto plan = wd::make_plan(*cluster, *load, *policy, {}, wd::PlanOptions{std::chrono::system_clock::now()});
    double planning = since(t1);
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    char buf[256];
    int n = std::snprintf(buf, sizeof buf, "%.3f %.3f %ld %zu %zu\n", decode, planning, ru.ru_maxrss,
                          plan ? plan->evictions.size() : 0, plan ? plan->skipped.size() : 0);
    if (write(fds[1], buf, static_cast<size_t>(n)) < 0) _exit(3);
    _exit(0);
  }
  close(fds[1]);
  char buf[256] = {};
  ssize_t got = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  double decode = 0, planning = 0;
  long rss = 0;
  size_t ev = 0, sk = 0;
  if (got <= 0 || std::sscanf(buf, "%lf %lf %ld %zu %zu", &decode, &planning, &rss, &ev, &sk) != 5) {
    std::printf("plan in process: failed\n");
    return;
  }
  std::printf("%-44s decode %.3f s, make_plan %.3f s, peak RSS %.0f MiB (%zu evictions, %zu skipped)\n",
              "core (in process):", decode, planning, rss / 1024.0, ev, sk);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft-descheduler cycle benchmark"};
  int nodes = 5000, pods = 100000;
  std::string dir;
  bool skip_api = false;
  app.add_option("--nodes", nodes);
  app.add_option("--pods", pods);
  app.add_option("--dir", dir, "where to write the scenario (default: a temp dir)");
  app.add_flag("--skip-api", skip_api, "only the offline plan");
  CLI11_PARSE(app, argc, argv);
  std::unique_ptr<weft::testing::TempDir> tmp;
  if (dir.empty()) {
    tmp = std::make_unique<weft::testing::TempDir>("descheduler-bench");
    dir = tmp->path();
  }
  auto t = Clock::now();
  generate(dir, nodes, pods);
  weft::testing::write_file(dir + "/policy.yaml", kPolicy);
  std::printf("generated %d nodes, %d pods in %.1f s (%s)\n", nodes, pods, since(t), dir.c_str());

  plan_in_process(dir);
  std::string bin = WEFT_DESCHEDULER_BINARY;
  auto plan = run_child({bin, "plan", dir + "/scenario.json", "--policy", dir + "/policy.yaml", "--load",
                         "file=" + dir + "/load.json"},
                        dir + "/plan.out");
  std::printf("%-44s %.3f s, peak RSS %.0f MiB (exit %d)\n", "weft-descheduler plan (whole process):", plan.seconds,
              plan.max_rss_kib / 1024.0, WEXITSTATUS(plan.status));
  if (skip_api) return 0;

  weft::testing::Process api({.argv = {WEFT_KUBE_LITE_BINARY, "--listen", "127.0.0.1:0", "--state", dir + "/scenario.json",
                                       "--kubeconfig-out", dir + "/kubeconfig"},
                              .keep_stdin_open = false});
  auto line = api.wait_for_line(std::regex("listening on http://"), std::chrono::minutes(5));
  if (!line) {
    std::printf("kube-lite did not start: %s\n", api.output().c_str());
    return 1;
  }
  auto run = run_child({bin, "run", "--policy", dir + "/policy.yaml", "--kubeconfig", dir + "/kubeconfig", "--once",
                        "--dry-run", "--load", "file=" + dir + "/load.json", "--state-configmap", "default/bench-state"},
                       dir + "/run.out");
  std::smatch m;
  std::string requests = "?";
  if (std::regex_search(run.output, m, std::regex("([0-9]+) API requests"))) requests = m[1];
  std::printf("%-44s %.3f s, peak RSS %.0f MiB, %s API requests (exit %d)\n",
              "weft-descheduler run --once --dry-run:", run.seconds, run.max_rss_kib / 1024.0, requests.c_str(),
              WEXITSTATUS(run.status));
  if (WEXITSTATUS(run.status) != 0) std::printf("%s\n", run.output.substr(0, 2000).c_str());

  // Naive baseline: the node list, then each node's pods by field selector.
  auto config = weft::kube::load_kubeconfig(dir + "/kubeconfig");
  if (!config) return 1;
  weft::kube::ClientOptions opts;
  opts.qps = 0;
  auto client = weft::kube::Client::from_config(*config, opts);
  if (!client) return 1;
  // kube-lite filters every pod per request, so time a sample of nodes and extrapolate.
  auto t2 = Clock::now();
  auto node_list = (*client)->list(weft::kube::resources::nodes(), "");
  size_t pod_count = 0, sampled = 0;
  double list_nodes = since(t2);
  auto t3 = Clock::now();
  if (node_list) {
    for (const auto& n : node_list->items) {
      if (sampled == 250) break;
      weft::kube::ListOptions o;
      o.field_selector = "spec.nodeName=" + n["metadata"]["name"].get<std::string>();
      (void)(*client)->list_each(weft::kube::resources::pods(), "", o, [&](json&&) { ++pod_count; });
      ++sampled;
    }
  }
  size_t total_nodes = node_list ? node_list->items.size() : 0;
  double per_node = sampled ? since(t3) / static_cast<double>(sampled) : 0;
  std::printf("%-44s %.1f s (extrapolated from %zu nodes, %zu pods), %zu API requests\n",
              "naive baseline (pods listed per node):", list_nodes + per_node * static_cast<double>(total_nodes), sampled,
              pod_count, total_nodes + 1);
  api.stop();
  return 0;
}
