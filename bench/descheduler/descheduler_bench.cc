// One descheduling cycle at 5,000 nodes and 100,000 pods. Prints, in one run:
//  - plan (in process): scenario decode, load file decode (nodes and 100,000 per-pod
//    usage entries), make_plan, peak RSS of a forked child; beside it the same plan with
//    the nodes' load alone (victims sized by requests) and the naive decode (the whole
//    file as one JSON tree);
//  - `weft-descheduler plan` (the binary): wall time and peak RSS, with the seed policy
//    (LoadAware) and with a profile enabling every plugin;
//  - `weft-descheduler run --once --dry-run` against kube-lite holding the same cluster,
//    and again at a tenth of the size and with every plugin: wall and CPU time, peak RSS,
//    API requests and lists as kube-lite logged them (one list per kind, pods in pages of
//    5,000), the cycle's own split (list, load, plan), kube-lite's CPU during the run, the
//    decisions; then kube-lite alone serving the run's pod pages (one at a time, not
//    decoded); with --baseline-descheduler (and --baseline-kube-lite) another build runs
//    beside this one, in turn, --rounds times each, both in this one run;
//  - the naive baseline: listing pods node by node (a request per node), as a
//    descheduler without a cluster-wide list does.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "descheduler/app/cluster_source.h"
#include "descheduler/core/planner.h"
#include "descheduler/core/profiles.h"
#include "descheduler/core/policy.h"
#include "kube/client/client.h"
#include "kube/scenario.h"
#include "tests/support/kube_lite.h"
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
  json n = {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"labels",
             {{"kubernetes.io/hostname", name}, {"weft.dev/rdma", "ib"}, {"weft.dev/ib-fabric", "fab-" + std::to_string(i / 1000)},
              {"weft.dev/ib-leaf", leaf}, {"weft.dev/ib-spine", spine}}}}},
          {"status",
           {{"allocatable", {{"cpu", "64"}, {"memory", "256Gi"}, {"pods", "110"}}},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
  // One node in 500 is tainted: RemovePodsViolatingNodeTaints has work, nodeFit a refusal.
  if (i % 500 == 7)
    n["spec"]["taints"] = json::array({{{"key", "maintenance"}, {"value", "true"}, {"effect", "NoSchedule"}}});
  return n;
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
  // Ages of 0-2 days and, one pod in 997, a container restarting 150 times: the strategy
  // plugins read the status of every pod.
  p["status"]["startTime"] = wd::format_rfc3339(std::chrono::system_clock::now() - std::chrono::hours(24 * (i % 3)));
  p["status"]["containerStatuses"] =
      json::array({{{"name", "c"}, {"ready", true}, {"restartCount", i % 997 == 0 ? 150 : 0}}});
  return p;
}

// scenario.json, load.json (nodes and a usage entry per pod: 5 % to 150 % of its request,
// so usage and requests disagree) and load-nodes.json (the nodes alone: victims sized by
// requests, the baseline).
void generate(const std::string& dir, int nodes, int pods) {
  std::mt19937 rng(42);
  std::vector<json> usage;
  usage.reserve(static_cast<size_t>(pods));
  std::string now = wd::format_rfc3339(std::chrono::system_clock::now());
  {
    std::ofstream out(dir + "/scenario.json");
    out << "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
    for (int i = 0; i < nodes; ++i) out << (i ? "," : "") << node(i).dump();
    // Consecutive pods share a node, so each node holds a mix (one DaemonSet pod in 20,
    // kube-system and high-priority ones) and hot nodes have pods that may move.
    for (int i = 0; i < pods; ++i) {
      json p = pod(i, static_cast<int>(static_cast<int64_t>(i) * nodes / pods), rng);
      out << "," << p.dump();
      double cores = std::stod(p["spec"]["containers"][0]["resources"]["requests"]["cpu"].get<std::string>()) / 1000.0;
      double share = 0.05 + static_cast<double>(rng() % 146) / 100.0;
      usage.push_back({{"namespace", p["metadata"]["namespace"]}, {"name", p["metadata"]["name"]},
                       {"cpu", cores * share}, {"memory", cores * 4 * 1048576 * 1000 * share}, {"at", now}});
    }
    out << "]}";
  }
  std::string node_entries;
  for (int i = 0; i < nodes; ++i) {
    if (i % 100 == 99) continue;   // 1 % of nodes report nothing: unknown
    double cpu = i % 20 == 0 ? 0.92 : i % 5 == 1 ? 0.12 : 0.5;
    double mem = i % 20 == 0 ? 0.6 : i % 5 == 1 ? 0.15 : 0.5;
    node_entries += (node_entries.empty() ? "" : ",") +
                    json{{"name", "node-" + std::to_string(i)}, {"cpu", cpu}, {"memory", mem}, {"at", now}}.dump();
  }
  std::ofstream(dir + "/load-nodes.json") << "{\"nodes\":[" << node_entries << "]}";
  std::ofstream out(dir + "/load.json");
  out << "{\"nodes\":[" << node_entries << "],\"pods\":[";
  for (size_t i = 0; i < usage.size(); ++i) out << (i ? "," : "") << usage[i].dump();
  out << "]}";
}

// The seed policy (LoadAware) and, with the same evictor and LoadAware arguments, a profile
// with every upstream plugin weft serves (issue: plan at most 1 s, run --once at most 1.5 s at
// 5,000 nodes / 100,000 pods).
#define WEFT_BENCH_POLICY_HEAD(profile) \
  "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: " profile "\n" \
  "  pluginConfig:\n  - name: DefaultEvictor\n" \
  "    args: {priorityThreshold: {value: 10000}, nodeFit: true, ignorePvcPods: true}\n" \
  "  - name: LoadAware\n    args:\n      thresholds: {cpu: 30, memory: 30}\n" \
  "      targetThresholds: {cpu: 80, memory: 85}\n"

const char* kPolicy = WEFT_BENCH_POLICY_HEAD("p") R"(  plugins:
    balance:
      enabled: [LoadAware]
)";

const char* kEveryPluginPolicy = WEFT_BENCH_POLICY_HEAD("every") R"(  - name: RemoveDuplicates
  - name: HighNodeUtilization
    args: {thresholds: {cpu: 20, memory: 20}}
  - name: PodLifeTime
    args: {maxPodLifeTimeSeconds: 86400, states: [Pending, PodInitializing]}
  - name: RemoveFailedPods
    args: {minPodLifetimeSeconds: 3600}
  - name: RemovePodsHavingTooManyRestarts
    args: {podRestartThreshold: 100, includingInitContainers: true}
  - name: RemovePodsViolatingNodeAffinity
    args: {nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution, preferredDuringSchedulingIgnoredDuringExecution]}
  - name: RemovePodsViolatingNodeTaints
  - name: RemovePodsViolatingInterPodAntiAffinity
  - name: RemovePodsViolatingTopologySpreadConstraint
    args: {constraints: [DoNotSchedule, ScheduleAnyway]}
  plugins:
    deschedule:
      enabled: [PodLifeTime, RemoveFailedPods, RemovePodsHavingTooManyRestarts, RemovePodsViolatingNodeAffinity,
                RemovePodsViolatingNodeTaints, RemovePodsViolatingInterPodAntiAffinity]
    balance:
      enabled: [RemoveDuplicates, LoadAware, HighNodeUtilization, RemovePodsViolatingTopologySpreadConstraint]
)";

struct ChildResult {
  int status = -1;
  double seconds = 0;
  long max_rss_kib = 0;
  double cpu_seconds = 0;   // user + system
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
  r.cpu_seconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                  static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  r.output = weft::testing::read_file(out_file);
  return r;
}

// In a forked child: decode + plan, report through a pipe; peak RSS of that child alone.
// The naive decode: the whole file as one JSON tree (every object at once), then the model.
weft::Result<wd::Cluster> cluster_as_one_tree(const std::string& path) {
  auto objects = weft::kube::load_objects_file(path);
  if (!objects) return objects.error();
  wd::ClusterBuilder builder;
  for (const auto& o : *objects)
    if (auto s = builder.add(o.object, o.where()); !s) return s.error();
  return builder.finish();
}

void plan_in_process(const std::string& dir, bool naive, const std::string& load_file, const char* label) {
  int fds[2];
  if (pipe(fds) != 0) return;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    auto t0 = Clock::now();
    auto cluster = naive ? cluster_as_one_tree(dir + "/scenario.json") : wd::cluster_from_file(dir + "/scenario.json");
    double decode = since(t0);
    auto t_load = Clock::now();
    auto load = wd::parse_load_file(weft::testing::read_file(dir + "/" + load_file), load_file);
    double load_decode = since(t_load);
    auto policy = wd::parse_policy_text(kPolicy, "policy");
    if (!cluster || !load || !policy) _exit(2);
    auto t1 = Clock::now();
    auto plan = wd::make_plan(*cluster, *load, *policy, {}, wd::PlanOptions{std::chrono::system_clock::now()});
    double planning = since(t1);
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    size_t by_usage = 0;
    if (plan)
      for (const auto& e : plan->evictions) by_usage += e.sized_by == "usage";
    char buf[256];
    int n = std::snprintf(buf, sizeof buf, "%.3f %.3f %.3f %ld %zu %zu %zu\n", decode, load_decode, planning,
                          ru.ru_maxrss, plan ? plan->evictions.size() : 0, plan ? plan->skipped.size() : 0, by_usage);
    if (write(fds[1], buf, static_cast<size_t>(n)) < 0) _exit(3);
    _exit(0);
  }
  close(fds[1]);
  char buf[256] = {};
  ssize_t got = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  double decode = 0, load_decode = 0, planning = 0;
  long rss = 0;
  size_t ev = 0, sk = 0, by_usage = 0;
  if (got <= 0 ||
      std::sscanf(buf, "%lf %lf %lf %ld %zu %zu %zu", &decode, &load_decode, &planning, &rss, &ev, &sk, &by_usage) != 7) {
    std::printf("plan in process: failed\n");
    return;
  }
  std::printf("%-44s decode %.3f s, load %.3f s, make_plan %.3f s, peak RSS %.0f MiB (%zu evictions, %zu sized by "
              "usage, %zu skipped)\n",
              label, decode, load_decode, planning, rss / 1024.0, ev, by_usage, sk);
}

// A descheduler and the kube-lite it is measured against: this build's, or another's
// (--baseline-*), so both are timed in one run on the same machine.
struct Build {
  std::string name;
  std::string descheduler = WEFT_DESCHEDULER_BINARY;
  std::string kube_lite;   // "" = this build's
};

// CPU seconds a live process has used (utime + stime from /proc/PID/stat).
double cpu_seconds(pid_t pid) {
  std::string stat = weft::testing::read_file("/proc/" + std::to_string(pid) + "/stat");
  size_t at = stat.rfind(')');
  if (at == std::string::npos) return 0;
  std::istringstream fields(stat.substr(at + 2));
  std::string skip;
  for (int i = 3; i < 14; ++i) fields >> skip;   // state .. cmajflt
  double utime = 0, stime = 0;
  fields >> utime >> stime;
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

struct ApiFigures {
  ChildResult run;
  double cycle_total = 0, cycle_list = 0, cycle_load = 0, cycle_plan = 0;   // from the run's own log line
  size_t requests = 0, lists = 0;                                           // counted by kube-lite
  double server_cpu = 0;                                                    // kube-lite's CPU during the run
  std::string evictions;                                                    // "1547 evictions (dry-run), 616 skipped"
  bool ok = false;
};

std::unique_ptr<weft::testing::KubeLite> start_api(const std::string& dir, const Build& build) {
  auto api = std::make_unique<weft::testing::KubeLite>(weft::testing::KubeLiteOptions{
      .state = dir + "/scenario.json", .binary = build.kube_lite, .start_timeout = std::chrono::minutes(10)});
  if (!api->error().empty()) std::printf("kube-lite (%s) did not start: %s\n", build.name.c_str(), api->error().c_str());
  return api;
}

// `weft-descheduler run --once --dry-run` of one build against its kube-lite.
ApiFigures api_run(weft::testing::KubeLite& api, const Build& build, const std::string& dir, const std::string& policy_file) {
  ApiFigures f;
  const size_t logged_before = api.requests().size();
  const double server_before = cpu_seconds(api.process().pid());
  f.run = run_child({build.descheduler, "run", "--policy", dir + "/" + policy_file, "--kubeconfig", api.kubeconfig(),
                     "--once", "--dry-run", "--load", "file=" + dir + "/load.json", "--state-configmap",
                     "default/bench-state"},
                    dir + "/run.out");
  f.server_cpu = cpu_seconds(api.process().pid()) - server_before;
  auto logged = api.requests();
  for (size_t i = logged_before; i < logged.size(); ++i) {
    ++f.requests;
    // A list is a GET on a collection: /api/v1/pods, /apis/g/v/podgroups (no object name).
    std::string path = logged[i].value("path", "");
    size_t parts = static_cast<size_t>(std::count(path.begin(), path.end(), '/'));
    bool core = path.rfind("/api/", 0) == 0;
    if (logged[i].value("verb", "") == "GET" && parts == (core ? 3u : 4u)) ++f.lists;
  }
  std::smatch m;
  if (std::regex_search(f.run.output, m,
                        std::regex(R"(skipped, ([0-9.]+)s \(list ([0-9.]+)s, load ([0-9.]+)s, plan ([0-9.]+)s\))"))) {
    f.cycle_total = std::stod(m[1]);
    f.cycle_list = std::stod(m[2]);
    f.cycle_load = std::stod(m[3]);
    f.cycle_plan = std::stod(m[4]);
  }
  if (std::regex_search(f.run.output, m, std::regex(R"(([0-9]+ evictions \(dry-run\), [0-9]+ skipped))"))) f.evictions = m[1];
  f.ok = WEXITSTATUS(f.run.status) == 0;
  if (!f.ok) std::printf("%s\n", f.run.output.substr(0, 2000).c_str());
  return f;
}

// The run's pod list (the same selector and pages) fetched one page at a time and not
// decoded: what the server and the transfer alone take.
struct ServeFigures {
  double seconds = 0;
  size_t bytes = 0, pages = 0;
};
ServeFigures serve_pod_pages(weft::testing::KubeLite& api) {
  ServeFigures f;
  auto client = api.new_client();
  weft::kube::ListOptions o = wd::pod_list_options(false);
  auto t = Clock::now();
  for (;;) {
    auto r = client->execute({"GET", weft::kube::resources::pods().collection_path("") + weft::kube::list_query(o), "", ""});
    if (!r || r->status != 200) {
      std::printf("pod pages: %s\n", r ? ("HTTP " + std::to_string(r->status)).c_str() : r.message().c_str());
      return f;
    }
    ++f.pages;
    f.bytes += r->body.size();
    o.continue_token = weft::kube::continue_of(r->body);
    if (o.continue_token.empty()) break;
  }
  f.seconds = since(t);
  return f;
}

// Naive baseline: the node list, then each node's pods by field selector. kube-lite
// filters every pod per request, so a sample of nodes is timed and extrapolated.
void naive_baseline(weft::testing::KubeLite& api) {
  auto client = api.new_client();
  auto t2 = Clock::now();
  auto node_list = client->list(weft::kube::resources::nodes(), "");
  double list_nodes = since(t2);
  size_t pod_count = 0, sampled = 0;
  auto t3 = Clock::now();
  if (node_list) {
    for (const auto& n : node_list->items) {
      if (sampled == 250) break;
      weft::kube::ListOptions o;
      o.field_selector = "spec.nodeName=" + n["metadata"]["name"].get<std::string>();
      (void)client->list_each(weft::kube::resources::pods(), "", o, [&](json&&) { ++pod_count; });
      ++sampled;
    }
  }
  size_t total_nodes = node_list ? node_list->items.size() : 0;
  double per_node = sampled ? since(t3) / static_cast<double>(sampled) : 0;
  std::printf("%-44s %.1f s (extrapolated from %zu nodes, %zu pods), %zu API requests (%zu lists)\n",
              "naive baseline (pods listed per node):", list_nodes + per_node * static_cast<double>(total_nodes), sampled,
              pod_count, total_nodes + 1, total_nodes + 1);
}

void print_api(const std::string& label, const ApiFigures& f) {
  std::printf("%-44s %.3f s (CPU %.2f s), peak RSS %.0f MiB, %zu API requests (%zu lists); cycle %.3f s = list %.3f "
              "s + load %.3f s + plan %.3f s; kube-lite CPU %.2f s; %s%s\n",
              label.c_str(), f.run.seconds, f.run.cpu_seconds, f.run.max_rss_kib / 1024.0, f.requests, f.lists,
              f.cycle_total, f.cycle_list, f.cycle_load, f.cycle_plan, f.server_cpu, f.evictions.c_str(),
              f.ok ? "" : " (FAILED)");
}

// Every build's kube-lite holds dir's scenario; each round runs every build once with
// each policy, in turn.
bool api_compare(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& policies,
                 const std::vector<Build>& builds, int rounds, bool naive) {
  std::vector<std::unique_ptr<weft::testing::KubeLite>> apis;
  for (const auto& b : builds) {
    apis.push_back(start_api(dir, b));
    if (!apis.back()->error().empty()) return false;
  }
  bool ok = true;
  for (const auto& [policy_file, what] : policies)
    for (int round = 0; round < rounds; ++round)
      for (size_t i = 0; i < builds.size(); ++i) {
        ApiFigures f = api_run(*apis[i], builds[i], dir, policy_file);
        print_api(what + " (" + builds[i].name + "):", f);
        ok = ok && f.ok;
      }
  for (size_t i = 0; i < builds.size(); ++i) {
    ServeFigures s = serve_pod_pages(*apis[i]);
    char label[96];
    std::snprintf(label, sizeof label, "kube-lite alone (%s):", builds[i].name.c_str());
    std::printf("%-44s serves the run's pod list, %zu pages (%.0f MiB), one at a time, not decoded, in %.3f s\n", label,
                s.pages, static_cast<double>(s.bytes) / (1 << 20), s.seconds);
  }
  if (naive) naive_baseline(*apis.front());
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft-descheduler cycle benchmark"};
  int nodes = 5000, pods = 100000;
  std::string dir;
  bool skip_api = false, skip_in_process = false;
  int rounds = 1;
  Build tree{"this tree"}, baseline{"baseline", ""};
  app.add_option("--nodes", nodes);
  app.add_option("--pods", pods);
  app.add_option("--dir", dir, "where to write the scenario (default: a temp dir)");
  app.add_flag("--skip-api", skip_api, "only the offline plan");
  app.add_flag("--skip-in-process", skip_in_process, "not the core's figures in process");
  app.add_option("--rounds", rounds, "runs of each build against kube-lite, in turn")->check(CLI::Range(1, 100));
  app.add_option("--baseline-descheduler", baseline.descheduler,
                 "another build's weft-descheduler, run beside this one against...");
  app.add_option("--baseline-kube-lite", baseline.kube_lite, "...that build's kube-lite (default: this build's)");
  CLI11_PARSE(app, argc, argv);
  std::unique_ptr<weft::testing::TempDir> tmp;
  if (dir.empty()) {
    tmp = std::make_unique<weft::testing::TempDir>("descheduler-bench");
    dir = tmp->path();
  }
  // The scenario is written with plain streams: a --dir that does not exist yet is made,
  // and one that cannot be written is an error, not an empty run.
  std::error_code made;
  std::filesystem::create_directories(dir, made);
  if (made || !std::ofstream(dir + "/.writable")) {
    std::fprintf(stderr, "--dir %s: cannot write there%s%s\n", dir.c_str(), made ? ": " : "", made.message().c_str());
    return 1;
  }
  std::filesystem::remove(dir + "/.writable");
  auto t = Clock::now();
  generate(dir, nodes, pods);
  weft::testing::write_file(dir + "/policy.yaml", kPolicy);
  std::printf("generated %d nodes, %d pods in %.1f s (%s)\n", nodes, pods, since(t), dir.c_str());

  if (!skip_in_process) {
    plan_in_process(dir, false, "load.json", "core, per-pod usage (in process):");
    plan_in_process(dir, false, "load-nodes.json", "core, requests only (in process):");
    plan_in_process(dir, true, "load.json", "naive: file as one JSON tree, then plan:");
  }
  weft::testing::write_file(dir + "/policy-every.yaml", kEveryPluginPolicy);
  bool ok = true;
  for (auto [file, name] : {std::pair{"policy.yaml", "LoadAware"}, std::pair{"policy-every.yaml", "every plugin"}}) {
    auto plan = run_child({WEFT_DESCHEDULER_BINARY, "--log-level", "debug", "plan", dir + "/scenario.json", "--policy",
                           dir + "/" + file, "--load", "file=" + dir + "/load.json"},
                          dir + "/plan.out");
    char label[96];
    std::snprintf(label, sizeof label, "weft-descheduler plan, %s:", name);
    std::printf("%-44s %.3f s, peak RSS %.0f MiB (exit %d)\n", label, plan.seconds, plan.max_rss_kib / 1024.0,
                WEXITSTATUS(plan.status));
    // Where its time went, as the plan logs it (its phases; the load file is read beside the scenario
    // and the Deschedule plugins).
    std::smatch phases;
    if (std::regex_search(plan.output, phases, std::regex(R"(plan phases: ([^\n]*))")))
      std::printf("%-44s %s\n", "", phases[1].str().c_str());
    ok = ok && WEXITSTATUS(plan.status) == 0;
    if (WEXITSTATUS(plan.status) != 0) std::printf("%s\n", plan.output.substr(0, 2000).c_str());
  }
  if (skip_api) return ok ? 0 : 1;

  std::vector<Build> builds = {tree};
  if (!baseline.descheduler.empty()) builds.push_back(baseline);
  // The list count must not grow with the cluster: the same run at a tenth of the size.
  std::string small = dir + "/small";
  std::filesystem::create_directories(small);
  generate(small, std::max(1, nodes / 10), std::max(1, pods / 10));
  weft::testing::write_file(small + "/policy.yaml", kPolicy);
  auto at = [](int n, int p) { return "at " + std::to_string(n) + "/" + std::to_string(p); };
  const std::string little = at(std::max(1, nodes / 10), std::max(1, pods / 10)), full = at(nodes, pods);
  ok = api_compare(small, {{"policy.yaml", "run --once --dry-run " + little}}, {tree}, 1, false) && ok;
  ok = api_compare(dir,
                   {{"policy.yaml", "run --once --dry-run " + full}, {"policy-every.yaml", "... every plugin, " + full}},
                   builds, rounds, true) &&
       ok;
  return ok ? 0 : 1;
}
