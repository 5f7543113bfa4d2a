// Where a cycle's node load comes from: `--load prometheus=URL|file=F|annotations`, or
// each profile's LoadAware.metrics when no flag is given.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "descheduler/app/node_metrics_collector.h"
#include "descheduler/core/cluster.h"
#include "descheduler/core/load.h"
#include "descheduler/core/policy.h"
#include "kube/client/client.h"

namespace weft::descheduler {

struct LoadSpec {
  enum class Kind { Prometheus, File, Annotations, KubernetesMetrics };
  Kind kind = Kind::Prometheus;
  std::string value;   // URL or file path (KubernetesMetrics: the scenario file, or empty for the API)
  std::string describe() const;
};

// "prometheus=http://..", "file=load.json", "annotations".
Result<LoadSpec> parse_load_spec(const std::string& text);
// A profile's metrics section as a spec; an error when Prometheus has no address.
Result<LoadSpec> load_spec_of(const PolicyProfile& profile);

// One load a cycle reads, and the profiles (Policy::profiles indices) whose LoadAware or
// LowNodeUtilization plans on it.
struct LoadRead {
  LoadSpec spec;
  MetricsArgs metrics;   // how a Prometheus source is queried (and authenticated)
  std::vector<size_t> profiles;
};

// What the policy's LoadAware and LowNodeUtilization (on metrics) profiles read, one read
// per distinct source: each profile's own (load_spec_of), or `flag` (--load) for every one
// of them. LowNodeUtilization on requests reads nothing.
Result<std::vector<LoadRead>> load_reads(const Policy& policy, const std::optional<LoadSpec>& flag);

// Reads the load. A Prometheus that cannot be reached is not an error: the report comes
// back with source_error (every node unknown). An unreadable or malformed file is.
// KubernetesMetrics lists metrics.k8s.io/v1beta1 nodes and pods through `client` (a
// failed list: source_error), or reads NodeMetrics and PodMetrics from the scenario file.
// With `node_usage` (run --interval), node usage is its average rather than one listing.
Result<LoadReport> fetch_load(const LoadSpec& spec, const MetricsArgs& metrics, const Cluster& cluster, TimePoint now,
                              kube::Client* client = nullptr, const NodeMetricsCollector* node_usage = nullptr);
// metrics-server's NodeMetrics, listed through `client`.
Result<nlohmann::json> list_node_metrics(kube::Client& client);
// Whether a read is metrics-server's through the API (what NodeMetricsCollector averages).
bool reads_metrics_server(const std::vector<LoadRead>& reads);

// Whether fetch_load reads `cluster` (annotations, metrics.k8s.io); a file or Prometheus
// does not, so a cycle may read it while the cluster is being listed.
bool load_reads_cluster(const LoadSpec& spec);

// Reading a cycle's loads: those that do not read the cluster start at once on their own
// threads (with `not_listed`, which must outlive them) while the cluster is listed; the
// others when it is. One read per LoadRead; the first error ends it.
using ReadLoadFn = std::function<Result<LoadReport>(const LoadRead& read, const Cluster& cluster)>;
// Whether this process may raise a thread back from idle priority (CAP_SYS_NICE or an
// RLIMIT_NICE of 20 or more): an early read is idle only then, else at nice 5.
bool may_leave_idle_priority();
class LoadReader {
 public:
  LoadReader(const std::vector<LoadRead>& reads, ReadLoadFn read, const Cluster& not_listed);
  ~LoadReader();
  Result<std::vector<LoadReport>> finish(const Cluster& cluster);

 private:
  struct Early;   // a read started at once, on a thread of its own
  const std::vector<LoadRead>& reads_;
  ReadLoadFn read_;
  std::vector<std::unique_ptr<Early>> early_;   // per read; null: read in finish()
};

// Per profile (Policy::profiles index), the load its plugins read (null: none).
std::vector<const LoadReport*> loads_by_profile(const std::vector<LoadRead>& reads,
                                                const std::vector<LoadReport>& loads, size_t profiles);

}  // namespace weft::descheduler
