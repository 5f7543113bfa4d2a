// The cluster as `weft-scheduler run` sees it: informers for every kind the core reads,
// plus what this process wrote and the watches have not shown yet (bindings, PodGroup
// status), so a cycle never plans on capacity it already gave away and never writes the
// same status twice. Evicted pods stay as they are until the API deletes them: they hold
// their node until they are gone.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/client/client.h"
#include "kube/client/informer.h"

namespace weft::scheduler {

// One kind the scheduler watches. Optional kinds (Volcano CRDs, PriorityClasses) may be
// missing from a cluster: a 404 on the first list leaves them out with a warning.
struct WatchedKind {
  kube::ResourceRef ref;
  std::string api_version;
  std::string kind;
  bool required = true;
};
std::vector<WatchedKind> watched_kinds();

class ClusterCache {
 public:
  explicit ClusterCache(kube::Client& client);
  ~ClusterCache();

  // Probes optional kinds, then starts one informer per kind that exists.
  Status start();
  void stop();
  bool synced() const;
  bool wait_for_sync(std::chrono::milliseconds timeout);

  // Every cached object (apiVersion and kind set, as the scenario loader gives them),
  // in a stable order, with this process's pending bindings and evictions applied.
  std::vector<nlohmann::json> snapshot();

  // A binding the API accepted; shown in snapshots until the pod watch reports it.
  void assume_bound(const std::string& pod_key, const std::string& uid, const std::string& node);
  void forget_bound(const std::string& pod_key);
  // A PodGroup status the API accepted; shown instead of the cached one until the cached
  // object changes from `cached_version` (the version the cycle decided on).
  void assume_status(const std::string& podgroup_key, const nlohmann::json& status,
                     const std::string& cached_version);

  std::vector<std::string> absent_kinds() const { return absent_; }

 private:
  struct Assumed {
    std::string uid;
    std::string node;
  };
  struct AssumedStatus {
    nlohmann::json status;
    std::string cached_version;
  };
  void overlay_pods(std::vector<nlohmann::json>& pods);
  void overlay_podgroups(std::vector<nlohmann::json>& podgroups);

  kube::Client& client_;
  std::vector<std::pair<WatchedKind, std::unique_ptr<kube::Informer>>> informers_;
  std::vector<std::string> absent_;
  std::mutex mu_;
  std::map<std::string, Assumed> assumed_;
  std::map<std::string, AssumedStatus> statuses_;
};

}  // namespace weft::scheduler
