// bench/scheduler_run: pods bound through the API by `weft-scheduler run` at 5,000 GPU
// nodes, with bindings in flight together beside one binding at a time (the baseline),
// kube-lite measured alone, gangs, the scheduler's peak RSS with 100,000 pods cached, and
// `weft-descheduler run --once` at the same size. Prints a table and writes --json.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench/scheduler_run/phases.h"

using namespace weft::bench;
using nlohmann::json;

int main(int argc, char** argv) {
  CLI::App app("weft-scheduler run through kube-lite at thousands of nodes");
  Binaries bin;
  ClusterShape shape;
  std::string json_out, work_dir = "/dev/shm/weft-bench-scheduler-run";
  int pods = 30000, gangs = 1000, gang_size = 8, cache_pods = 100000, concurrency = 16, client_threads = 16;
  bool skip_baseline = false, only_jobs = false;
  app.add_option("--kube-lite", bin.kube_lite)->required();
  app.add_option("--scheduler", bin.scheduler)->required();
  app.add_option("--descheduler", bin.descheduler)->required();
  app.add_option("--json", json_out, "write the figures here");
  app.add_option("--period", bin.scheduler_period, "weft-scheduler run --period")->capture_default_str();
  app.add_option("--work-dir", work_dir)->capture_default_str();
  app.add_option("--nodes", shape.nodes)->capture_default_str();
  app.add_option("--node-memory", shape.node_memory)->capture_default_str();
  app.add_option("--pods", pods, "pending single-pod jobs")->capture_default_str();
  app.add_option("--gangs", gangs)->capture_default_str();
  app.add_option("--gang-size", gang_size)->capture_default_str();
  app.add_option("--cache-pods", cache_pods, "pods in the scheduler's cache at the end (running ones fill up)")
      ->capture_default_str();
  app.add_option("--bind-concurrency", concurrency)->capture_default_str();
  app.add_option("--client-threads", client_threads, "threads creating pods")->capture_default_str();
  app.add_flag("--skip-baseline", skip_baseline, "leave out the one-binding-at-a-time run");
  app.add_flag("--only-jobs", only_jobs, "only the single-pod jobs with bindings in flight together (quick look)");
  CLI11_PARSE(app, argc, argv);

  std::filesystem::create_directories(work_dir);
  shape.running_pods = std::max(cache_pods - pods, 0);
  const std::string state = work_dir + "/state.json";
  write_state(shape, state);
  ClusterShape full = shape;
  full.running_pods = cache_pods;
  const std::string full_state = work_dir + "/state-full.json";
  write_state(full, full_state);
  std::printf("cluster: %d nodes (%s cpu, %s memory, %d GPUs), %d running pods; %d pending jobs, %d gangs of %d\n",
              shape.nodes, shape.node_cpu.c_str(), shape.node_memory.c_str(), shape.node_gpus, shape.running_pods,
              pods, gangs, gang_size);
  int failures = 0;
  auto report = [&](const std::string& what, const std::string& error) {
    if (error.empty()) return;
    ++failures;
    std::fprintf(stderr, "%s: %s\n", what.c_str(), error.c_str());
  };

  KubeLiteAlone alone;
  if (!only_jobs) alone = measure_kube_lite(bin, shape, state, work_dir, pods, client_threads);
  report("kube-lite alone", alone.error);
  std::printf("kube-lite alone (%d threads): %.0f creates/s, %.0f bindings/s, %.1f s of its CPU for both\n",
              client_threads, alone.created.per_second(), alone.bound.per_second(), alone.cpu_seconds);

  SchedulerRun baseline;
  if (!skip_baseline && !only_jobs) {
    baseline = run_scheduler(bin, shape, state, work_dir, pods, 0, 1, client_threads);
    report("baseline", baseline.error);
  }
  auto fast = run_scheduler(bin, shape, state, work_dir, pods, 0, concurrency, client_threads);
  report("bind-concurrency " + std::to_string(concurrency), fast.error);
  SchedulerRun gang;
  DeschedulerRun desched;
  if (!only_jobs) {
    gang = run_scheduler(bin, shape, state, work_dir, gangs * gang_size, gang_size, concurrency, client_threads);
    report("gangs", gang.error);
    desched = measure_descheduler(bin, shape, full_state, work_dir, 0);
    report("descheduler", desched.error);
  }

  std::printf("\n%-44s %14s %14s\n", "pods bound through the API (first create -> last binding)", "weft", "baseline");
  std::printf("%-44s %14.0f %14.0f\n", "single-pod jobs, pods/s", fast.bound.per_second(), baseline.bound.per_second());
  std::printf("%-44s %14.2f %14.2f\n", "  seconds for all", fast.bound.seconds, baseline.bound.seconds);
  std::printf("%-44s %14.0f %14.0f\n", "  of which creates alone, pods/s", fast.created.per_second(),
              baseline.created.per_second());
  std::printf("%-44s %14.0f %14s\n", "gangs of 8 (ib-cluster: same), pods/s", gang.bound.per_second(), "-");
  std::printf("%-44s %14.0f %14.0f\n", "scheduler peak RSS, MiB", fast.rss_mib, baseline.rss_mib);
  std::printf("%-44s %14ld %14ld\n", "  pods in its cache", fast.pods_in_cache, baseline.pods_in_cache);
  std::printf("%-44s %14.2f %14s\n", "descheduler run --once (dry run), s", desched.wall_s, "-");
  std::printf("%-44s %14.2f %14s\n", "  kube-lite's CPU serving that run, s", desched.serving_cpu_s, "-");
  std::printf("%-44s %14.2f %14s\n", "  a plain client listing nodes+pods, s", desched.list_s, "-");
  std::printf("kube-scheduler's published figure (kube-apiserver, 5,000 nodes): >= 680-810 pods/s; "
              "kube-lite is not kube-apiserver.\n");

  if (!json_out.empty()) {
    json j = {{"pods_per_s", fast.bound.per_second()},
              {"baseline_pods_per_s", baseline.bound.per_second()},
              {"gang_pods_per_s", gang.bound.per_second()},
              {"scheduler_rss_mib", fast.rss_mib},
              {"pods_in_cache", fast.pods_in_cache},
              {"descheduler_run_once_s", desched.wall_s},
              {"descheduler_kube_lite_serving_cpu_s", desched.serving_cpu_s},
              {"descheduler_plain_client_lists_s", desched.list_s},
              {"kube_lite_alone_creates_per_s", alone.created.per_second()},
              {"kube_lite_alone_bindings_per_s", alone.bound.per_second()},
              {"create_pods_per_s", fast.created.per_second()},
              {"nodes", shape.nodes},
              {"node_memory", shape.node_memory},
              {"bind_concurrency", concurrency}};
    std::ofstream(json_out) << j.dump(2) << "\n";
  }
  std::filesystem::remove(state);
  std::filesystem::remove(full_state);
  return failures ? 1 : 0;
}
