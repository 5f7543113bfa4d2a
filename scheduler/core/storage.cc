#include "scheduler/core/storage.h"

#include <algorithm>
#include <array>
#include <set>

#include "kube/client/json_reader.h"
#include "kube/objects.h"
#include "kube/quantity.h"
#include "kube/json_field.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;

using kube::json_at;
using kube::field_error;
Result<std::string> string_at(const json& obj, const char* key, const std::string& where, const std::string& field) {
  const json& v = json_at(obj, key);
  if (v.is_null()) return std::string();
  if (!v.is_string()) return field_error(where, field, v.dump() + " is not a string");
  return v.get<std::string>();
}

Result<std::vector<std::string>> strings_at(const json& obj, const char* key, const std::string& where,
                                            const std::string& field) {
  const json& v = json_at(obj, key);
  std::vector<std::string> out;
  if (v.is_null()) return out;
  if (!v.is_array()) return field_error(where, field, "not a list");
  for (const auto& s : v) {
    if (!s.is_string()) return field_error(where, field, s.dump() + " is not a string");
    out.push_back(s.get<std::string>());
  }
  return out;
}

Result<int64_t> storage_at(const json& list, const std::string& where, const std::string& field) {
  const json& v = json_at(list, "storage");
  if (v.is_null()) return int64_t{0};
  auto q = kube::parse_quantity_milli(v);
  if (!q) return field_error(where, field + ".storage", q.message());
  return *q;
}

std::string annotation(const json& o, const char* key) {
  const json& v = json_at(json_at(json_at(o, "metadata"), "annotations"), key);
  return v.is_string() ? v.get<std::string>() : "";
}

Status add_volume(StorageObjects& s, const json& o, const std::string& where) {
  PersistentVolumeInfo pv;
  pv.name = kube::name_of(o);
  const json& spec = json_at(o, "spec");
  auto capacity = storage_at(json_at(spec, "capacity"), where, "spec.capacity");
  if (!capacity) return capacity.error();
  pv.capacity = *capacity;
  auto modes = strings_at(spec, "accessModes", where, "spec.accessModes");
  if (!modes) return modes.error();
  pv.access_modes = std::move(*modes);
  auto cls = string_at(spec, "storageClassName", where, "spec.storageClassName");
  if (!cls) return cls.error();
  pv.storage_class = *cls;
  if (std::string beta = annotation(o, "volume.beta.kubernetes.io/storage-class"); !beta.empty()) pv.storage_class = beta;
  auto mode = string_at(spec, "volumeMode", where, "spec.volumeMode");
  if (!mode) return mode.error();
  if (!mode->empty()) pv.volume_mode = *mode;
  auto phase = string_at(json_at(o, "status"), "phase", where, "status.phase");
  if (!phase) return phase.error();
  pv.phase = *phase;
  if (const json& ref = json_at(spec, "claimRef"); ref.is_object()) {
    auto ns = string_at(ref, "namespace", where, "spec.claimRef.namespace");
    auto name = string_at(ref, "name", where, "spec.claimRef.name");
    auto uid = string_at(ref, "uid", where, "spec.claimRef.uid");
    for (auto* r : {&ns, &name, &uid})
      if (!*r) return r->error();
    pv.claim = (ns->empty() ? std::string("default") : *ns) + "/" + *name;
    pv.claim_uid = *uid;
  }
  if (const json& required = json_at(json_at(spec, "nodeAffinity"), "required"); !required.is_null()) {
    json as_pod = {{"spec", {{"affinity", {{"nodeAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", required}}}}}}}};
    auto affinity = kube::NodeAffinity::from_pod(as_pod);
    if (!affinity) return field_error(where, "spec.nodeAffinity.required", affinity.message());
    pv.node_affinity = std::move(*affinity);
  }
  pv.labels = kube::labels_of(o);
  if (const json& csi = json_at(spec, "csi"); csi.is_object()) {
    auto driver = string_at(csi, "driver", where, "spec.csi.driver");
    auto handle = string_at(csi, "volumeHandle", where, "spec.csi.volumeHandle");
    if (!driver) return driver.error();
    if (!handle) return handle.error();
    pv.csi_driver = *driver;
    pv.csi_handle = *handle;
  }
  pv.deleting = json_at(json_at(o, "metadata"), "deletionTimestamp").is_string();
  s.volumes[pv.name] = std::move(pv);
  return {};
}

Status add_claim(StorageObjects& s, const json& o, const std::string& where) {
  ClaimInfo c;
  std::string ns = kube::namespace_of(o);
  c.key = (ns.empty() ? "default" : ns) + "/" + kube::name_of(o);
  c.uid = json_at(json_at(o, "metadata"), "uid").is_string() ? json_at(json_at(o, "metadata"), "uid").get<std::string>() : "";
  const json& spec = json_at(o, "spec");
  auto modes = strings_at(spec, "accessModes", where, "spec.accessModes");
  if (!modes) return modes.error();
  c.access_modes = std::move(*modes);
  auto request = storage_at(json_at(json_at(spec, "resources"), "requests"), where, "spec.resources.requests");
  if (!request) return request.error();
  c.request = *request;
  auto cls = string_at(spec, "storageClassName", where, "spec.storageClassName");
  if (!cls) return cls.error();
  c.storage_class = *cls;
  if (std::string beta = annotation(o, "volume.beta.kubernetes.io/storage-class"); !beta.empty()) c.storage_class = beta;
  auto volume = string_at(spec, "volumeName", where, "spec.volumeName");
  if (!volume) return volume.error();
  c.volume_name = *volume;
  auto mode = string_at(spec, "volumeMode", where, "spec.volumeMode");
  if (!mode) return mode.error();
  if (!mode->empty()) c.volume_mode = *mode;
  if (const json& sel = json_at(spec, "selector"); !sel.is_null()) {
    auto selector = kube::LabelSelector::from_json(sel);
    if (!selector) return field_error(where, "spec.selector", selector.message());
    c.selector = std::move(*selector);
  }
  c.selected_node = annotation(o, kSelectedNodeAnnotation);
  c.bind_completed = json_at(json_at(json_at(o, "metadata"), "annotations"), kBindCompletedAnnotation).is_string();
  auto phase = string_at(json_at(o, "status"), "phase", where, "status.phase");
  if (!phase) return phase.error();
  c.phase = *phase;
  for (const auto& ref : json_at(json_at(o, "metadata"), "ownerReferences"))
    if (json_at(ref, "kind") == "Pod" && json_at(ref, "controller") == true && json_at(ref, "uid").is_string())
      c.owner_pod_uid = json_at(ref, "uid").get<std::string>();
  c.deleting = json_at(json_at(o, "metadata"), "deletionTimestamp").is_string();
  s.claims[c.key] = std::move(c);
  return {};
}

Status add_class(StorageObjects& s, const json& o, const std::string& where) {
  StorageClassInfo sc;
  sc.name = kube::name_of(o);
  auto provisioner = string_at(o, "provisioner", where, "provisioner");
  if (!provisioner) return provisioner.error();
  sc.provisioner = *provisioner;
  auto mode = string_at(o, "volumeBindingMode", where, "volumeBindingMode");
  if (!mode) return mode.error();
  if (*mode != "" && *mode != "Immediate" && *mode != "WaitForFirstConsumer")
    return field_error(where, "volumeBindingMode", "'" + *mode + "' is not Immediate or WaitForFirstConsumer");
  sc.wait_for_first_consumer = *mode == "WaitForFirstConsumer";
  const json& terms = json_at(o, "allowedTopologies");
  for (size_t i = 0; terms.is_array() && i < terms.size(); ++i) {
    std::vector<std::pair<std::string, std::vector<std::string>>> term;
    const json& exprs = json_at(terms[i], "matchLabelExpressions");
    for (size_t j = 0; exprs.is_array() && j < exprs.size(); ++j) {
      std::string field = "allowedTopologies[" + std::to_string(i) + "].matchLabelExpressions[" + std::to_string(j) + "]";
      auto key = string_at(exprs[j], "key", where, field + ".key");
      auto values = strings_at(exprs[j], "values", where, field + ".values");
      if (!key) return key.error();
      if (!values) return values.error();
      term.emplace_back(*key, std::move(*values));
    }
    sc.allowed_topologies.push_back(std::move(term));
  }
  s.classes[sc.name] = std::move(sc);
  return {};
}

Status add_csi_node(StorageObjects& s, const json& o, const std::string& where) {
  CSINodeInfo n;
  n.name = kube::name_of(o);
  const json& drivers = json_at(json_at(o, "spec"), "drivers");
  for (size_t i = 0; drivers.is_array() && i < drivers.size(); ++i) {
    std::string field = "spec.drivers[" + std::to_string(i) + "]";
    auto name = string_at(drivers[i], "name", where, field + ".name");
    if (!name) return name.error();
    const json& count = json_at(json_at(drivers[i], "allocatable"), "count");
    if (count.is_null()) continue;
    if (!count.is_number_integer() || count.get<int64_t>() < 0)
      return field_error(where, field + ".allocatable.count", count.dump() + " is not a count");
    n.limits[*name] = count.get<int64_t>();
  }
  s.csi_nodes[n.name] = std::move(n);
  return {};
}

// The in-tree volume types kube-scheduler's VolumeRestrictions compares, and their id.
const std::array<std::pair<const char*, const char*>, 4> kDisks = {{{"gcePersistentDisk", "pdName"},
                                                                    {"awsElasticBlockStore", "volumeID"},
                                                                    {"iscsi", "iqn"},
                                                                    {"rbd", "image"}}};
// The spec.volumes[] keys that make a pod's volumes worth decoding.
const std::array<const char*, 7> kVolumeKinds = {"persistentVolumeClaim", "ephemeral", "csi", "gcePersistentDisk",
                                                 "awsElasticBlockStore", "iscsi", "rbd"};

// Whether the volume is one of kDisks (then `into` names it).
Result<bool> disk_of(const json& v, const std::string& field, PodVolume& into) {
  for (const auto& [type, id_key] : kDisks) {
    const json& d = json_at(v, type);
    if (d.is_null()) continue;
    const std::string f = field + "." + type;
    auto id = string_at(d, id_key, "", f + "." + id_key);
    if (!id) return id.error();
    into.disk_type = type;
    into.disk_id = *id;
    if (std::string(type) == "rbd") {
      auto pool = string_at(d, "pool", "", f + ".pool");
      auto monitors = strings_at(d, "monitors", "", f + ".monitors");
      if (!pool) return pool.error();
      if (!monitors) return monitors.error();
      into.disk_id = (pool->empty() ? std::string("rbd") : *pool) + "/" + *id;
      into.monitors = std::move(*monitors);
    }
    const json& ro = json_at(d, "readOnly");
    if (!ro.is_null() && !ro.is_boolean()) return make_error(f + ".readOnly: " + ro.dump() + " is not true or false");
    into.read_only = ro.is_boolean() && ro.get<bool>();
    return true;
  }
  return false;
}

}  // namespace

bool ClaimInfo::read_write_once_pod() const {
  return std::find(access_modes.begin(), access_modes.end(), "ReadWriteOncePod") != access_modes.end();
}

bool StorageClassInfo::allows(const kube::InternedLabels& node_labels) const {
  if (allowed_topologies.empty()) return true;
  for (const auto& term : allowed_topologies) {
    bool all = true;
    for (const auto& [key, values] : term) {
      const std::string* v = node_labels.find(key);
      all = all && v && std::find(values.begin(), values.end(), *v) != values.end();
    }
    if (all) return true;
  }
  return false;
}

bool StorageObjects::reads(const std::string& kind) {
  return kind == "PersistentVolume" || kind == "PersistentVolumeClaim" || kind == "StorageClass" || kind == "CSINode" ||
         kind == "CSIDriver";
}

Status StorageObjects::add(const std::string& kind, const json& o, const std::string& where) {
  if (kind == "PersistentVolume") return add_volume(*this, o, where);
  if (kind == "PersistentVolumeClaim") return add_claim(*this, o, where);
  if (kind == "StorageClass") return add_class(*this, o, where);
  if (kind == "CSINode") return add_csi_node(*this, o, where);
  return {};   // CSIDriver: read by no filter weft has (storage capacity tracking is not built)
}

const ClaimInfo* StorageObjects::claim(const std::string& key) const {
  auto it = claims.find(key);
  return it == claims.end() ? nullptr : &it->second;
}

const PersistentVolumeInfo* StorageObjects::volume(const std::string& name) const {
  auto it = volumes.find(name);
  return it == volumes.end() ? nullptr : &it->second;
}

const StorageClassInfo* StorageObjects::storage_class(const std::string& name) const {
  auto it = classes.find(name);
  return it == classes.end() ? nullptr : &it->second;
}

bool PodVolume::conflicts_with(const PodVolume& o) const {
  if (disk_type.empty() || disk_type != o.disk_type || disk_id != o.disk_id) return false;
  if (disk_type == "awsElasticBlockStore") return true;
  if (disk_type == "rbd" && std::none_of(monitors.begin(), monitors.end(), [&](const std::string& m) {
        return std::find(o.monitors.begin(), o.monitors.end(), m) != o.monitors.end();
      }))
    return false;
  return !(read_only && o.read_only);
}

bool PodVolumes::uses_claims() const {
  return std::any_of(volumes.begin(), volumes.end(), [](const PodVolume& v) { return !v.claim.empty(); });
}

Result<std::shared_ptr<const PodVolumes>> pod_volumes_of(const std::string& text, const std::string& pod_name,
                                                         const std::string& pod_uid) {
  // Most pods mount no claim and no CSI volume: their text is not parsed.
  if (std::none_of(kVolumeKinds.begin(), kVolumeKinds.end(),
                   [&](const char* kind) { return text.find(kind) != std::string::npos; }))
    return std::shared_ptr<const PodVolumes>();
  auto tree = kube::read_json(text);
  if (!tree) return tree.error();
  if (!tree->is_array()) return make_error("spec.volumes: not a list");
  PodVolumes out;
  out.pod_uid = pod_uid;
  for (size_t i = 0; i < tree->size(); ++i) {
    const json& v = (*tree)[i];
    const std::string field = "spec.volumes[" + std::to_string(i) + "]";
    PodVolume pv;
    auto name = string_at(v, "name", "", field + ".name");
    if (!name) return name.error();
    pv.name = *name;
    if (const json& claim = json_at(v, "persistentVolumeClaim"); !claim.is_null()) {
      auto claim_name = string_at(claim, "claimName", "", field + ".persistentVolumeClaim.claimName");
      if (!claim_name) return claim_name.error();
      if (claim_name->empty()) return make_error(field + ".persistentVolumeClaim.claimName: missing");
      pv.claim = *claim_name;
    } else if (!json_at(v, "ephemeral").is_null()) {
      pv.claim = pod_name + "-" + pv.name;
      pv.ephemeral = true;
    } else if (const json& csi = json_at(v, "csi"); !csi.is_null()) {
      auto driver = string_at(csi, "driver", "", field + ".csi.driver");
      if (!driver) return driver.error();
      pv.csi_driver = *driver;
    } else if (auto disk = disk_of(v, field, pv); !disk) {
      return disk.error();
    } else if (!*disk) {
      continue;
    }
    out.volumes.push_back(std::move(pv));
  }
  if (out.volumes.empty()) return std::shared_ptr<const PodVolumes>();
  return std::shared_ptr<const PodVolumes>(std::make_shared<const PodVolumes>(std::move(out)));
}

}  // namespace weft::scheduler
