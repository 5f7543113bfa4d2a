#include "node-agent/daemon/collector_sources.h"

#include "collectors/nvlink/nvlink.h"
#include "node-agent/daemon/cgroup_load_source.h"
#include "node-agent/daemon/ib_adapter.h"
#include "node-agent/daemon/load_adapter.h"

namespace weft::agent {

Result<std::unique_ptr<IbSource>> make_ib_source(const IbSourceOptions& o, std::string* why) {
  if (o.backend != "auto" && o.backend != "umad" && o.backend != "verbs")
    return make_error("'" + o.backend + "' is not auto, umad or verbs");
  weft::ib::ProbeOptions options;
  options.backend = o.backend;
  options.sysfs_root = o.sysfs_root;
  options.compute_devices = o.compute_devices;
  if (why) *why = "--ib-backend " + o.backend + " (each probe reports which backend served each port)";
  auto nvlink = o.nvml_library.empty() ? nullptr : weft::nvlink::make_nvml_source(o.nvml_library);
  return std::unique_ptr<IbSource>(std::make_unique<CollectorIbSource>(std::move(options), std::move(nvlink)));
}

namespace {

weft::load::MonitorOptions monitor_options(const LoadSourceOptions& o) {
  weft::load::MonitorOptions m;
  m.backend = o.backend;
  m.sampling.period = o.period;
  m.sampling.window = o.window;
  m.pods = o.pods;
  m.pod_roots = o.pod_roots;
  return m;
}

}  // namespace

Result<std::unique_ptr<LoadSource>> make_load_source(const LoadSourceOptions& options, std::string* why) {
  auto monitor = weft::load::start_load_monitor(monitor_options(options), why);
  if (!monitor) return monitor.error();
  return std::unique_ptr<LoadSource>(std::make_unique<CollectorLoadSource>(std::move(monitor.value()), options.period));
}

Result<std::unique_ptr<LoadSource>> make_cgroup_node_source(const std::string& cgroup, double cpus,
                                                            const LoadSourceOptions& options, std::string* why) {
  auto node = make_cgroup_load_source(cgroup, cpus, why);
  if (!node || !options.pods) return node;
  auto m = monitor_options(options);
  m.backend = "procfs";
  std::string pods_why;
  auto pods = weft::load::start_load_monitor(m, &pods_why);
  if (!pods) return wrap(pods.error(), "pods of --load-cgroup " + cgroup);
  if (why) *why += "; pods' usage from their groups' cpu.stat";
  return std::unique_ptr<LoadSource>(std::make_unique<NodeLoadWithPods>(std::move(node.value()), std::move(pods.value()),
                                                                        options.pod_cpu_scale));
}

}  // namespace weft::agent
