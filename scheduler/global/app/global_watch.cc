#include "scheduler/global/app/global_watch.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "kube/objects.h"
#include "scheduler/global/core/objects.h"

namespace weft::scheduler::global {

namespace refs {
kube::ResourceRef clusters() { return {"cluster.karmada.io", "v1alpha1", "clusters", false}; }
kube::ResourceRef resource_bindings() { return {"work.karmada.io", "v1alpha2", "resourcebindings", true}; }
kube::ResourceRef volcano_jobs() { return {"batch.volcano.sh", "v1alpha1", "jobs", true}; }
}  // namespace refs

namespace res = kube::resources;

GlobalWatch::GlobalWatch(kube::Client& control_plane, std::map<std::string, kube::Client*> members)
    : control_plane_(control_plane), members_(std::move(members)) {}

GlobalWatch::~GlobalWatch() { stop(); }

void GlobalWatch::watch(kube::Client& client, const Kind& kind) {
  const std::string where = kind.member.empty() ? "control plane" : "member " + kind.member;
  if (!kind.required) {
    auto page = client.list_page(kind.ref, "", kube::ListOptions{.limit = 1});
    if (!page && page.error().code == 404) {
      spdlog::warn("{}: {} is not served ({}); going on without it", where, kind.kind, page.message());
      return;
    }
  }
  kube::InformerOptions options;
  options.transform = [kind](nlohmann::json& o) {
    kube::strip_managed_fields(o);
    o["apiVersion"] = kind.api_version;
    o["kind"] = kind.kind;
    if (!kind.member.empty()) o["metadata"]["annotations"][kMemberAnnotation] = kind.member;
  };
  auto informer = std::make_unique<kube::Informer>(client, kind.ref, "", options);
  informer->start();
  informers_.emplace_back(kind, std::move(informer));
}

void GlobalWatch::start() {
  const kube::ResourceRef priority_classes{"scheduling.k8s.io", "v1", "priorityclasses", false};
  for (const Kind& k : {Kind{refs::clusters(), "cluster.karmada.io/v1alpha1", "Cluster", "", true},
                        Kind{refs::resource_bindings(), "work.karmada.io/v1alpha2", "ResourceBinding", "", true},
                        Kind{res::queues(), "scheduling.volcano.sh/v1beta1", "Queue", "", false},
                        Kind{refs::volcano_jobs(), "batch.volcano.sh/v1alpha1", "Job", "", false},
                        Kind{priority_classes, "scheduling.k8s.io/v1", "PriorityClass", "", false},
                        Kind{{"apps", "v1", "deployments", true}, "apps/v1", "Deployment", "", false},
                        Kind{{"apps", "v1", "statefulsets", true}, "apps/v1", "StatefulSet", "", false},
                        Kind{{"apps", "v1", "replicasets", true}, "apps/v1", "ReplicaSet", "", false},
                        Kind{{"batch", "v1", "jobs", true}, "batch/v1", "Job", "", false}})
    watch(control_plane_, k);
  for (const auto& [name, client] : members_)
    for (const Kind& k : {Kind{res::nodes(), "v1", "Node", name, true}, Kind{res::pods(), "v1", "Pod", name, true},
                          Kind{res::hypernodes(), "topology.volcano.sh/v1alpha1", "HyperNode", name, false}})
      watch(*client, k);
}

void GlobalWatch::stop() {
  for (auto& [kind, informer] : informers_) informer->stop();
}

bool GlobalWatch::synced() const {
  return std::all_of(informers_.begin(), informers_.end(), [](const auto& p) { return p.second->has_synced(); });
}

std::vector<WatchedObject> GlobalWatch::objects() const {
  std::vector<WatchedObject> out;
  for (const auto& [kind, informer] : informers_) {
    const std::string where = (kind.member.empty() ? "control plane" : "member " + kind.member) + ": " + kind.kind + " ";
    for (const auto& o : informer->items()) out.push_back({*o, where + kube::key_of(*o)});
  }
  return out;
}

}  // namespace weft::scheduler::global
