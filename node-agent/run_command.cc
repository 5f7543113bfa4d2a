#include "node-agent/run_command.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <malloc.h>
#include <cstdlib>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "collectors/load/load.h"
#include "common/log.h"
#include "common/signals.h"
#include "kube/client/client.h"
#include "kube/client/config.h"
#include "kube/duration.h"
#include "node-agent/daemon/agent_state.h"
#include "node-agent/daemon/cgroup_load_source.h"
#include "node-agent/daemon/collector_sources.h"
#include "node-agent/daemon/daemon.h"
#include "node-agent/daemon/http_server.h"
#include "node-agent/daemon/kube_node_api.h"
#include "node-agent/daemon/metrics.h"
#include "node-agent/daemon/pod_directory.h"
#include "collectors/ib/report.h"

#ifndef WEFT_VERSION
#define WEFT_VERSION "dev"
#endif

namespace weft::agent {

CLI::App* add_run_command(CLI::App& app, RunOptions& o) {
  auto* run = app.add_subcommand("run", "Run the node daemon: probe loop, /metrics, Node labels and annotations");
  run->add_option("--node-name", o.node_name, "This node's name (default: $NODE_NAME from the downward API)");
  run->add_option("--listen", o.listen, "HTTP address for /metrics, /healthz, /readyz, /probe")->capture_default_str();
  run->add_option("--kubeconfig", o.kubeconfig, "kubeconfig file (default: in-cluster service account)");
  run->add_flag("--no-publish", o.no_publish, "Do not write Node labels or annotations");
  run->add_option("--ib-backend", o.ib_backend, "auto|umad|verbs")->capture_default_str();
  run->add_option("--compute-devices", o.compute_devices,
                  "Comma-separated RDMA devices that make up the compute fabric (default: the ports with a GPU behind "
                  "their PCIe switch, else the IB subnets with the most ports)");
  run->add_option("--sysfs-root", o.sysfs_root, "Where sysfs is (the host's, when it is mounted elsewhere)")
      ->capture_default_str();
  run->add_option("--nvml-library", o.nvml_library,
                  "NVML, opened at run time for the GPUs' NVLink clique (weft.dev/nvlink-domain); 'none': read GPU "
                  "feature discovery's nvidia.com/gpu.clique label only")
      ->capture_default_str();
  run->add_option("--load-backend", o.load_backend, "auto|ebpf|procfs")->capture_default_str();
  run->add_option("--load-cgroup", o.load_cgroup,
                  "Measure this cgroup v2 group as the node's load, for simulated nodes sharing one machine "
                  "(instead of --load-backend)");
  run->add_option("--load-cgroup-cpus", o.load_cgroup_cpus, "CPU capacity in cores of the node --load-cgroup measures")
      ->capture_default_str();
  run->add_option("--load-cgroup-node-cpus", o.load_cgroup_node_cpus,
                  "The cores the Node of --load-cgroup advertises when it owns fewer real ones: pods' CPU usage is "
                  "reported in the Node's cores (usage x this / --load-cgroup-cpus; default: no scaling)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--pod-cgroup-root", o.pod_cgroup_roots,
                  "Where pods' cgroup v2 groups are looked for (repeatable; default: kubelet's kubepods.slice and "
                  "kubepods under the cgroup2 mount, or the --load-cgroup group)");
  run->add_flag("--no-pod-metrics", o.no_pod_metrics,
                "No per-pod series (weft_pod_*; they need get/list/watch on pods for the names)");
  run->add_option("--ib-interval", o.ib_interval, "IB probe period (and at once on a port state change)")
      ->capture_default_str();
  run->add_option("--load-interval", o.load_interval, "Load summary period")->capture_default_str();
  run->add_option("--heartbeat", o.heartbeat, "Rewrite the load annotation at least this often")
      ->capture_default_str();
  run->add_option("--load-threshold", o.load_threshold,
                  "Rewrite the load annotation when cpu or memory moved more than this (ratio)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  run->add_option("--log-level", o.log_level, "trace|debug|info|warn|error")->capture_default_str();
  return run;
}

namespace {

struct Intervals {
  std::chrono::milliseconds ib, load, heartbeat;
};

Result<Intervals> parse_intervals(const RunOptions& o) {
  Intervals out{};
  const std::pair<const char*, const std::string*> flags[] = {
      {"--ib-interval", &o.ib_interval}, {"--load-interval", &o.load_interval}, {"--heartbeat", &o.heartbeat}};
  std::chrono::milliseconds* into[] = {&out.ib, &out.load, &out.heartbeat};
  for (size_t i = 0; i < 3; ++i) {
    auto d = weft::kube::parse_duration_at_least(*flags[i].second, std::chrono::milliseconds(100));
    if (!d) return wrap(d.error(), flags[i].first);
    *into[i] = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
  }
  return out;
}

Result<std::unique_ptr<weft::kube::Client>> make_client(const RunOptions& o) {
  weft::kube::ClientOptions options;
  // One small patch per change: a low rate, and a per-call deadline short enough that
  // SIGTERM during a call still exits within 5 s.
  options.qps = 5;
  options.burst = 10;
  options.timeout = std::chrono::milliseconds(3000);
  options.max_attempts = 3;
  // Flag > $KUBECONFIG > in-cluster service account > ~/.kube/config.
  auto config = weft::kube::resolve_config(o.kubeconfig, weft::kube::current_environment());
  if (!config) return wrap(config.error(), "API config");
  auto client = weft::kube::Client::from_config(*config, options);
  if (!client) return wrap(client.error(), config->source);
  spdlog::info("publishing to {} ({})", client.value()->address(), config->source);
  return client;
}

// The pods' groups for the load collector: as given, else the --load-cgroup group (the
// demo's node), else kubelet's places (empty: the collector's default).
Result<std::vector<std::string>> pod_roots(const RunOptions& o) {
  weft::load::HostFiles files;
  if (!o.pod_cgroup_roots.empty() || o.load_cgroup.empty()) return o.pod_cgroup_roots;
  auto mount = weft::load::cgroup2_mount(files);
  if (!mount) return wrap(mount.error(), "--load-cgroup");
  auto dir = weft::load::resolve_cgroup_dir(files, *mount, o.load_cgroup);
  if (!dir) return dir.error();
  return std::vector<std::string>{*dir};
}

}  // namespace

int run_daemon(const RunOptions& o) {
  if (auto s = setup_logging("weft-agent", o.log_level); !s) {
    spdlog::error("{}", s.message());
    return 2;
  }
  std::string node = o.node_name;
  if (node.empty()) {
    if (const char* env = std::getenv("NODE_NAME")) node = env;
  }
  if (node.empty()) {
    spdlog::error("run: no node name (give --node-name or set NODE_NAME from the downward API)");
    return 2;
  }
  auto intervals = parse_intervals(o);
  if (!intervals) {
    spdlog::error("run: {}", intervals.message());
    return 2;
  }
  auto listen = parse_listen(o.listen);
  if (!listen) {
    spdlog::error("run: {}", listen.message());
    return 2;
  }

  // SIGTERM/SIGINT end the wait below; every thread started after this inherits the mask.
  weft::StopSignal stop;

  std::string why;
  auto ib = make_ib_source({.backend = o.ib_backend, .compute_devices = weft::ib::device_list(o.compute_devices), .sysfs_root = o.sysfs_root,
                            .nvml_library = o.nvml_library == "none" ? "" : o.nvml_library},
                           &why);
  if (!ib) {
    spdlog::error("run: --ib-backend {}: {}", o.ib_backend, ib.message());
    return 2;
  }
  spdlog::info("ib: {}", why);
  // The CPU ratio of a window needs only its first and last reading, so one reading per
  // summary is enough; the window is the 60 s the weft.dev/load annotation promises.
  // --load-cgroup: simulated nodes sharing one machine each measure their own cgroup.
  // Pods are named from the API, so without it there are no pod series.
  LoadSourceOptions load_options;
  load_options.backend = o.load_backend;
  load_options.period = intervals->load;
  load_options.window = std::max(intervals->load, std::chrono::milliseconds(60000));
  load_options.pods = !o.no_pod_metrics && !o.no_publish;
  if (o.load_cgroup_node_cpus > 0) {
    if (o.load_cgroup.empty() || o.load_cgroup_cpus <= 0) {
      spdlog::error("run: --load-cgroup-node-cpus needs --load-cgroup and a positive --load-cgroup-cpus");
      return 2;
    }
    load_options.pod_cpu_scale = o.load_cgroup_node_cpus / o.load_cgroup_cpus;
  }
  for (const auto& root : o.pod_cgroup_roots) {
    if (!weft::load::HostFiles().exists(root)) {
      spdlog::error("run: --pod-cgroup-root {}: does not exist", root);
      return 2;
    }
  }
  if (load_options.pods) {
    auto roots = pod_roots(o);
    if (!roots) {
      spdlog::error("run: --pod-cgroup-root: {}", roots.message());
      return 2;
    }
    load_options.pod_roots = std::move(roots.value());
  }
  auto load = o.load_cgroup.empty() ? make_load_source(load_options, &why)
                                    : make_cgroup_node_source(o.load_cgroup, o.load_cgroup_cpus, load_options, &why);
  if (!load) {
    spdlog::error("run: --load-backend {}: {}", o.load_backend, load.message());
    return 2;
  }
  spdlog::info("load: {}", why);
  std::unique_ptr<NodeApi> api;
  std::unique_ptr<KubePodDirectory> pods;
  if (!o.no_publish) {
    auto made = make_client(o);
    if (!made) {
      spdlog::error("run: {}", made.message());
      return 2;
    }
    api = std::make_unique<KubeNodeApi>(std::move(made.value()));
    if (load_options.pods) {
      // A client of its own: the watch holds a connection for minutes at a time.
      auto client = make_client(o);
      if (!client) {
        spdlog::error("run: pods: {}", client.message());
        return 2;
      }
      auto directory = KubePodDirectory::start(std::move(client.value()), node);
      if (!directory) {
        spdlog::error("run: pods: {}", directory.message());
        return 2;
      }
      pods = std::move(directory.value());
      spdlog::info("pods: usage per pod from its cgroup, named by a watch of pods with spec.nodeName={}", node);
    }
  }
  if (!pods) spdlog::info("pods: no per-pod series ({})", o.no_publish ? "--no-publish: no API to name them" : "--no-pod-metrics");

  // Loading the eBPF programs parsed the kernel's BTF (several MB, freed again); hand
  // that heap back to the system instead of keeping it resident for the agent's life.
  malloc_trim(0);

  AgentState state(node);
  AgentMetrics metrics(state, WEFT_VERSION);
  HttpServer http({
      .metrics =
          [&metrics] {
            const auto start = std::chrono::steady_clock::now();
            std::string text = metrics.render();
            metrics.scrape(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            return text;
          },
      .ready = [&state] { return state.ready(); },
      .probe = [&state] { return probe_json(state.view()).dump(2) + "\n"; },
  });
  auto port = http.start(*listen);
  if (!port) {
    spdlog::error("run: {}", port.message());
    return 2;
  }
  spdlog::info("serving on http://{}:{} (/metrics /healthz /readyz /probe) for node {}", listen->host, *port, node);

  DaemonOptions options;
  options.ib_interval = intervals->ib;
  options.load_interval = intervals->load;
  options.publisher.heartbeat = std::chrono::duration_cast<std::chrono::seconds>(intervals->heartbeat);
  options.publisher.load_threshold = o.load_threshold;
  options.publisher.resync = std::max(options.publisher.heartbeat, std::chrono::seconds(30));
  Daemon daemon(*ib.value(), *load.value(), api.get(), state, metrics, node, options);
  daemon.set_pod_directory(pods.get());
  daemon.start();

  const int sig = stop.wait();
  spdlog::info("{}: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  http.stop();
  if (!daemon.stop(std::chrono::milliseconds(4000))) {
    // A collector or API call is still blocked; nothing is half-written (a merge patch
    // is one request), so leave without waiting for it.
    spdlog::warn("a probe or API call did not finish in 4 s; exiting without it");
    spdlog::shutdown();
    std::_Exit(0);
  }
  spdlog::info("stopped");
  return 0;
}

}  // namespace weft::agent
