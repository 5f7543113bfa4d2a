// bench/native_gang: Kubernetes' own gang API at the size of LLM jobs, through the API as a
// user runs it. One 4,096-pod scheduling.k8s.io PodGroup (8 GPUs a pod, topology key on the
// top tier) on 10,000 GPU nodes, and kube-scheduler's scheduler_perf CompositePodGroup gang
// and topology workloads at 5,000 nodes; each timed from the first object created to the
// last binding seen on a watch, for `weft-scheduler run` and beside it, on a fresh kube-lite
// holding the same cluster, a naive next-fit gang placer; each placement checked from the API.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <regex>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench/native_gang/checks.h"
#include "bench/native_gang/naive_placer.h"
#include "bench/scheduler_run/phases.h"
#include "kube/client/resource.h"
#include "kube/objects.h"
#include "kube/workload.h"

using namespace weft::bench;
using nlohmann::json;
using Steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

struct Options {
  Binaries bin;
  std::string work_dir = "/dev/shm/weft-bench-native-gang";
  int concurrency = 16, client_threads = 16, runs = 1;
};

struct Timing {
  double created_s = 0, bound_s = 0;   // from the first create: the last create, the last binding
  double decide_s = 0;                 // weft: the scheduler's decide time in the cycles that bound pods
  int bound = 0;
  Verdict verdict;
  std::string error;
};

double seconds(Steady::time_point from, Steady::time_point to) { return std::chrono::duration<double>(to - from).count(); }

weft::kube::ResourceRef ref_of(const json& o) {
  const std::string kind = weft::kube::kind_of(o);
  if (kind == "CompositePodGroup") return weft::kube::resources::composite_podgroups();
  if (kind == "PodGroup")   // told apart by API group, as the scheduler does
    return weft::kube::api_group_of(o) == weft::kube::kWorkloadApiGroup ? weft::kube::resources::native_podgroups()
                                                                         : weft::kube::resources::podgroups();
  return weft::kube::resources::pods();
}

// The composites, then the PodGroups, then the pods (scheduler_perf's opcode order), each
// kind from many threads.
bool create_all(weft::kube::Client& client, const Case& c, int threads, std::string* error) {
  auto create = [&](const std::vector<json>& objects, const std::string& kind) {
    std::vector<const json*> of_kind;
    for (const auto& o : objects)
      if (weft::kube::kind_of(o) == kind) of_kind.push_back(&o);
    return parallel(static_cast<int>(of_kind.size()), threads, [&](int i) {
      auto r = client.create(ref_of(*of_kind[i]), "bench", *of_kind[i]);
      if (!r) std::fprintf(stderr, "%s %s: %s\n", kind.c_str(), weft::kube::name_of(*of_kind[i]).c_str(), r.message().c_str());
      return r.ok();
    }, error);
  };
  return create(c.group_objects, "CompositePodGroup") && create(c.group_objects, "PodGroup") && create(c.pods, "Pod");
}

// Waits for every pod of the case to be seen bound (or the deadline) and fills the timing.
void await_bound(BindingWatch& watch, const Case& c, Steady::time_point start, Timing& t,
                 const std::function<bool()>& alive) {
  const int pods = static_cast<int>(c.pods.size());
  for (auto deadline = Steady::now() + 300s; static_cast<int>(watch.bound()) < pods && Steady::now() < deadline && alive();)
    std::this_thread::sleep_for(5ms);
  t.bound = static_cast<int>(watch.bound());
  t.bound_s = seconds(start, watch.last());
  if (t.bound < pods && t.error.empty())
    t.error = "only " + std::to_string(t.bound) + " of " + std::to_string(pods) + " pods bound";
}

Timing run_weft(const Options& o, const Case& c, const std::string& state) {
  Timing t;
  Api api(o.bin, state, o.work_dir);
  if (!api.error().empty()) return {.error = api.error()};
  weft::testing::Process::Options p;
  p.argv = {o.bin.scheduler, "run", "--kubeconfig", api.kubeconfig(), "--period", o.bin.scheduler_period,
            "--bind-concurrency", std::to_string(o.concurrency)};
  p.keep_stdin_open = false;
  p.log_file = o.work_dir + "/scheduler-" + c.label + ".log";
  weft::testing::Process scheduler(p);
  if (!scheduler.wait_for_line(std::regex("caches synced"), 300s)) return {.error = "scheduler did not sync"};
  BindingWatch watch(api.client(), "app=" + c.label, static_cast<int>(c.pods.size()));
  const auto start = Steady::now();
  if (create_all(api.client(), c, o.client_threads, &t.error)) t.created_s = seconds(start, Steady::now());
  await_bound(watch, c, start, t, [&] { return scheduler.running(); });
  t.verdict = check_placement(api.client(), c);
  // A pipelined cycle is logged once its writes have answered: wait for the lines that
  // account for every binding.
  static const std::regex cycle(R"(bound ([0-9]+),.* decide ([0-9.]+)s)");
  for (auto until = Steady::now() + 5s; Steady::now() < until;) {
    std::smatch m;
    int logged = 0;
    t.decide_s = 0;
    for (const auto& line : scheduler.lines())
      if (std::regex_search(line, m, cycle) && std::stoi(m[1]) > 0) logged += std::stoi(m[1]), t.decide_s += std::stod(m[2]);
    if (logged >= t.bound) break;
    std::this_thread::sleep_for(100ms);
  }
  return t;
}

Timing run_naive(const Options& o, const Case& c, const std::string& state) {
  Timing t;
  Api api(o.bin, state, o.work_dir);
  if (!api.error().empty()) return {.error = api.error()};
  NaivePlacer naive(api.client(), c, o.concurrency);
  if (auto s = naive.sync(); !s) return {.error = s.message()};
  BindingWatch watch(api.client(), "app=" + c.label, static_cast<int>(c.pods.size()));
  const auto start = Steady::now();
  auto placing = std::async(std::launch::async, [&] { return naive.run(Steady::now() + 300s); });
  if (create_all(api.client(), c, o.client_threads, &t.error)) t.created_s = seconds(start, Steady::now());
  await_bound(watch, c, start, t, [&] {
    return placing.wait_for(0s) != std::future_status::ready;
  });
  if (auto s = placing.get(); !s && t.error.empty()) t.error = s.message();
  t.verdict = check_placement(api.client(), c);
  return t;
}

void print_row(const std::string& who, const Timing& t, int pods) {
  std::printf("  %-22s all bound %7.3f s (%6.0f pods/s), creates done %6.3f s, last create -> all bound %6.3f s; %s%s%s\n",
              who.c_str(), t.bound_s, t.bound_s > 0 ? pods / t.bound_s : 0.0, t.created_s, t.bound_s - t.created_s,
              (t.verdict.summary() + (t.decide_s > 0 ? "; decide " + std::to_string(t.decide_s).substr(0, 5) + " s" : ""))
                  .c_str(),
              t.error.empty() ? "" : "  ERROR: ", t.error.c_str());
}

json row_json(const Timing& t) {
  return {{"bound_s", t.bound_s}, {"created_s", t.created_s}, {"bound", t.bound}, {"decide_s", t.decide_s}, {"ok", t.verdict.ok() && t.error.empty()},
          {"check", t.verdict.summary()}, {"rank_pairs_across_leaf", t.verdict.rank_pairs_across_leaf},
          {"error", t.error}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Kubernetes' gang API at LLM size through kube-lite, weft-scheduler run beside a naive placer");
  Options o;
  BigGangShape shape;
  std::vector<std::string> cases = {"big-gang", "big-subgroups", "CPGGangScheduling/5000Nodes_1500CPGs_3000Groups_9000Pods",
                                    "CPGGangScheduling/5000Nodes_3CPGs_6Groups_9000Pods",
                                    "CPGTopologyAwareScheduling/5000Nodes_1500CPGs_3000Groups_12000Pods",
                                    "CPGTopologyAwareScheduling/5000Nodes_3CPGs_6Groups_9000Pods"};
  std::string json_out;
  bool skip_naive = false, list = false;
  app.add_option("--kube-lite", o.bin.kube_lite)->required();
  app.add_option("--scheduler", o.bin.scheduler)->required();
  app.add_option("--case", cases, "big-gang, big-subgroups, or a scheduler_perf workload (--list)")->capture_default_str();
  app.add_flag("--list", list, "print the scheduler_perf workloads known");
  app.add_option("--period", o.bin.scheduler_period, "weft-scheduler run --period")->capture_default_str();
  app.add_option("--bind-concurrency", o.concurrency, "weft's and the naive placer's bindings in flight")
      ->capture_default_str();
  app.add_option("--client-threads", o.client_threads, "threads creating pods")->capture_default_str();
  app.add_option("--runs", o.runs, "runs of each case (weft and naive alternated)")->capture_default_str();
  app.add_option("--nodes", shape.nodes, "big-gang: GPU nodes")->capture_default_str();
  app.add_option("--gang", shape.gang, "big-gang: pods in the gang")->capture_default_str();
  int partition = 32;
  app.add_option("--partition", partition, "big-subgroups: pods in each sub-group (one leaf)")->capture_default_str();
  app.add_option("--busy-nodes", shape.busy_nodes, "big-gang: nodes already full (first fabric)")->capture_default_str();
  app.add_option("--work-dir", o.work_dir)->capture_default_str();
  app.add_option("--json", json_out, "write the figures here");
  app.add_flag("--skip-naive", skip_naive);
  app.allow_extras(false);
  CLI11_PARSE(app, argc, argv);
  if (list) {
    for (const auto& n : scheduler_perf_cases()) std::printf("%s\n", n.c_str());
    return 0;
  }
  std::filesystem::create_directories(o.work_dir);
  int failures = 0;
  json out = json::array();
  for (const auto& name : cases) {
    Case c = name == "big-gang"        ? big_gang(shape, "weft")
             : name == "big-subgroups" ? big_subgroups(shape, "weft", partition)
                                       : scheduler_perf_case(name, "weft");
    if (c.name.empty()) {
      std::fprintf(stderr, "unknown case %s (--list)\n", name.c_str());
      return 2;
    }
    const std::string state = o.work_dir + "/state.json";
    write_case_state(c, state);
    std::printf("%s: %zu nodes, %zu running pods, %zu groups/composites, %zu pending pods\n", c.name.c_str(),
                c.nodes.size(), c.running_pods.size(), c.group_objects.size(), c.pods.size());
    for (int r = 0; r < o.runs; ++r) {
      Timing w = run_weft(o, c, state);
      print_row("weft-scheduler run", w, static_cast<int>(c.pods.size()));
      Timing n;
      if (!skip_naive) {
        n = run_naive(o, c, state);
        print_row("naive next-fit placer", n, static_cast<int>(c.pods.size()));
      }
      failures += !(w.error.empty() && w.verdict.ok());
      out.push_back({{"case", c.name}, {"run", r}, {"weft", row_json(w)}, {"naive", skip_naive ? json() : row_json(n)}});
    }
    std::filesystem::remove(state);
  }
  if (!json_out.empty()) std::ofstream(json_out) << out.dump(2) << "\n";
  return failures ? 1 : 0;
}
