// weft-node-runtime: the demo's kubelet stand-in (see runtime.h), and `burn`, the
// process it runs for each pod (also used by the demo for background load).
#include <unistd.h>

#include <chrono>
#include <climits>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "common/log.h"
#include "common/signals.h"
#include "kube/client/client.h"
#include "kube/client/config.h"
#include "kube/client/informer.h"
#include "tools/node-runtime/burner.h"
#include "tools/node-runtime/runtime.h"

namespace {

std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

int run_burn(const weft::noderuntime::BurnOptions& o) {
  weft::StopSignal stop;
  if (auto s = weft::noderuntime::burn(o, stop); !s) {
    std::fprintf(stderr, "weft-node-runtime burn: %s\n", s.message().c_str());
    return 2;
  }
  return 0;
}

struct RunFlags {
  std::string kubeconfig;
  std::string cgroup_root;
  std::vector<std::string> nodes;
  double cpu_scale = 0.01;
  std::string log_level = "info";
};

int run_runtime(const RunFlags& f) {
  weft::StopSignal stop;   // before any thread starts: they inherit the blocked signals
  if (auto s = weft::setup_logging("weft-node-runtime", f.log_level); !s) {
    std::fprintf(stderr, "weft-node-runtime: %s\n", s.message().c_str());
    return 2;
  }
  if (f.nodes.empty()) {
    spdlog::error("run: no --node given");
    return 2;
  }
  if (f.cpu_scale < 0) {
    spdlog::error("run: --cpu-scale {}: must not be negative", f.cpu_scale);
    return 2;
  }
  auto config = weft::kube::resolve_config(f.kubeconfig, weft::kube::current_environment());
  if (!config) {
    spdlog::error("run: API config: {}", config.message());
    return 2;
  }
  auto client = weft::kube::Client::from_config(*config);
  if (!client) {
    spdlog::error("run: {}: {}", config->source, client.message());
    return 2;
  }
  weft::noderuntime::Runtime runtime(**client, {.nodes = std::set<std::string>(f.nodes.begin(), f.nodes.end()),
                                                .cgroup_root = f.cgroup_root,
                                                .cpu_scale = f.cpu_scale,
                                                .self_exe = self_exe()});
  if (auto s = runtime.prepare(); !s) {
    spdlog::error("run: {}", s.message());
    return 2;
  }
  weft::kube::Informer pods(**client, weft::kube::resources::pods(), "");
  pods.add_handlers({
      .on_add = [&](const nlohmann::json& p) { runtime.on_pod(p); },
      .on_update = [&](const nlohmann::json&, const nlohmann::json& p) { runtime.on_pod(p); },
      .on_delete = [&](const nlohmann::json& p) { runtime.on_pod_deleted(p); },
  });
  pods.start();
  spdlog::info("serving {} nodes under {} ({} real cores per requested core) against {}", f.nodes.size(),
               f.cgroup_root, f.cpu_scale, (*client)->address());
  while (stop.sleep_for(std::chrono::milliseconds(200))) runtime.tick();
  spdlog::info("stopping: {} pod processes", runtime.running());
  pods.stop();
  runtime.shutdown();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft-node-runtime: the demo's kubelet stand-in for simulated nodes sharing one machine"};
  app.require_subcommand(1);

  RunFlags run_flags;
  auto* run = app.add_subcommand("run", "Start bound pods of the given nodes as processes in their node's cgroup");
  run->add_option("--kubeconfig", run_flags.kubeconfig, "kubeconfig file");
  run->add_option("--cgroup-root", run_flags.cgroup_root, "cgroup v2 directory holding one group per node")
      ->required();
  run->add_option("--node", run_flags.nodes, "A node served (repeat)")->required();
  run->add_option("--cpu-scale", run_flags.cpu_scale,
                  "Real cores burned per requested core (weft.dev/demo-cpu overrides, in real cores)")
      ->capture_default_str();
  run->add_option("--log-level", run_flags.log_level, "trace|debug|info|warn|error")->capture_default_str();

  weft::noderuntime::BurnOptions burn_flags;
  int period_ms = 100;
  auto* burn = app.add_subcommand("burn", "Burn a share of one CPU until SIGTERM");
  burn->add_option("--cores", burn_flags.cores, "Share of one CPU, 0..1")->required();
  burn->add_option("--cgroup", burn_flags.cgroup, "Join this cgroup v2 group first");
  burn->add_option("--period-ms", period_ms, "Duty-cycle period")->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  if (*burn) {
    burn_flags.period = std::chrono::milliseconds(period_ms);
    return run_burn(burn_flags);
  }
  return run_runtime(run_flags);
}
