// Who the pods on this node are, for the per-pod load series: a pod's cgroup names it
// by metadata.uid (kubelet) or "<namespace>-<name>" (weft-node-runtime, the demo); the
// API gives the namespace and name. PodIndex is the pure index (fed with pod objects),
// KubePodDirectory keeps one current with an informer over this node's pods.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/client/client.h"
#include "node-agent/daemon/sources.h"

namespace weft::kube {
class Informer;
}

namespace weft::agent {

// Names each pod from the directory and drops those it does not know (not, or not yet,
// in the API: their series would have no namespace or name). No directory: all go.
void name_pods(const PodDirectory* directory, std::vector<PodLoad>& pods);

class PodIndex : public PodDirectory {
 public:
  void upsert(const nlohmann::json& pod);
  void remove(const nlohmann::json& pod);
  std::optional<PodName> by_uid(const std::string& uid) const override;
  std::optional<PodName> by_runtime_name(const std::string& runtime_name) const override;
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, PodName> by_uid_;
  std::unordered_map<std::string, PodName> by_runtime_name_;  // "<namespace>-<name>"
};

// Lists and watches pods with fieldSelector spec.nodeName=NODE (RBAC: get, list, watch
// on pods), keeping only their namespace, name and uid.
class KubePodDirectory : public PodDirectory {
 public:
  static Result<std::unique_ptr<KubePodDirectory>> start(std::unique_ptr<weft::kube::Client> client,
                                                         const std::string& node);
  ~KubePodDirectory() override;
  std::optional<PodName> by_uid(const std::string& uid) const override { return index_.by_uid(uid); }
  std::optional<PodName> by_runtime_name(const std::string& runtime_name) const override {
    return index_.by_runtime_name(runtime_name);
  }

 private:
  KubePodDirectory() = default;
  std::unique_ptr<weft::kube::Client> client_;
  PodIndex index_;
  std::unique_ptr<weft::kube::Informer> informer_;
};

}  // namespace weft::agent
