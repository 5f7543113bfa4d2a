// The storage objects kube-scheduler's volume filters read, as the snapshot keeps them:
// v1 PersistentVolume and PersistentVolumeClaim, storage.k8s.io/v1 StorageClass and
// CSINode, and what a Pod's spec.volumes asks of them. Absent fields mean the API's
// defaults; what the filters cannot honour is refused with the field named.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/selector.h"

namespace weft::scheduler {

inline constexpr const char* kSelectedNodeAnnotation = "volume.kubernetes.io/selected-node";
inline constexpr const char* kBindCompletedAnnotation = "pv.kubernetes.io/bind-completed";

struct PersistentVolumeInfo {
  std::string name;
  int64_t capacity = 0;                    // spec.capacity.storage, milli
  std::vector<std::string> access_modes;
  std::string storage_class;               // spec.storageClassName (else the beta annotation)
  std::string volume_mode = "Filesystem";
  std::string phase;                       // status.phase; "" when not stated
  std::string claim;                       // spec.claimRef "ns/name", "" when unclaimed
  std::string claim_uid;
  std::optional<kube::NodeAffinity> node_affinity;   // spec.nodeAffinity.required
  kube::Labels labels;
  std::string csi_driver, csi_handle;      // spec.csi
  bool deleting = false;
  bool available() const { return phase.empty() || phase == "Available"; }
};

struct ClaimInfo {
  std::string key;                         // "ns/name"
  std::string uid;
  std::vector<std::string> access_modes;
  int64_t request = 0;                     // spec.resources.requests.storage, milli
  std::string storage_class;               // the beta annotation, else spec.storageClassName, else ""
  std::string volume_name;                 // spec.volumeName
  std::string volume_mode = "Filesystem";
  std::optional<kube::LabelSelector> selector;
  std::string selected_node;               // volume.kubernetes.io/selected-node
  std::string phase;                       // status.phase
  std::string owner_pod_uid;               // the controlling ownerReference of kind Pod (ephemeral volumes)
  bool bind_completed = false;             // pv.kubernetes.io/bind-completed
  bool deleting = false;
  // kube-scheduler's "fully bound": a volume named and the bind completed.
  bool bound() const { return !volume_name.empty() && bind_completed; }
  bool read_write_once_pod() const;
};

struct StorageClassInfo {
  std::string name;
  std::string provisioner;
  bool wait_for_first_consumer = false;    // volumeBindingMode; Immediate when absent
  // allowedTopologies: terms ORed, each a list of (key, values) ANDed; empty: anywhere.
  std::vector<std::vector<std::pair<std::string, std::vector<std::string>>>> allowed_topologies;
  bool allows(const kube::InternedLabels& node_labels) const;
};

struct CSINodeInfo {
  std::string name;
  std::map<std::string, int64_t> limits;   // driver -> spec.drivers[].allocatable.count (drivers without one: no limit)
};

struct StorageObjects {
  std::map<std::string, PersistentVolumeInfo> volumes;   // by name
  std::map<std::string, ClaimInfo> claims;               // by "ns/name"
  std::map<std::string, StorageClassInfo> classes;       // by name
  std::map<std::string, CSINodeInfo> csi_nodes;          // by node name

  static bool reads(const std::string& kind);            // PersistentVolume, PersistentVolumeClaim, ...
  // Adds one object of a kind reads() accepts; errors name `where` and the field.
  Status add(const std::string& kind, const nlohmann::json& object, const std::string& where);
  const ClaimInfo* claim(const std::string& key) const;
  const PersistentVolumeInfo* volume(const std::string& name) const;
  const StorageClassInfo* storage_class(const std::string& name) const;
};

// kube-scheduler's PreBind for a pod bound this cycle: its unbound delayed claim gets its
// static volume (the PV's spec.claimRef) or the node it is provisioned on (the claim's
// volume.kubernetes.io/selected-node), before the pod is bound.
struct ClaimWrite {
  std::string pod;            // "ns/name": written before this pod's binding
  std::string claim;          // "ns/name"
  std::string claim_uid;
  std::string volume;         // set: bind this PV to the claim
  std::string selected_node;  // set: provision the claim on this node
};

// What a pod's spec.volumes asks of the storage objects.
struct PodVolume {
  std::string name;                        // spec.volumes[].name
  std::string claim;                       // the claim's name in the pod's namespace ("" for inline CSI)
  bool ephemeral = false;                  // spec.volumes[].ephemeral: claim <pod>-<volume>
  std::string csi_driver;                  // inline spec.volumes[].csi.driver
  // An in-tree disk VolumeRestrictions checks for conflicts: gcePersistentDisk (pdName),
  // awsElasticBlockStore (volumeID), iscsi (iqn), rbd (pool/image on its monitors).
  std::string disk_type, disk_id;
  std::vector<std::string> monitors;
  bool read_only = false;
  bool conflicts_with(const PodVolume& other) const;
};
struct PodVolumes {
  std::vector<PodVolume> volumes;
  std::string pod_uid;                     // whose ephemeral claims these are (their owner)
  bool uses_claims() const;
};

// Decodes spec.volumes (its JSON text, "null" when absent) of the pod `pod_name`: null
// when it uses no claim and no inline CSI volume. Errors name the field.
Result<std::shared_ptr<const PodVolumes>> pod_volumes_of(const std::string& volumes_text, const std::string& pod_name,
                                                         const std::string& pod_uid);

}  // namespace weft::scheduler
