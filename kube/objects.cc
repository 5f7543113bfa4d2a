#include "kube/objects.h"

namespace weft::kube {
namespace {

const nlohmann::json& empty_object() {
  static const nlohmann::json e = nlohmann::json::object();
  return e;
}

const nlohmann::json& field(const nlohmann::json& obj, const char* name) {
  if (!obj.is_object()) return empty_object();
  auto it = obj.find(name);
  return it == obj.end() || it->is_null() ? empty_object() : *it;
}

// obj[name] when it is there and not null.
const nlohmann::json* present(const nlohmann::json& obj, const char* name) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(name);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::string string_at(const nlohmann::json& obj, const char* name) {
  const auto& v = field(obj, name);
  return v.is_string() ? v.get<std::string>() : "";
}

std::string map_value(const nlohmann::json& obj, const char* map, const std::string& key, const std::string& fallback) {
  const auto& m = field(field(obj, "metadata"), map);
  auto it = m.find(key);
  return it != m.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// A container's requests and limits; `where` names it in errors.
Result<ContainerResources> container_resources(const nlohmann::json& c, const std::string& where) {
  if (!c.is_object() && !c.is_null()) return make_error(where + ": " + c.dump() + " is not an object");
  const auto& res = field(c, "resources");
  if (!res.is_object()) return make_error(where + ".resources: " + res.dump() + " is not an object");
  auto req = parse_resource_list(field(res, "requests"));
  if (!req) return wrap(req.error(), where + ".resources.requests");
  auto lim = parse_resource_list(field(res, "limits"));
  if (!lim) return wrap(lim.error(), where + ".resources.limits");
  return ContainerResources{std::move(*req), std::move(*lim)};
}

// Requests, each limit standing in for a missing request.
ResourceList request_of(const ContainerResources& c) {
  ResourceList out = c.requests;
  for (const auto& [k, v] : c.limits)
    if (!out.count(k)) out[k] = v;
  return out;
}

}  // namespace

Result<std::string> optional_string(const nlohmann::json& obj, const char* key, const std::string& where) {
  if (!obj.is_object()) return std::string();
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::string();
  if (!it->is_string()) return make_error(where + "." + key + ": " + it->dump() + " is not a string");
  return it->get<std::string>();
}

std::string metadata_string(const nlohmann::json& obj, const char* name) { return string_at(field(obj, "metadata"), name); }
std::string name_of(const nlohmann::json& obj) { return metadata_string(obj, "name"); }
std::string namespace_of(const nlohmann::json& obj) { return metadata_string(obj, "namespace"); }
std::string kind_of(const nlohmann::json& obj) { return string_at(obj, "kind"); }

std::string key_of(const nlohmann::json& obj) {
  std::string ns = namespace_of(obj);
  return ns.empty() ? name_of(obj) : ns + "/" + name_of(obj);
}

std::string annotation(const nlohmann::json& obj, const std::string& key, const std::string& fallback) {
  return map_value(obj, "annotations", key, fallback);
}

std::string label(const nlohmann::json& obj, const std::string& key, const std::string& fallback) {
  return map_value(obj, "labels", key, fallback);
}

Result<PodResources> pod_resources(const nlohmann::json& pod) {
  const auto& spec = field(pod, "spec");
  PodResources out;
  for (const char* list : {"containers", "initContainers"})
    if (const auto* l = present(spec, list); l && !l->is_array())
      return make_error(std::string("spec.") + list + ": " + l->dump() + " is not an array");
  const auto& containers = field(spec, "containers");
  if (containers.is_array()) {
    for (size_t i = 0; i < containers.size(); ++i) {
      auto r = container_resources(containers[i], "spec.containers[" + std::to_string(i) + "]");
      if (!r) return r.error();
      out.containers.push_back(std::move(*r));
    }
  }
  const auto& inits = field(spec, "initContainers");
  if (inits.is_array()) {
    for (size_t i = 0; i < inits.size(); ++i) {
      const std::string where = "spec.initContainers[" + std::to_string(i) + "]";
      auto r = container_resources(inits[i], where);
      if (!r) return r.error();
      auto policy = optional_string(inits[i], "restartPolicy", where);
      if (!policy) return policy.error();
      r->sidecar = *policy == "Always";
      out.init_containers.push_back(std::move(*r));
    }
  }
  auto overhead = parse_resource_list(field(spec, "overhead"));
  if (!overhead) return wrap(overhead.error(), "spec.overhead");
  out.overhead = std::move(*overhead);
  if (present(spec, "resources")) {
    auto level = container_resources(spec, "spec");
    if (!level) return level.error();
    out.pod_level = std::move(*level);
  }
  return out;
}

ResourceList effective_request(const PodResources& pod) {
  ResourceList sum;
  for (const auto& c : pod.containers) {
    if (sum.empty()) sum = request_of(c);   // most pods have one container: no merge
    else add_to(sum, request_of(c));
  }
  // Init containers run one after another, each beside the sidecars (restartPolicy:
  // Always) started before it; sidecars keep running beside the containers.
  ResourceList sidecars, init_peak;
  for (const auto& c : pod.init_containers) {
    ResourceList r = request_of(c);
    if (c.sidecar) {
      add_to(sum, r);
      add_to(sidecars, r);
      init_peak = max_of(init_peak, sidecars);
    } else {
      add_to(r, sidecars);
      init_peak = max_of(init_peak, r);
    }
  }
  if (!init_peak.empty()) sum = max_of(sum, init_peak);
  if (!pod.pod_level.requests.empty() || !pod.pod_level.limits.empty())
    for (const auto& [k, v] : request_of(pod.pod_level))
      if (k == "cpu" || k == "memory" || k.rfind("hugepages-", 0) == 0) sum[k] = v;
  add_to(sum, pod.overhead);
  return sum;
}

Result<ResourceList> pod_requests(const nlohmann::json& pod) {
  auto resources = pod_resources(pod);
  if (!resources) return resources.error();
  return effective_request(*resources);
}

Result<ResourceList> node_allocatable(const nlohmann::json& node) {
  const auto& status = field(node, "status");
  const auto& alloc = field(status, "allocatable");
  bool use_alloc = alloc.is_object() && !alloc.empty();
  auto r = parse_resource_list(use_alloc ? alloc : field(status, "capacity"));
  if (!r) return wrap(r.error(), use_alloc ? "status.allocatable" : "status.capacity");
  return r;
}

bool node_ready(const nlohmann::json& node) {
  const auto& conds = field(field(node, "status"), "conditions");
  std::optional<std::string> ready;
  if (conds.is_array())
    for (const auto& c : conds)
      if (string_at(c, "type") == "Ready") {
        ready = string_at(c, "status");
        break;
      }
  return node_ready(conds.is_array(), conds.is_array() ? conds.size() : 0, ready);
}

bool node_ready(bool conditions_listed, size_t conditions, const std::optional<std::string>& ready_status) {
  // A scenario node that states no conditions at all is taken as Ready; one that
  // states a Ready condition is Ready only when it is "True".
  if (!conditions_listed) return true;
  if (ready_status) return *ready_status == "True";
  return conditions == 0;
}

bool node_unschedulable(const nlohmann::json& node) {
  const auto& v = field(field(node, "spec"), "unschedulable");
  return v.is_boolean() && v.get<bool>();
}

int32_t pod_priority(const nlohmann::json& pod) {
  const auto& v = field(field(pod, "spec"), "priority");
  return v.is_number_integer() ? v.get<int32_t>() : 0;
}

bool pod_terminal(const nlohmann::json& pod) {
  std::string phase = string_at(field(pod, "status"), "phase");
  return phase == "Succeeded" || phase == "Failed";
}

std::string controller_kind(const nlohmann::json& pod) {
  const auto& owners = field(field(pod, "metadata"), "ownerReferences");
  if (!owners.is_array()) return "";
  for (const auto& o : owners)
    if (o.is_object() && o.contains("controller") && o["controller"] == true) return string_at(o, "kind");
  return "";
}

bool pod_is_mirror_or_static(const std::string* config_mirror, const std::string* config_source) {
  return config_mirror != nullptr || (config_source != nullptr && *config_source != "api");
}

}  // namespace weft::kube
