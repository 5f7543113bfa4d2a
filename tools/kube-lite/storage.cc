#include "tools/kube-lite/storage.h"

#include <algorithm>
#include <set>

#include "kube/quantity.h"

namespace weft::kube_lite {

using nlohmann::json;

namespace {

const json& at(const json& obj, const char* name) {
  static const json null_value;
  if (!obj.is_object()) return null_value;
  auto it = obj.find(name);
  return it == obj.end() ? null_value : *it;
}

std::string quoted_list(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "\"" : ", \"") + v + "\"";
  return out;
}

void check_enum(const json& v, const std::string& field, const std::vector<std::string>& supported,
                std::vector<FieldError>& out) {
  if (v.is_null()) return;
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (std::find(supported.begin(), supported.end(), s) == supported.end())
    out.push_back({field, "Unsupported value: \"" + s + "\": supported values: " + quoted_list(supported)});
}

void check_access_modes(const json& modes, const std::string& field, const std::string& required,
                        std::vector<FieldError>& out) {
  if (!modes.is_array() || modes.empty()) {
    out.push_back({field, required});
    return;
  }
  bool once_pod = false;
  for (const auto& m : modes) {
    check_enum(m, field, {"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}, out);
    once_pod = once_pod || m == "ReadWriteOncePod";
  }
  if (once_pod && modes.size() > 1)
    out.push_back({field, "Forbidden: may not use ReadWriteOncePod with other access modes"});
}

void check_quantity(const json& v, const std::string& field, std::vector<FieldError>& out) {
  auto q = kube::parse_quantity_milli(v);
  if (!q) out.push_back({field, "Invalid value: " + v.dump() + ": " + q.message()});
}

// Node selector terms (PV node affinity): at least one, each with a key and an operator.
void check_node_affinity(const json& affinity, std::vector<FieldError>& out) {
  const json& terms = at(at(affinity, "required"), "nodeSelectorTerms");
  if (!terms.is_array() || terms.empty()) {
    out.push_back({"spec.nodeAffinity.required.nodeSelectorTerms",
                   "Required value: must have at least one node selector term"});
    return;
  }
  for (size_t i = 0; i < terms.size(); ++i)
    for (const char* part : {"matchExpressions", "matchFields"}) {
      const json& reqs = at(terms[i], part);
      for (size_t j = 0; reqs.is_array() && j < reqs.size(); ++j) {
        std::string field = "spec.nodeAffinity.required.nodeSelectorTerms[" + std::to_string(i) + "]." + part + "[" +
                            std::to_string(j) + "]";
        if (!at(reqs[j], "key").is_string() || at(reqs[j], "key").get<std::string>().empty())
          out.push_back({field + ".key", "Required value"});
        check_enum(at(reqs[j], "operator"), field + ".operator", {"DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn"},
                   out);
      }
    }
}

const std::vector<std::string>& pv_sources() {
  static const std::vector<std::string> sources = {
      "gcePersistentDisk", "awsElasticBlockStore", "hostPath",     "glusterfs", "nfs",        "rbd",
      "iscsi",             "cinder",               "cephfs",       "fc",        "flocker",    "flexVolume",
      "azureFile",         "vsphereVolume",        "quobyte",      "azureDisk", "photonPersistentDisk",
      "portworxVolume",    "scaleIO",              "local",        "storageos", "csi"};
  return sources;
}

void validate_pv(const json& o, std::vector<FieldError>& out) {
  const json& spec = at(o, "spec");
  const json& capacity = at(spec, "capacity");
  if (!capacity.is_object() || capacity.empty()) {
    out.push_back({"spec.capacity", "Required value"});
  } else {
    for (const auto& [k, v] : capacity.items())
      if (k != "storage") out.push_back({"spec.capacity", "Unsupported value: \"" + k + "\": supported values: \"storage\""});
    if (!capacity.contains("storage")) out.push_back({"spec.capacity", "Required value: storage"});
    else check_quantity(capacity["storage"], "spec.capacity[storage]", out);
  }
  check_access_modes(at(spec, "accessModes"), "spec.accessModes", "Required value", out);
  check_enum(at(spec, "persistentVolumeReclaimPolicy"), "spec.persistentVolumeReclaimPolicy",
             {"Delete", "Recycle", "Retain"}, out);
  check_enum(at(spec, "volumeMode"), "spec.volumeMode", {"Block", "Filesystem"}, out);
  int sources = 0;
  for (const auto& s : pv_sources()) {
    if (at(spec, s.c_str()).is_null()) continue;
    if (++sources > 1) out.push_back({"spec." + s, "Forbidden: may not specify more than 1 volume type"});
  }
  if (sources == 0) out.push_back({"spec", "Required value: must specify a volume type"});
  const json& local = at(spec, "local");
  if (!local.is_null() && (!at(local, "path").is_string() || at(local, "path").get<std::string>().empty()))
    out.push_back({"spec.local.path", "Required value"});
  const json& host_path = at(spec, "hostPath");
  if (!host_path.is_null() && (!at(host_path, "path").is_string() || at(host_path, "path").get<std::string>().empty()))
    out.push_back({"spec.hostPath.path", "Required value"});
  const json& csi = at(spec, "csi");
  for (const char* f : {"driver", "volumeHandle"})
    if (!csi.is_null() && (!at(csi, f).is_string() || at(csi, f).get<std::string>().empty()))
      out.push_back({std::string("spec.csi.") + f, "Required value"});
  const json& affinity = at(spec, "nodeAffinity");
  if (!affinity.is_null()) check_node_affinity(affinity, out);
  else if (!local.is_null()) out.push_back({"spec.nodeAffinity", "Required value: Local volume requires node affinity"});
}

void validate_pvc(const json& o, std::vector<FieldError>& out) {
  const json& spec = at(o, "spec");
  check_access_modes(at(spec, "accessModes"), "spec.accessModes", "Required value: at least 1 access mode is required",
                     out);
  const json& storage = at(at(at(spec, "resources"), "requests"), "storage");
  if (storage.is_null()) out.push_back({"spec.resources[storage]", "Required value"});
  else check_quantity(storage, "spec.resources[storage]", out);
  check_enum(at(spec, "volumeMode"), "spec.volumeMode", {"Block", "Filesystem"}, out);
}

void validate_class(const json& o, std::vector<FieldError>& out) {
  if (!at(o, "provisioner").is_string() || at(o, "provisioner").get<std::string>().empty())
    out.push_back({"provisioner", "Required value"});
  check_enum(at(o, "reclaimPolicy"), "reclaimPolicy", {"Delete", "Retain"}, out);
  check_enum(at(o, "volumeBindingMode"), "volumeBindingMode", {"Immediate", "WaitForFirstConsumer"}, out);
  const json& terms = at(o, "allowedTopologies");
  for (size_t i = 0; terms.is_array() && i < terms.size(); ++i) {
    const json& exprs = at(terms[i], "matchLabelExpressions");
    std::string field = "allowedTopologies[" + std::to_string(i) + "].matchLabelExpressions";
    if (!exprs.is_array() || exprs.empty()) out.push_back({field, "Required value: must have at least one label expression"});
    for (size_t j = 0; exprs.is_array() && j < exprs.size(); ++j) {
      std::string f = field + "[" + std::to_string(j) + "]";
      if (!at(exprs[j], "key").is_string() || at(exprs[j], "key").get<std::string>().empty())
        out.push_back({f + ".key", "Required value"});
      if (!at(exprs[j], "values").is_array() || at(exprs[j], "values").empty())
        out.push_back({f + ".values", "Required value: must specify as least one value"});
    }
  }
}

void validate_csinode(const json& o, std::vector<FieldError>& out) {
  const json& drivers = at(at(o, "spec"), "drivers");
  std::set<std::string> seen;
  for (size_t i = 0; drivers.is_array() && i < drivers.size(); ++i) {
    std::string field = "spec.drivers[" + std::to_string(i) + "]";
    const json& d = drivers[i];
    std::string name = at(d, "name").is_string() ? at(d, "name").get<std::string>() : "";
    if (name.empty()) out.push_back({field + ".name", "Required value"});
    else if (!seen.insert(name).second) out.push_back({field + ".name", "Duplicate value: \"" + name + "\""});
    if (!at(d, "nodeID").is_string() || at(d, "nodeID").get<std::string>().empty())
      out.push_back({field + ".nodeID", "Required value"});
    const json& count = at(at(d, "allocatable"), "count");
    if (!count.is_null() && (!count.is_number_integer() || count.get<int64_t>() < 0))
      out.push_back({field + ".allocatable.count", "Invalid value: " + count.dump() + ": must be greater than or equal to 0"});
  }
}

void immutable(const json& before, const json& after, const std::string& field, std::vector<FieldError>& out) {
  if (before != after) out.push_back({field, "Invalid value: " + after.dump() + ": field is immutable"});
}

}  // namespace

bool is_storage_type(const ResourceType& type) {
  static const std::set<std::string> plurals{"persistentvolumes", "persistentvolumeclaims", "storageclasses",
                                             "csinodes", "csidrivers"};
  return (type.group.empty() || type.group == "storage.k8s.io") && plurals.count(type.plural);
}

void default_storage_object(const ResourceType& type, json& o, bool from_state) {
  const std::string& p = type.plural;
  auto fill = [](json& obj, const char* key, json value) {
    if (!obj.contains(key) || obj[key].is_null()) obj[key] = std::move(value);
  };
  if (p == "persistentvolumes" || p == "persistentvolumeclaims") {
    if (!o.contains("spec") || !o["spec"].is_object()) o["spec"] = json::object();
    fill(o["spec"], "volumeMode", "Filesystem");
    if (p == "persistentvolumes") fill(o["spec"], "persistentVolumeReclaimPolicy", "Retain");
    if (!from_state) o["status"] = {{"phase", "Pending"}};
  } else if (p == "storageclasses") {
    fill(o, "reclaimPolicy", "Delete");
    fill(o, "volumeBindingMode", "Immediate");
  } else if (p == "csidrivers") {
    if (!o.contains("spec") || !o["spec"].is_object()) o["spec"] = json::object();
    json& s = o["spec"];
    fill(s, "attachRequired", true);
    fill(s, "podInfoOnMount", false);
    fill(s, "volumeLifecycleModes", json::array({"Persistent"}));
    fill(s, "storageCapacity", false);
    fill(s, "fsGroupPolicy", "ReadWriteOnceWithFSType");
    fill(s, "requiresRepublish", false);
    fill(s, "seLinuxMount", false);
  }
}

std::vector<FieldError> validate_storage_object(const ResourceType& type, const json& o) {
  std::vector<FieldError> out;
  const std::string& p = type.plural;
  if (p == "persistentvolumes") validate_pv(o, out);
  else if (p == "persistentvolumeclaims") validate_pvc(o, out);
  else if (p == "storageclasses") validate_class(o, out);
  else if (p == "csinodes") validate_csinode(o, out);
  return out;
}

std::vector<FieldError> validate_storage_update(const ResourceType& type, const json& before, const json& after) {
  std::vector<FieldError> out = validate_storage_object(type, after);
  const std::string& p = type.plural;
  const json& old_spec = at(before, "spec");
  const json& new_spec = at(after, "spec");
  if (p == "persistentvolumes") {
    json old_source = json::object(), new_source = json::object();
    for (const auto& s : pv_sources()) {
      if (!at(old_spec, s.c_str()).is_null()) old_source[s] = old_spec[s];
      if (!at(new_spec, s.c_str()).is_null()) new_source[s] = new_spec[s];
    }
    if (old_source != new_source)
      out.push_back({"spec.persistentvolumesource", "Forbidden: spec.persistentvolumesource is immutable after creation"});
    immutable(at(old_spec, "volumeMode"), at(new_spec, "volumeMode"), "volumeMode", out);
    if (!at(old_spec, "nodeAffinity").is_null())
      immutable(at(old_spec, "nodeAffinity"), at(new_spec, "nodeAffinity"), "nodeAffinity", out);
  } else if (p == "persistentvolumeclaims") {
    // Claims are immutable but for the storage request (bound claims: expansion), the
    // volume name set once (binding), and the class set once.
    json old_rest = old_spec, new_rest = new_spec;
    for (json* s : {&old_rest, &new_rest})
      if (s->is_object()) s->erase("volumeAttributesClassName");
    const bool bound = at(at(before, "status"), "phase") == "Bound";
    if (bound && new_rest.is_object() && old_rest.is_object()) {
      json& requests = new_rest["resources"]["requests"];
      const json& was = old_rest["resources"]["requests"]["storage"];
      auto old_q = kube::parse_quantity_milli(was), new_q = kube::parse_quantity_milli(requests["storage"]);
      if (old_q && new_q && *new_q < *old_q)
        out.push_back({"spec.resources.requests.storage", "Forbidden: field can not be less than previous value"});
      requests["storage"] = was;
    }
    for (const char* once : {"volumeName", "storageClassName"})
      if (at(old_rest, once).is_null() || at(old_rest, once) == "") {
        if (new_rest.is_object() && new_rest.contains(once)) old_rest[once] = new_rest[once];
        else if (old_rest.is_object()) old_rest.erase(once);
      }
    if (old_rest != new_rest)
      out.push_back({"spec", "Forbidden: spec is immutable after creation except resources.requests and "
                             "volumeAttributesClassName for bound claims"});
  } else if (p == "storageclasses") {
    if (at(before, "parameters") != at(after, "parameters"))
      out.push_back({"parameters", "Forbidden: updates to parameters are forbidden."});
    if (at(before, "provisioner") != at(after, "provisioner"))
      out.push_back({"provisioner", "Forbidden: updates to provisioner are forbidden."});
    if (at(before, "reclaimPolicy") != at(after, "reclaimPolicy"))
      out.push_back({"reclaimPolicy", "Forbidden: updates to reclaimPolicy are forbidden."});
    immutable(at(before, "volumeBindingMode"), at(after, "volumeBindingMode"), "volumeBindingMode", out);
  } else if (p == "csinodes") {
    const json& old_drivers = at(old_spec, "drivers");
    const json& new_drivers = at(new_spec, "drivers");
    for (size_t i = 0; new_drivers.is_array() && i < new_drivers.size(); ++i)
      for (size_t j = 0; old_drivers.is_array() && j < old_drivers.size(); ++j) {
        if (at(new_drivers[i], "name") != at(old_drivers[j], "name")) continue;
        std::string field = "spec.drivers[" + std::to_string(i) + "]";
        immutable(at(old_drivers[j], "nodeID"), at(new_drivers[i], "nodeID"), field + ".nodeID", out);
        immutable(at(old_drivers[j], "allocatable"), at(new_drivers[i], "allocatable"), field + ".allocatable", out);
      }
  } else if (p == "csidrivers") {
    immutable(at(old_spec, "attachRequired"), at(new_spec, "attachRequired"), "spec.attachedRequired", out);
    immutable(at(old_spec, "volumeLifecycleModes"), at(new_spec, "volumeLifecycleModes"), "spec.volumeLifecycleModes",
              out);
  }
  return out;
}

ApiError invalid_fields(const ResourceType& type, const std::string& name, const std::vector<FieldError>& errors) {
  ApiError e = invalid(type, name, errors.front().field, errors.front().detail);
  if (errors.size() == 1) return e;
  std::string list;
  json causes = json::array();
  for (const auto& f : errors) {
    list += (list.empty() ? "" : ", ") + f.field + ": " + f.detail;
    causes.push_back({{"reason", "FieldValueInvalid"}, {"message", f.detail}, {"field", f.field}});
  }
  e.message = type.kind + " \"" + name + "\" is invalid: [" + list + "]";
  e.details["causes"] = std::move(causes);
  return e;
}

}  // namespace weft::kube_lite
