// The cluster as `weft-scheduler run` sees it: informers for every kind the core reads,
// plus what this process wrote and the watches have not shown yet (bindings, PodGroup
// status), so a cycle never plans on capacity it already gave away and never writes the
// same status twice. Evicted pods stay as they are until the API deletes them: they hold
// their node until they are gone.
//
// Pods and Nodes, the bulk of a cluster, are decoded once per watch event into the core's
// own PodInfo/NodeInfo, so a cycle copies typed records instead of decoding 100,000
// objects; their informers keep only names and versions. A Pod is decoded straight from
// the event's text, a Node likewise (pod_fields.h and node_fields.h read the fields the
// core uses; no JSON tree is built). The other kinds are few and stay as projected
// MessagePack, decoded per cycle. A field the core starts to read must be added to
// PodFields/NodeFields; the scenario tests (tests/scheduler-run) bind through this cache
// what `simulate` places.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/client/client.h"
#include "kube/client/informer.h"
#include "scheduler/core/snapshot.h"

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

// A Pod or a Node as the core reads it, decoded when its watch event arrived. Kept for
// every pod of the cluster, so it holds nothing twice: names live in the PodInfo/NodeInfo.
struct DecodedObject {
  struct Undecodable {
    std::string kind, key, message;   // why the core cannot take it
  };
  std::variant<PodInfo, NodeInfo, Undecodable> value;
  std::string uid, version, created;   // metadata: what bindings, Events and metrics refer to

  const PodInfo* pod() const { return std::get_if<PodInfo>(&value); }
  const NodeInfo* node() const { return std::get_if<NodeInfo>(&value); }
  const Undecodable* undecodable() const { return std::get_if<Undecodable>(&value); }
  const std::string& kind() const;
  const std::string& key() const;   // "ns/name" (pods) or name (nodes)
  // apiVersion, kind and metadata as the applier and the metrics read them.
  nlohmann::json reference() const;
};
using DecodedPtr = std::shared_ptr<const DecodedObject>;
// `pools` (optional) shares repeated texts and constraints across the decoded records.
DecodedPtr decode_object(const nlohmann::json& cached_object, DecodePools* pools = nullptr);
// The same from the object's JSON text as an informer hands it over (InformerOptions::raw:
// already checked as JSON), the cache's path, without any tree; `key` is the informer's.
DecodedPtr decode_object_text(const std::string& kind, const std::string& key, std::string_view text,
                              DecodePools* pools = nullptr);

struct ClusterCacheOptions {
  // false: every Pod and Node is read into a projected JSON tree first and decoded from
  // it, as before decoding from text (the benchmark's baseline).
  bool decode_from_text = true;
};

class ClusterCache {
 public:
  explicit ClusterCache(kube::Client& client, ClusterCacheOptions options = {});
  ~ClusterCache();

  // Probes optional kinds, then starts one informer per kind that exists.
  Status start();
  void stop();
  bool synced() const;
  bool wait_for_sync(std::chrono::milliseconds timeout);

  // What this process wrote about a pod that the watch has not shown yet.
  struct PodOverlay {
    SharedString node;      // bound there; "" when no binding is pending
    bool leaving = false;   // evicted: terminating, though the cached pod does not say so yet
  };
  // Every cached object, kind by kind in watched_kinds() order, by key within a kind,
  // with this process's pending bindings, evictions and PodGroup statuses applied: Pods
  // and Nodes to `decoded` (with the pod's overlay), the other kinds to `other`
  // (apiVersion and kind set, as the scenario loader gives them; one decoded at a time).
  void visit(const std::function<void(nlohmann::json& object)>& other,
             const std::function<void(const DecodedPtr& object, const PodOverlay& overlay)>& decoded);
  // Pods or Nodes decoded so far (a cycle reserves room for them).
  size_t decoded_size(const std::string& kind) const;

  // A binding the API accepted; shown in snapshots until the pod watch reports it.
  void assume_bound(const std::string& pod_key, const std::string& uid, const std::string& node);
  void forget_bound(const std::string& pod_key);
  // An eviction the API accepted: the pod (this uid) is shown terminating until the watch
  // reports it gone or replaced, so a gang never counts a member that is leaving. Safe to
  // call while a visit runs (the applier's thread).
  void assume_evicted(const std::string& pod_key, const std::string& uid);
  // A PodGroup status the API accepted; shown instead of the cached one until the cached
  // object changes from `cached_version` (the version the cycle decided on).
  void assume_status(const std::string& podgroup_key, const nlohmann::json& status,
                     const std::string& cached_version);
  void forget_status(const std::string& podgroup_key);

  std::vector<std::string> absent_kinds() const { return absent_; }

  // Pending pods new to the cache (not updates: the scheduler's own condition writes do
  // not count), and when the newest arrived: what starts a cycle before --period is up.
  uint64_t arrivals() const { return arrivals_.load(); }
  std::chrono::steady_clock::time_point last_arrival() const {
    return std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(last_arrival_.load()));
  }

 private:
  struct Assumed {
    std::string uid;
    SharedString node;
  };
  struct AssumedStatus {
    nlohmann::json status;
    std::string cached_version;
  };
  // What this process wrote about the pod that its watch has not shown yet; `seen` and
  // `still_leaving` collect the keys still assumed.
  PodOverlay overlay_pod(const DecodedObject& pod, std::set<std::string>& seen, std::set<std::string>& still_leaving);
  // Applies an assumed status to one PodGroup; `seen` as above.
  void overlay_podgroup(const std::string& key, nlohmann::json& pg, std::set<std::string>& seen);

  void store(const std::string& kind, const std::string& key, std::string_view text);
  void store(DecodedPtr object);
  void erase(const std::string& kind, const std::string& key);

  kube::Client& client_;
  ClusterCacheOptions options_;
  std::vector<std::pair<WatchedKind, std::unique_ptr<kube::Informer>>> informers_;
  void note_arrival(const std::string& kind, bool inserted, const DecodedObject& d);

  std::atomic<uint64_t> arrivals_{0};
  std::atomic<std::chrono::steady_clock::rep> last_arrival_{0};
  mutable std::mutex decoded_mu_;
  std::map<std::string, std::map<std::string, DecodedPtr>> decoded_;   // kind -> key -> object
  DecodePools pools_;   // what the decoded records share (namespaces, nodes, phases, constraints...)
  std::vector<std::string> absent_;
  std::mutex mu_;
  std::map<std::string, Assumed> assumed_;
  struct Evicted {
    std::string uid;
    uint64_t since_visit = 0;   // visits_ when it was told: a visit under way keeps it
  };
  std::map<std::string, Evicted> evicted_;   // pod key -> what was evicted
  uint64_t visits_ = 0;
  std::map<std::string, AssumedStatus> statuses_;
};

}  // namespace weft::scheduler
