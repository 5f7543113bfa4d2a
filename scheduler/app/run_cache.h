// The cluster as `weft-scheduler run` sees it: informers for every kind the core reads,
// plus what this process wrote and the watches have not shown yet (bindings, PodGroup
// status), so a cycle never plans on capacity it already gave away and never writes the
// same status twice. Evicted pods stay as they are until the API deletes them: they hold
// their node until they are gone.
//
// The informers keep only the fields the core reads (pods and nodes projected, see
// scheduler_projection()), as MessagePack bytes: a few hundred bytes per pod, not the
// API's kilobytes. A field the core starts to read must be added to the projection; the
// scenario tests (tests/scheduler-run) bind through this cache what `simulate` places.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
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

// What the cache keeps of an object of this kind (a kube::project() tree; null: all of
// it but managedFields).
nlohmann::json scheduler_projection(const std::string& kind);
// What the informer keeps of an object: projected, managedFields and kubectl's
// last-applied copy dropped, apiVersion and kind set.
void to_cached_form(nlohmann::json& object, const std::string& api_version, const std::string& kind);

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
  // kind by kind in watched_kinds() order, by key within a kind, with this process's
  // pending bindings and PodGroup statuses applied. One object is decoded at a time.
  void visit(const std::function<void(nlohmann::json& object)>& fn);
  // The same, all at once (tests, small clusters).
  std::vector<nlohmann::json> snapshot();

  // A binding the API accepted; shown in snapshots until the pod watch reports it.
  void assume_bound(const std::string& pod_key, const std::string& uid, const std::string& node);
  void forget_bound(const std::string& pod_key);
  // A PodGroup status the API accepted; shown instead of the cached one until the cached
  // object changes from `cached_version` (the version the cycle decided on).
  void assume_status(const std::string& podgroup_key, const nlohmann::json& status,
                     const std::string& cached_version);
  void forget_status(const std::string& podgroup_key);

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
  // Applies what was assumed to one object; `seen` collects the keys that still exist.
  void overlay_pod(const std::string& key, nlohmann::json& pod, std::set<std::string>& seen);
  void overlay_podgroup(const std::string& key, nlohmann::json& pg, std::set<std::string>& seen);

  kube::Client& client_;
  std::vector<std::pair<WatchedKind, std::unique_ptr<kube::Informer>>> informers_;
  std::vector<std::string> absent_;
  std::mutex mu_;
  std::map<std::string, Assumed> assumed_;
  std::map<std::string, AssumedStatus> statuses_;
};

}  // namespace weft::scheduler
