// Where a cycle's node load comes from: `--load prometheus=URL|file=F|annotations`, or
// the policy's LoadAware.metrics when no flag is given.
#pragma once

#include <string>

#include "common/result.h"
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
// The policy's metrics section as a spec; an error when Prometheus has no address.
Result<LoadSpec> load_spec_from_policy(const Policy& policy);

// Reads the load. A Prometheus that cannot be reached is not an error: the report comes
// back with source_error (every node unknown). An unreadable or malformed file is.
// KubernetesMetrics lists metrics.k8s.io/v1beta1 nodes and pods through `client` (a
// failed list: source_error), or reads NodeMetrics and PodMetrics from the scenario file.
Result<LoadReport> fetch_load(const LoadSpec& spec, const Policy& policy, const Cluster& cluster, TimePoint now,
                              kube::Client* client = nullptr);
// Whether fetch_load reads `cluster` (annotations, metrics.k8s.io); a file or Prometheus
// does not, so a cycle may read it while the cluster is being listed.
bool load_reads_cluster(const LoadSpec& spec);

}  // namespace weft::descheduler
