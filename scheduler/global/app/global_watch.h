// What `weft-scheduler global run` watches: on the control plane Karmada's Clusters and
// ResourceBindings, Volcano Queues and Jobs, PriorityClasses, the workloads (Deployments,
// StatefulSets, ReplicaSets, batch Jobs) where the API serves them; on each member its Nodes,
// Pods and HyperNodes, handed out with the annotation weft.dev/member-cluster: NAME.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/client/client.h"
#include "kube/client/informer.h"

namespace weft::scheduler::global {

struct WatchedObject {
  nlohmann::json object;
  std::string where;                // "control plane: ResourceBinding ml/train", "member m1: Node n1"
};

class GlobalWatch {
 public:
  GlobalWatch(kube::Client& control_plane, std::map<std::string, kube::Client*> members);
  ~GlobalWatch();
  // Probes optional kinds (a 404 leaves them out with a warning), starts the informers.
  void start();
  void stop();
  bool synced() const;
  std::vector<WatchedObject> objects() const;

 private:
  struct Kind {
    kube::ResourceRef ref;
    std::string api_version, kind, member;   // member "" = the control plane
    bool required = true;
  };
  void watch(kube::Client& client, const Kind& kind);

  kube::Client& control_plane_;
  std::map<std::string, kube::Client*> members_;
  std::vector<std::pair<Kind, std::unique_ptr<kube::Informer>>> informers_;
};

namespace refs {
kube::ResourceRef clusters();
kube::ResourceRef resource_bindings();
kube::ResourceRef volcano_jobs();
}  // namespace refs

}  // namespace weft::scheduler::global
