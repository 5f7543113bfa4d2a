// affinity_bench: kube-scheduler's scheduler_perf affinity workloads at 5,000 nodes
// (bench/scheduler_affinity/workloads.h), each beside kube-scheduler's CI threshold.
//
// Through the API (--kube-lite, --scheduler; run.sh): each workload on a fresh kube-lite
// holding its nodes and its init pods already bound; the measured pods created from 16
// threads; timed from the first create to the last binding seen on a watch, for
// `weft-scheduler run` (Volcano's default configuration: predicates, nodeorder) and, on
// another fresh kube-lite, the rule-aware next-fit placer; each placement checked from the API.
// --core: the measured pods through one session of the scheduling core in this process,
// rates per CPU second (where the scheduler's own time goes, without the API).
#include <time.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench/native_gang/api_run.h"
#include "bench/scheduler_affinity/rule_placer.h"
#include "bench/scheduler_affinity/workloads.h"
#include "kube/objects.h"
#include "scheduler/core/config.h"
#include "scheduler/core/session.h"

using namespace weft::bench;
using nlohmann::json;

namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string rate(const Timing& t, size_t pods) {
  if (!t.error.empty() || t.bound_s <= 0) return "error";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", static_cast<double>(pods) / t.bound_s);
  return buf;
}

void run_core(const AffinityCase& a) {
  weft::scheduler::SnapshotBuilder b;
  for (const auto* objects : {&a.c.nodes, &a.c.running_pods, &a.c.pods})
    for (const auto& o : *objects) (void)b.add(o);
  auto snap = b.build();
  auto config = weft::scheduler::parse_config(volcano_default_config(), "volcano-scheduler.conf");
  const double c0 = thread_cpu_seconds();
  auto d = weft::scheduler::run_session(snap, *config);
  const double cpu = thread_cpu_seconds() - c0;
  std::map<std::string, std::string> at;
  for (const auto& bnd : d.bindings) at[bnd.pod] = bnd.node;
  std::vector<json> pods = a.c.running_pods;
  for (json p : a.c.pods) {
    auto it = at.find(a.c.ns + "/" + weft::kube::name_of(p));
    if (it != at.end()) p["spec"]["nodeName"] = it->second;
    pods.push_back(std::move(p));
  }
  std::printf("| %s | %zu/%zu | %.0f | %.3f | %d | %s |\n", a.c.name.c_str(), d.bindings.size(), a.c.pods.size(),
              static_cast<double>(d.bindings.size()) / cpu, cpu, a.threshold,
              rule_breach(a.rules, a.c.nodes, pods).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("scheduler_perf's affinity workloads at 5,000 nodes: weft-scheduler run through kube-lite");
  RunOptions o{.bin = {}, .work_dir = "/dev/shm/weft-bench-affinity", .concurrency = 16, .client_threads = 16,
               .scheduler_args = {}};
  std::vector<std::string> names = affinity_workloads();
  std::string json_out;
  int runs = 1, divide = 1;
  bool core = false, skip_naive = false;
  app.add_option("--kube-lite", o.bin.kube_lite);
  app.add_option("--scheduler", o.bin.scheduler);
  app.add_option("--workload", names, "scheduler_perf test names")->capture_default_str();
  app.add_option("--period", o.bin.scheduler_period, "weft-scheduler run --period")->capture_default_str();
  app.add_option("--bind-concurrency", o.concurrency, "weft's and the naive placer's bindings in flight")
      ->capture_default_str();
  app.add_option("--client-threads", o.client_threads, "threads creating pods")->capture_default_str();
  app.add_option("--runs", runs, "runs of each workload (weft and naive alternated)")->capture_default_str();
  app.add_option("--divide", divide, "nodes and pods divided by this (a quick look)")->capture_default_str();
  app.add_option("--work-dir", o.work_dir)->capture_default_str();
  app.add_option("--json", json_out, "write the figures here");
  app.add_flag("--core", core, "the scheduling core in this process, no API");
  app.add_flag("--skip-naive", skip_naive);
  CLI11_PARSE(app, argc, argv);
  if (!core && (o.bin.kube_lite.empty() || o.bin.scheduler.empty())) {
    std::fprintf(stderr, "--kube-lite and --scheduler are needed (or --core)\n");
    return 2;
  }
  std::vector<AffinityCase> cases;
  for (const auto& n : names) {
    cases.push_back(affinity_case(n, "weft", divide));
    if (cases.back().c.name.empty()) {
      std::fprintf(stderr, "unknown workload %s\n", n.c_str());
      return 2;
    }
  }
  if (core) {
    std::printf("| workload | bound | pods per CPU s | CPU s | k-s CI threshold | check |\n|---|---|---|---|---|---|\n");
    for (const auto& a : cases) run_core(a);
    return 0;
  }
  std::filesystem::create_directories(o.work_dir);
  const std::string conf = o.work_dir + "/volcano-scheduler.conf";
  std::ofstream(conf) << volcano_default_config();
  o.scheduler_args = {"--config", conf};
  int failures = 0;
  json out = json::array();
  std::vector<std::string> table;
  for (const auto& a : cases) {
    const std::string state = o.work_dir + "/state.json";
    write_case_state(a.c, state);
    std::printf("%s: %zu nodes, %zu init pods bound, %zu measured pods\n", a.c.name.c_str(), a.c.nodes.size(),
                a.c.running_pods.size(), a.c.pods.size());
    std::fflush(stdout);
    auto check = [&a](weft::kube::Client& client, const Case&) { return check_rules(client, a); };
    for (int r = 0; r < runs; ++r) {
      Timing w = run_weft(o, a.c, state, check);
      print_row("weft-scheduler run", w, static_cast<int>(a.c.pods.size()));
      Timing n;
      if (!skip_naive) {
        n = run_placer(o, a.c, state, check, [&a](weft::kube::Client& client, const Case&, int threads) {
          return std::make_unique<RulePlacer>(client, a, threads);
        });
        print_row("rule-aware next fit", n, static_cast<int>(a.c.pods.size()));
      }
      std::fflush(stdout);
      failures += !(w.error.empty() && w.verdict.ok());
      table.push_back("| " + a.c.name + " | " + rate(w, a.c.pods.size()) + " | " +
                      (skip_naive ? "-" : rate(n, a.c.pods.size())) + " | " + std::to_string(a.threshold) + " | " +
                      (w.verdict.ok() ? "ok: " : "FAILED: ") + w.verdict.summary() + " |");
      out.push_back({{"workload", a.c.name}, {"run", r}, {"threshold", a.threshold},
                     {"threshold_of", a.threshold_of}, {"weft", row_json(w)},
                     {"naive", skip_naive ? json() : row_json(n)}});
    }
    std::filesystem::remove(state);
  }
  std::printf("\n| workload | weft-scheduler run, pods/s | rule-aware next fit, pods/s | kube-scheduler CI threshold | check |\n"
              "|---|---|---|---|---|\n");
  for (const auto& row : table) std::printf("%s\n", row.c_str());
  if (!json_out.empty()) std::ofstream(json_out) << out.dump(2) << "\n";
  return failures ? 1 : 0;
}
