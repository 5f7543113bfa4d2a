#include "descheduler/app/load_source.h"

#include <linux/capability.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>

#include "descheduler/app/prometheus_load.h"
#include "descheduler/core/kubernetes_metrics.h"
#include "kube/file_text.h"
#include "kube/scenario.h"

namespace weft::descheduler {

std::string LoadSpec::describe() const {
  switch (kind) {
    case Kind::Prometheus: return "prometheus=" + value;
    case Kind::File: return "file=" + value;
    case Kind::Annotations: return "annotations";
    case Kind::KubernetesMetrics: return value.empty() ? "metrics.k8s.io" : "metrics.k8s.io objects in " + value;
  }
  return "?";
}

Result<LoadSpec> parse_load_spec(const std::string& text) {
  LoadSpec spec;
  auto starts = [&](const char* p) { return text.rfind(p, 0) == 0; };
  if (text == "annotations") {
    spec.kind = LoadSpec::Kind::Annotations;
  } else if (starts("prometheus=")) {
    spec.kind = LoadSpec::Kind::Prometheus;
    spec.value = text.substr(11);
    if (spec.value.rfind("http://", 0) != 0 && spec.value.rfind("https://", 0) != 0)
      return make_error("--load " + text + ": the Prometheus address must start with http:// or https://");
  } else if (starts("file=")) {
    spec.kind = LoadSpec::Kind::File;
    spec.value = text.substr(5);
    if (spec.value.empty()) return make_error("--load file=: no file named");
  } else {
    return make_error("--load '" + text + "': use prometheus=URL, file=F or annotations");
  }
  return spec;
}

Result<LoadSpec> load_spec_of(const PolicyProfile& profile) {
  const MetricsArgs& m = profile.load_aware.metrics;
  // LowNodeUtilization reads no load: the annotations source costs nothing to "fetch".
  if (m.type == MetricsType::Annotations || profile.load_aware.requests_only) return LoadSpec{LoadSpec::Kind::Annotations, ""};
  if (m.type == MetricsType::KubernetesMetrics) return LoadSpec{LoadSpec::Kind::KubernetesMetrics, ""};
  if (m.address.empty())
    return make_error("policy LoadAware.metrics has type Prometheus but no address (or give --load prometheus=URL)");
  return parse_load_spec("prometheus=" + m.address);
}

Result<std::vector<LoadRead>> load_reads(const Policy& policy, const std::optional<LoadSpec>& flag) {
  std::vector<LoadRead> out;
  for (size_t i = 0; i < policy.profiles.size(); ++i) {
    const PolicyProfile& profile = policy.profiles[i];
    if (!profile.reads_load()) continue;   // LowNodeUtilization on requests reads nothing
    auto spec = flag ? Result<LoadSpec>(*flag) : load_spec_of(profile);
    if (!spec) return spec.error();
    const MetricsArgs& metrics = profile.load_aware.metrics;
    // The same source read the same way is read once.
    auto same = std::find_if(out.begin(), out.end(), [&](const LoadRead& r) {
      return r.spec.kind == spec->kind && r.spec.value == spec->value &&
             (spec->kind != LoadSpec::Kind::Prometheus || r.metrics == metrics);
    });
    if (same == out.end()) same = out.insert(out.end(), LoadRead{*spec, metrics, {}});
    same->profiles.push_back(i);
  }
  return out;
}

namespace {

// metrics-server's objects, listed through the API, the nodes' usage averaged by the
// collector once it has read them. Nodes not listed: every node is unknown; pods not
// listed: victims are sized by their requests (as with Prometheus).
LoadReport kubernetes_metrics_from_api(kube::Client& client, const Cluster& cluster,
                                       const NodeMetricsCollector* node_usage) {
  const std::string source = "metrics.k8s.io/v1beta1";
  std::optional<nlohmann::json> averaged = node_usage ? node_usage->node_metrics() : std::nullopt;
  nlohmann::json node_items;
  if (averaged) {
    node_items = std::move(*averaged);
  } else {
    auto nodes = list_node_metrics(client);
    if (!nodes) {
      LoadReport down;
      down.source_name = source;
      down.source_error = nodes.message();
      return down;
    }
    node_items = std::move(*nodes);
  }
  auto pods = client.list({"metrics.k8s.io", "v1beta1", "pods", true}, "");
  nlohmann::json pod_items = pods ? nlohmann::json(std::move(pods->items)) : nlohmann::json::array();
  LoadReport report = load_from_kubernetes_metrics(node_items, pod_items, cluster, source);
  if (!pods) report.pods_error = pods.message();
  return report;
}

Result<LoadReport> kubernetes_metrics_from_file(const std::string& path, const Cluster& cluster) {
  auto objects = kube::load_objects_file(path);
  if (!objects) return objects.error();
  nlohmann::json nodes = nlohmann::json::array(), pods = nlohmann::json::array();
  for (auto& o : *objects) {
    const nlohmann::json& kind = o.object["kind"];
    if (kind == "NodeMetrics") nodes.push_back(std::move(o.object));
    else if (kind == "PodMetrics") pods.push_back(std::move(o.object));
  }
  return load_from_kubernetes_metrics(nodes, pods, cluster, "metrics.k8s.io objects in " + path);
}

}  // namespace

Result<LoadReport> fetch_load(const LoadSpec& spec, const MetricsArgs& metrics, const Cluster& cluster, TimePoint now,
                              kube::Client* client, const NodeMetricsCollector* node_usage) {
  switch (spec.kind) {
    case LoadSpec::Kind::KubernetesMetrics:
      if (!spec.value.empty()) return kubernetes_metrics_from_file(spec.value, cluster);
      if (!client) return make_error("metrics.k8s.io: no API client (plan reads NodeMetrics from the scenario)");
      return kubernetes_metrics_from_api(*client, cluster, node_usage);
    case LoadSpec::Kind::Annotations: return load_from_annotations(cluster);
    case LoadSpec::Kind::Prometheus: return PrometheusLoad(spec.value, metrics).fetch(now);
    case LoadSpec::Kind::File: {
      auto text = kube::FileText::open(spec.value);   // mapped: no copy of a file with 100,000 pods
      if (!text) return make_error("load file " + spec.value + ": cannot be read");
      return parse_load_file(text->view(), spec.value);
    }
  }
  return make_error("unknown load source");
}

Result<nlohmann::json> list_node_metrics(kube::Client& client) {
  auto nodes = client.list({"metrics.k8s.io", "v1beta1", "nodes", false}, "");
  if (!nodes) return nodes.error();
  return nlohmann::json(std::move(nodes->items));
}

bool reads_metrics_server(const std::vector<LoadRead>& reads) {
  return std::any_of(reads.begin(), reads.end(), [](const LoadRead& r) {
    return r.spec.kind == LoadSpec::Kind::KubernetesMetrics && r.spec.value.empty();
  });
}

bool load_reads_cluster(const LoadSpec& spec) {
  return spec.kind == LoadSpec::Kind::Annotations || spec.kind == LoadSpec::Kind::KubernetesMetrics;
}

namespace {

// A load read early runs beside the cluster's two reading threads, on a machine that may
// have two cores: as an idle-priority thread (SCHED_IDLE) it takes only the CPU they leave
// (while the cluster is finished and the Deschedule plugins run, one thread's work) rather
// than slow them down. (At nice 5 it took about a third of a core from them.) But an idle
// thread gets nothing while anything else on the machine runs: once the cycle waits for
// it, it is raised back to normal priority. Going back needs CAP_SYS_NICE or an
// RLIMIT_NICE of 20 or more; without either the read runs at nice 5, which never starves.
void yield_to_the_cluster(bool idle) {
  const sched_param none{};
  if (idle) (void)::sched_setscheduler(::gettid(), SCHED_IDLE, &none);
  else (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 5);   // this thread only, on Linux
}

}  // namespace

bool may_leave_idle_priority() {
  rlimit nice{};
  if (::getrlimit(RLIMIT_NICE, &nice) == 0 && (nice.rlim_cur == RLIM_INFINITY || nice.rlim_cur >= 20)) return true;
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
  return ::syscall(SYS_capget, &header, data) == 0 && (data[0].effective & (1u << CAP_SYS_NICE)) != 0;
}

// A read started at once on a thread of its own, at idle priority until awaited.
struct LoadReader::Early {
  std::future<Result<LoadReport>> result;

  // On the read's thread, before it reads and after.
  void lower_priority(bool idle) {
    std::lock_guard lock(mutex);
    if (awaited) return;
    yield_to_the_cluster(idle);
    if (idle) idle_thread = ::gettid();
  }
  void read_done() {
    std::lock_guard lock(mutex);
    idle_thread = 0;
  }
  // Whoever waits for the result: the read runs at normal priority from now on.
  void await() {
    std::lock_guard lock(mutex);
    awaited = true;
    const sched_param none{};
    if (idle_thread != 0) (void)::sched_setscheduler(idle_thread, SCHED_OTHER, &none);
    idle_thread = 0;
  }

 private:
  std::mutex mutex;
  bool awaited = false;
  pid_t idle_thread = 0;
};

LoadReader::LoadReader(const std::vector<LoadRead>& reads, ReadLoadFn read, const Cluster& not_listed)
    : reads_(reads), read_(std::move(read)), early_(reads.size()) {
  const bool idle = may_leave_idle_priority();
  for (size_t i = 0; i < reads_.size(); ++i) {
    if (load_reads_cluster(reads_[i].spec)) continue;
    auto early = std::make_unique<Early>();
    early->result = std::async(std::launch::async, [this, i, &not_listed, idle, e = early.get()] {
      e->lower_priority(idle);
      auto fetched = read_(reads_[i], not_listed);
      e->read_done();
      return fetched;
    });
    early_[i] = std::move(early);
  }
}

// A read still running is waited for (by its future) here too.
LoadReader::~LoadReader() {
  for (auto& early : early_)
    if (early) early->await();
}

Result<std::vector<LoadReport>> LoadReader::finish(const Cluster& cluster) {
  std::vector<LoadReport> out;
  for (size_t i = 0; i < reads_.size(); ++i) {
    Early* early = early_[i] && early_[i]->result.valid() ? early_[i].get() : nullptr;   // once
    if (early) early->await();
    auto fetched = early ? early->result.get() : read_(reads_[i], cluster);
    if (!fetched) return fetched.error();
    out.push_back(std::move(*fetched));
  }
  return out;
}

std::vector<const LoadReport*> loads_by_profile(const std::vector<LoadRead>& reads,
                                                const std::vector<LoadReport>& loads, size_t profiles) {
  std::vector<const LoadReport*> out(profiles, nullptr);
  for (size_t i = 0; i < reads.size() && i < loads.size(); ++i)
    for (size_t p : reads[i].profiles) out[p] = &loads[i];
  return out;
}

}  // namespace weft::descheduler
