// bench/native_gang: Kubernetes' own gang API at the size of LLM jobs, through the API as a
// user runs it. One 4,096-pod scheduling.k8s.io PodGroup (8 GPUs a pod, topology key on the
// top tier) on 10,000 GPU nodes, and kube-scheduler's scheduler_perf CompositePodGroup gang
// and topology workloads at 5,000 nodes; each timed from the first object created to the
// last binding seen on a watch, for `weft-scheduler run` and beside it, on a fresh kube-lite
// holding the same cluster, a naive next-fit gang placer; each placement checked from the API.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench/native_gang/api_run.h"
#include "bench/native_gang/naive_placer.h"

using namespace weft::bench;
using nlohmann::json;

int main(int argc, char** argv) {
  CLI::App app("Kubernetes' gang API at LLM size through kube-lite, weft-scheduler run beside a naive placer");
  RunOptions o{.bin = {}, .work_dir = "/dev/shm/weft-bench-native-gang", .concurrency = 16, .client_threads = 16,
               .scheduler_args = {}};
  int runs = 1;
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
  app.add_option("--runs", runs, "runs of each case (weft and naive alternated)")->capture_default_str();
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
  const Check check = [](weft::kube::Client& client, const Case& c) { return check_placement(client, c); };
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
    for (int r = 0; r < runs; ++r) {
      Timing w = run_weft(o, c, state, check);
      print_row("weft-scheduler run", w, static_cast<int>(c.pods.size()));
      Timing n;
      if (!skip_naive) {
        n = run_placer(o, c, state, check, [](weft::kube::Client& client, const Case& k, int threads) {
          return std::make_unique<NaivePlacer>(client, k, threads);
        });
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
