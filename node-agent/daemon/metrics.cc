#include "node-agent/daemon/metrics.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <sstream>

#include <prometheus/text_serializer.h>

namespace weft::agent {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

// Labels sorted by name, so every series reads the same way whatever order the caller used.
ClientMetric sample(std::vector<ClientMetric::Label> labels, double value, MetricType type) {
  ClientMetric m;
  std::sort(labels.begin(), labels.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  m.label = std::move(labels);
  if (type == MetricType::Counter) m.counter.value = value;
  else m.gauge.value = value;
  return m;
}

MetricFamily family(std::string name, std::string help, MetricType type) {
  return MetricFamily{std::move(name), std::move(help), type, {}};
}

double distance_rank(const std::string& cls) {
  return cls == "PIX" ? 1 : cls == "PXB" ? 2 : cls == "PHB" ? 3 : 4;
}

// "xmit_data_bytes" -> "weft_ib_port_xmit_data_bytes_total".
std::string counter_name(const std::string& raw) {
  std::string s;
  for (char c : raw) s += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  if (s.size() > 6 && s.ends_with("_total")) s.resize(s.size() - 6);
  return "weft_ib_port_" + s + "_total";
}

// Produces the machine's series from the last good snapshots at scrape time.
class SnapshotMetrics : public prometheus::Collectable {
 public:
  explicit SnapshotMetrics(const AgentState& state) : state_(state) {}

  std::vector<MetricFamily> Collect() const override {
    const StateView v = state_.view();
    std::vector<MetricFamily> out;
    collect_status(v, out);
    if (v.ib) collect_ib(*v.ib, out);
    if (v.load) collect_load(*v.load, out);
    return out;
  }

 private:
  static void collect_status(const StateView& v, std::vector<MetricFamily>& out) {
    auto stale = family("weft_agent_probe_stale",
                        "1 when the collector's last attempt failed and its metrics and labels are the last good "
                        "values, 0 when they are fresh.",
                        MetricType::Gauge);
    stale.metric.push_back(sample({{"collector", "ib"}}, v.ib_status.stale ? 1 : 0, MetricType::Gauge));
    stale.metric.push_back(sample({{"collector", "load"}}, v.load_status.stale ? 1 : 0, MetricType::Gauge));
    out.push_back(std::move(stale));
    auto last = family("weft_agent_probe_last_success_timestamp_seconds",
                       "Unix time of the collector's last successful probe (0 = never).", MetricType::Gauge);
    auto ts = [](const CollectorStatus& s) {
      return s.successes ? std::chrono::duration<double>(s.last_success.time_since_epoch()).count() : 0.0;
    };
    last.metric.push_back(sample({{"collector", "ib"}}, ts(v.ib_status), MetricType::Gauge));
    last.metric.push_back(sample({{"collector", "load"}}, ts(v.load_status), MetricType::Gauge));
    out.push_back(std::move(last));
  }

  static void collect_ib(const IbSnapshot& ib, std::vector<MetricFamily>& out) {
    auto up = family("weft_ib_port_up", "1 when the RDMA port's logical state is ACTIVE, else 0.", MetricType::Gauge);
    auto rate = family("weft_ib_port_rate_gbps", "Active data rate of the port in Gb/s (width x speed).",
                       MetricType::Gauge);
    auto info = family("weft_ib_port_info",
                       "Constant 1 carrying the port's identity and fabric position as labels.", MetricType::Gauge);
    auto gpu_distance = family("weft_ib_port_gpu_distance",
                               "PCIe distance from the port's HCA to a GPU as NCCL classes it: 1 PIX, 2 PXB, 3 PHB, "
                               "4 SYS (the class is also a label).",
                               MetricType::Gauge);
    std::map<std::string, MetricFamily> counters;
    for (const auto& p : ib.ports) {
      std::vector<ClientMetric::Label> id = {{"device", p.device}, {"port", std::to_string(p.port)}};
      up.metric.push_back(sample(id, p.active() ? 1 : 0, MetricType::Gauge));
      rate.metric.push_back(sample(id, p.rate_gbps, MetricType::Gauge));
      info.metric.push_back(sample({{"device", p.device},
                                    {"port", std::to_string(p.port)},
                                    {"port_guid", p.port_guid},
                                    {"link_layer", p.link_layer},
                                    {"fabric", ib.fabric},
                                    {"leaf", ib.leaf},
                                    {"role", p.role}},
                                   1, MetricType::Gauge));
      for (const auto& [gpu, cls] : p.gpus)
        gpu_distance.metric.push_back(sample({{"device", p.device}, {"port", std::to_string(p.port)}, {"gpu", gpu},
                                              {"class", cls}},
                                             distance_rank(cls), MetricType::Gauge));
      for (const auto& [name, value] : p.counters) {
        const std::string full = counter_name(name);
        auto it = counters.find(full);
        if (it == counters.end()) {
          it = counters.emplace(full, family(full, "IB port counter " + name +
                                                       " (PortCounters/PortCountersExtended), cumulative.",
                                             MetricType::Counter))
                   .first;
        }
        it->second.metric.push_back(sample(id, static_cast<double>(value), MetricType::Counter));
      }
    }
    out.push_back(std::move(up));
    out.push_back(std::move(rate));
    out.push_back(std::move(info));
    if (!gpu_distance.metric.empty()) out.push_back(std::move(gpu_distance));
    auto rails = family("weft_ib_rails",
                        "The node's InfiniBand compute ports (rails; planes count together), all and ACTIVE.",
                        MetricType::Gauge);
    rails.metric.push_back(sample({{"state", "all"}}, ib.rails, MetricType::Gauge));
    rails.metric.push_back(sample({{"state", "active"}}, ib.rails_active, MetricType::Gauge));
    out.push_back(std::move(rails));
    for (auto& [name, fam] : counters) out.push_back(std::move(fam));
    if (ib.sm) {
      auto sm = family("weft_ib_sm_info", "Constant 1 naming the subnet's master SM as seen from this node.",
                       MetricType::Gauge);
      sm.metric.push_back(sample({{"sm_guid", ib.sm->guid}, {"sm_lid", std::to_string(ib.sm->lid)},
                                  {"state", ib.sm->state}},
                                 1, MetricType::Gauge));
      out.push_back(std::move(sm));
    }
  }

  static void collect_load(const LoadSnapshot& load, std::vector<MetricFamily>& out) {
    auto cpu = family("weft_node_cpu_busy_ratio",
                      "Share of CPU time the node was busy (not idle or iowait) over the last load window, 0..1.",
                      MetricType::Gauge);
    cpu.metric.push_back(sample({}, load.cpu, MetricType::Gauge));
    out.push_back(std::move(cpu));
    auto mem = family("weft_node_memory_used_ratio",
                      "Share of memory in use (1 - MemAvailable/MemTotal), 0..1.", MetricType::Gauge);
    mem.metric.push_back(sample({}, load.memory, MetricType::Gauge));
    out.push_back(std::move(mem));
    auto stall = family("weft_node_memory_reclaim_stall_seconds_total",
                        "Seconds tasks spent stalled in direct memory reclaim since the agent started.",
                        MetricType::Counter);
    stall.metric.push_back(sample({}, load.reclaim_stall_seconds_total, MetricType::Counter));
    out.push_back(std::move(stall));
    auto source = family("weft_agent_load_source", "Constant 1 naming the load backend in use (ebpf or procfs).",
                         MetricType::Gauge);
    source.metric.push_back(sample({{"source", load.source}}, 1, MetricType::Gauge));
    out.push_back(std::move(source));
    collect_pods(load.pods, out);
    if (load.runq_histogram) {
      const auto& h = *load.runq_histogram;
      auto fam = family("weft_node_runqueue_latency_seconds",
                        "Time runnable tasks waited on a run queue before running, since the agent started.",
                        MetricType::Histogram);
      ClientMetric m;
      m.histogram.sample_count = h.count;
      m.histogram.sample_sum = h.sum_seconds;
      for (size_t i = 0; i < h.upper_bounds.size() && i < h.cumulative_counts.size(); ++i)
        m.histogram.bucket.push_back({h.cumulative_counts[i], h.upper_bounds[i]});
      m.histogram.bucket.push_back({h.count, std::numeric_limits<double>::infinity()});
      fam.metric.push_back(std::move(m));
      out.push_back(std::move(fam));
    }
  }

  // One series per named pod of the last load snapshot: a pod that went is gone from
  // the next snapshot, so the series stay as many as the node's pods.
  static void collect_pods(const std::vector<PodLoad>& pods, std::vector<MetricFamily>& out) {
    if (pods.empty()) return;
    auto cpu = family("weft_pod_cpu_usage_cores",
                      "CPU cores the pod used, averaged over the load window (its cgroup's CPU time).",
                      MetricType::Gauge);
    auto mem = family("weft_pod_memory_usage_bytes",
                      "Working set of the pod's cgroup: memory.current minus inactive_file, averaged over the "
                      "load window.",
                      MetricType::Gauge);
    for (const auto& p : pods) {
      std::vector<ClientMetric::Label> id = {{"namespace", p.ns}, {"pod", p.name}};
      cpu.metric.push_back(sample(id, p.cpu_cores, MetricType::Gauge));
      if (p.memory_bytes) mem.metric.push_back(sample(id, *p.memory_bytes, MetricType::Gauge));
    }
    out.push_back(std::move(cpu));
    if (!mem.metric.empty()) out.push_back(std::move(mem));
  }

  const AgentState& state_;
};

}  // namespace

AgentMetrics::AgentMetrics(const AgentState& state, const std::string& version)
    : state_(state),
      registry_(std::make_shared<prometheus::Registry>()),
      snapshot_metrics_(std::make_shared<SnapshotMetrics>(state)),
      ib_duration_(prometheus::BuildHistogram()
                       .Name("weft_ib_probe_duration_seconds")
                       .Help("Wall time of one IB probe (ports, SM, neighbours, counters), failed ones included.")
                       .Register(*registry_)
                       .Add({}, prometheus::Histogram::BucketBoundaries{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                                        1, 2.5, 5, 10, 30})),
      probe_errors_(prometheus::BuildCounter()
                        .Name("weft_agent_probe_errors_total")
                        .Help("Failed collector attempts (an error or an exception), by collector.")
                        .Register(*registry_)),
      probes_(prometheus::BuildCounter()
                  .Name("weft_agent_probes_total")
                  .Help("Collector attempts, failed ones included, by collector.")
                  .Register(*registry_)),
      patches_(prometheus::BuildCounter()
                   .Name("weft_agent_node_patches_total")
                   .Help("Merge patches sent to the agent's Node (only sent when a weft.dev/ key changes).")
                   .Register(*registry_)
                   .Add({})),
      publish_errors_(prometheus::BuildCounter()
                          .Name("weft_agent_node_publish_errors_total")
                          .Help("Failed reads or patches of the agent's Node.")
                          .Register(*registry_)
                          .Add({})),
      scrape_duration_(prometheus::BuildHistogram()
                           .Name("weft_agent_scrape_duration_seconds")
                           .Help("Time to render /metrics.")
                           .Register(*registry_)
                           .Add({}, prometheus::Histogram::BucketBoundaries{0.0005, 0.001, 0.0025, 0.005, 0.01,
                                                                            0.025, 0.1})) {
  prometheus::BuildGauge()
      .Name("weft_agent_build_info")
      .Help("Constant 1 carrying the agent's version.")
      .Register(*registry_)
      .Add({{"version", version}})
      .Set(1);
  for (const char* c : {"ib", "load"}) {
    probe_errors_.Add({{"collector", c}});
    probes_.Add({{"collector", c}});
  }
}

void AgentMetrics::ib_probe(double seconds, bool ok) {
  ib_duration_.Observe(seconds);
  probes_.Add({{"collector", "ib"}}).Increment();
  if (!ok) probe_errors_.Add({{"collector", "ib"}}).Increment();
}

void AgentMetrics::load_sample(bool ok) {
  probes_.Add({{"collector", "load"}}).Increment();
  if (!ok) probe_errors_.Add({{"collector", "load"}}).Increment();
}

void AgentMetrics::publish(bool patched, bool failed) {
  if (patched) patches_.Increment();
  if (failed) publish_errors_.Increment();
}

void AgentMetrics::scrape(double seconds) { scrape_duration_.Observe(seconds); }

std::string AgentMetrics::render() const {
  auto families = registry_->Collect();
  auto more = snapshot_metrics_->Collect();
  families.insert(families.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

}  // namespace weft::agent
