#include "scheduler/core/plugins/volumes/binding.h"

#include <algorithm>
#include <unordered_map>

namespace weft::scheduler {
namespace {

std::string claim_key(const PodInfo& pod, const PodVolume& v) { return std::string(pod.namespace_name) + "/" + v.claim; }

bool has_mode(const std::vector<std::string>& modes, const std::string& mode) {
  return std::find(modes.begin(), modes.end(), mode) != modes.end();
}

// kube-scheduler's delayed binding: the claim's class says WaitForFirstConsumer.
bool delayed(const StorageObjects& storage, const ClaimInfo& c) {
  const StorageClassInfo* cls = c.storage_class.empty() ? nullptr : storage.storage_class(c.storage_class);
  return cls && cls->wait_for_first_consumer;
}

// The smallest available volume the claim may bind on the node (a volume pre-bound to
// the claim first), as the PV controller's matcher in the scheduler's path.
const PersistentVolumeInfo* matching_volume(const StorageObjects& storage, const ClaimInfo& c, const NodeInfo& node,
                                            const std::set<std::string>& taken) {
  const PersistentVolumeInfo* best = nullptr;
  for (const auto& [name, pv] : storage.volumes) {
    const bool prebound = pv.claim == c.key && (pv.claim_uid.empty() || pv.claim_uid == c.uid);
    if (!pv.claim.empty() && !prebound) continue;
    if (pv.capacity < c.request || pv.volume_mode != c.volume_mode || pv.deleting) continue;
    const bool fits_node = !pv.node_affinity || pv.node_affinity->matches(node.name, node.labels);
    if (prebound) return fits_node ? &pv : nullptr;
    if (taken.count(name) || !pv.available()) continue;
    if (c.selector && !c.selector->matches(pv.labels)) continue;
    if (pv.storage_class != c.storage_class || !fits_node) continue;
    // The modes by name: clang 14 refuses a lambda capturing a structured binding.
    const auto& modes = pv.access_modes;
    if (!std::all_of(c.access_modes.begin(), c.access_modes.end(),
                     [&](const std::string& m) { return has_mode(modes, m); }))
      continue;
    if (!best || pv.capacity < best->capacity) best = &pv;
  }
  return best;
}

// Provisioning on the node: the class has a provisioner and allows the node.
bool provisionable(const StorageObjects& storage, const ClaimInfo& c, const NodeInfo& node) {
  const StorageClassInfo* cls = storage.storage_class(c.storage_class);
  if (!cls || cls->provisioner.empty() || cls->provisioner == "kubernetes.io/no-provisioner") return false;
  return cls->allows(node.labels);
}

}  // namespace

std::string claims_reject_pod(const StorageObjects& storage, const PodInfo& pod) {
  if (!pod.volumes) return "";
  for (const auto& v : pod.volumes->volumes) {
    if (v.claim.empty()) continue;
    const ClaimInfo* c = storage.claim(claim_key(pod, v));
    if (!c)
      return v.ephemeral ? "waiting for ephemeral volume controller to create the persistentvolumeclaim \"" + v.claim + "\""
                         : "persistentvolumeclaim \"" + v.claim + "\" not found";
    if (c->phase == "Lost")
      return "persistentvolumeclaim \"" + v.claim + "\" bound to non-existent persistentvolume \"" + c->volume_name + "\"";
    if (c->deleting) return "persistentvolumeclaim \"" + v.claim + "\" is being deleted";
    if (v.ephemeral && c->owner_pod_uid != pod.volumes->pod_uid)
      return "PVC " + c->key + " was not created for pod " + pod.key + " (pod is not owner)";
    if (c->bound()) continue;
    if (!c->storage_class.empty() && !storage.storage_class(c->storage_class))
      return "storageclass.storage.k8s.io \"" + c->storage_class + "\" not found";
    if (!delayed(storage, *c) || !c->volume_name.empty()) return kUnboundImmediate;
  }
  return "";
}

std::string claims_reject_node(const StorageObjects& storage, const PodInfo& pod, const NodeInfo& node,
                               const std::set<std::string>& taken, std::vector<ClaimPlan>* plans) {
  if (!pod.volumes) return "";
  if (std::string why = claims_reject_pod(storage, pod); !why.empty()) return why;
  std::set<std::string> chosen = taken;
  for (const auto& v : pod.volumes->volumes) {
    if (v.claim.empty()) continue;
    const ClaimInfo& c = *storage.claim(claim_key(pod, v));
    if (c.bound()) {
      const PersistentVolumeInfo* pv = storage.volume(c.volume_name);
      if (!pv) return kVolumeMissing;
      if (pv->node_affinity && !pv->node_affinity->matches(node.name, node.labels)) return kVolumeNodeConflict;
      continue;
    }
    if (!c.selected_node.empty()) {   // provisioning under way for the node it names
      if (c.selected_node != node.name) return kBindConflict;
      if (plans) plans->push_back({c.key, ""});
      continue;
    }
    if (const PersistentVolumeInfo* pv = matching_volume(storage, c, node, chosen)) {
      chosen.insert(pv->name);
      if (plans) plans->push_back({c.key, pv->name});
      continue;
    }
    if (!provisionable(storage, c, node)) return kBindConflict;
    if (plans) plans->push_back({c.key, ""});
  }
  return "";
}

std::vector<ClaimWrite> prebind_writes(const Snapshot& snap, const std::vector<Binding>& bindings) {
  std::vector<ClaimWrite> out;
  if (snap.storage.claims.empty()) return out;
  std::unordered_map<std::string_view, const PodInfo*> pods;
  for (const auto& p : snap.pods)
    if (p.volumes) pods.emplace(p.key, &p);
  std::unordered_map<std::string_view, const NodeInfo*> nodes;
  for (const auto& n : snap.nodes) nodes.emplace(n.name, &n);
  std::set<std::string> taken, planned;
  for (const auto& b : bindings) {
    auto p = pods.find(b.pod);
    auto n = nodes.find(b.node);
    if (p == pods.end() || n == nodes.end()) continue;
    std::vector<ClaimPlan> plans;
    if (!claims_reject_node(snap.storage, *p->second, *n->second, taken, &plans).empty()) continue;
    for (const auto& plan : plans) {
      if (!planned.insert(plan.claim).second) continue;   // a claim shared by pods of the cycle: once
      const ClaimInfo& c = *snap.storage.claim(plan.claim);
      if (!plan.volume.empty()) taken.insert(plan.volume);
      if (!c.selected_node.empty() && plan.volume.empty()) continue;   // already asked of its provisioner
      out.push_back({b.pod, plan.claim, c.uid, plan.volume, plan.volume.empty() ? b.node : ""});
    }
  }
  return out;
}

}  // namespace weft::scheduler
