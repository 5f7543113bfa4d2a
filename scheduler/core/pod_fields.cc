#include "scheduler/core/pod_fields.h"

#include <algorithm>
#include <map>

#include "common/keys.h"
#include "kube/client/json_cursor.h"
#include "kube/client/json_reader.h"
#include "kube/objects.h"
#include "kube/quantity.h"
#include "scheduler/core/pod_contract.h"
#include "kube/json_field.h"

namespace weft::scheduler {

using nlohmann::json;

const std::vector<std::string>& pod_keys_read() {
  // volcano.sh/preemptable and volcano.sh/task-spec may be a label or an annotation.
  static const std::vector<std::string> keys = {keys::kGroupAnnotation, "scheduling.volcano.sh/group-name",
                                                "volcano.sh/preemptable", "volcano.sh/task-spec"};
  return keys;
}

namespace {

bool read_key(std::string_view key) {
  const auto& keys = pod_keys_read();
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

using kube::json_at;
struct ConstraintTexts {
  std::string_view tolerations = "null", node_selector = "null", affinity = "null", spread = "null";
};

std::string constraints_text(const ConstraintTexts& t, const std::vector<HostPort>& host_ports) {
  std::string ports = host_ports.empty() ? "null" : host_ports_json(host_ports).dump();
  std::string out;
  out.reserve(96 + t.tolerations.size() + t.node_selector.size() + t.affinity.size() + t.spread.size() + ports.size());
  out.append("{\"tolerations\":").append(t.tolerations);
  out.append(",\"nodeSelector\":").append(t.node_selector);
  out.append(",\"affinity\":").append(t.affinity);
  out.append(",\"topologySpreadConstraints\":").append(t.spread);
  out.append(",\"hostPorts\":").append(ports).append("}");
  return out;
}

// A list that is there and not empty (spec.schedulingGates, spec.resourceClaims).
bool non_empty_list(const json& v) { return v.is_array() && !v.empty(); }

// ---- from a tree ----

Status string_map_of(const json& metadata, const char* part, std::vector<std::pair<std::string, std::string>>& into) {
  const json& m = json_at(metadata, part);
  if (m.is_null()) return {};
  const std::string field = std::string("metadata.") + part;
  if (!m.is_object()) return make_error(field + ": " + m.dump() + " is not an object");
  const bool every_key = std::string_view(part) == "labels";
  for (const auto& [key, v] : m.items()) {
    if (!every_key && !read_key(key)) continue;
    auto value = kube::optional_string(m, key.c_str(), field);
    if (!value) return value.error();
    if (!v.is_null()) into.emplace_back(key, std::move(*value));
  }
  return {};
}

// Host ports of the containers, then of the restartable init containers (as the text reader).
Result<std::vector<HostPort>> tree_host_ports(const json& spec) {
  std::vector<HostPort> out;
  for (const char* list : {"containers", "initContainers"}) {
    const json& containers = json_at(spec, list);
    if (!containers.is_array()) continue;
    for (size_t i = 0; i < containers.size(); ++i) {
      const json& c = containers[i];
      if (std::string_view(list) == "initContainers" && json_at(c, "restartPolicy") != "Always") continue;
      auto ports = host_ports_of_json(json_at(c, "ports"));
      if (!ports) return make_error("spec." + std::string(list) + "[" + std::to_string(i) + "]." + ports.message());
      out.insert(out.end(), ports->begin(), ports->end());
    }
  }
  return out;
}

// ---- from text ----

using kube::JsonCursor;
using Section = PodTextExtension::Section;

// The string member `key` of `object`; its name is only spelled out for an error.
Status string_member(JsonCursor& c, std::string_view object, std::string_view key, std::string& out) {
  if (c.peek() == '"') return c.string(out);
  return c.string_field(std::string(object).append(".").append(key), out);
}

// A quantity's JSON text (already checked) as parse_resource_list reads it from a tree: a
// string, or a number's value.
Result<int64_t> quantity_of(std::string_view text) {
  if (!text.empty() && text[0] == '"') {
    std::string quantity;
    size_t pos = 0;
    if (auto s = kube::read_json_string(text, pos, quantity); !s) return s.error();
    return kube::parse_quantity_milli(std::string_view(quantity));
  }
  auto value = kube::read_json(text);
  if (!value) return value.error();
  return kube::parse_quantity_milli(*value);
}

// Field names below are texts or functions that spell them (JsonCursor::members): a pod's
// containers are read without building a name, unless there is an error to name.
using kube::json_cursor_detail::spelled;

template <class Field>
Result<kube::ResourceList> read_resource_list(JsonCursor& c, const Field& field) {
  kube::ResourceList out;
  if (const char kind = c.peek(); kind != '{' && kind != 'n') {
    auto text = c.skip();
    if (!text) return text.error();
    return make_error(spelled(field) + ": resource list is not an object: " + std::string(text->substr(0, 60)));
  }
  // As a tree keeps them: a resource named twice is its last value, and the first bad one
  // in name order is the error.
  std::map<std::string, Error> bad;
  auto s = c.members(field, [&](std::string_view key) -> Status {
    const std::string name(key);
    auto text = c.skip();
    if (!text) return text.error();
    auto q = quantity_of(*text);
    out.erase(name);
    bad.erase(name);
    if (q) out[name] = *q;
    else bad.emplace(name, wrap(wrap(q.error(), "resource '" + name + "'"), spelled(field)));
    return {};
  });
  if (!s) return s.error();
  if (!bad.empty()) return bad.begin()->second;
  return out;
}

// The host ports of a container's `ports` list (parsed as a small tree: few containers have one).
Status read_ports(JsonCursor& c, const std::string& where, std::vector<HostPort>& into) {
  auto span = c.skip();
  if (!span) return span.error();
  auto tree = kube::read_json(*span);
  if (!tree) return tree.error();
  auto ports = host_ports_of_json(*tree);
  if (!ports) return make_error(where + "." + ports.message());
  into = std::move(*ports);
  return {};
}

// {requests, limits} of a container's (or the pod's) `resources`.
template <class Field>
Status read_requests_limits(JsonCursor& c, const Field& field, kube::ContainerResources& out) {
  out.requests.clear();
  out.limits.clear();
  return c.members(field, [&](std::string_view part) -> Status {
    if (part != "requests" && part != "limits") return c.pass_over();
    auto list = read_resource_list(c, [&] { return spelled(field).append(".").append(part); });
    if (!list) return list.error();
    (part == "requests" ? out.requests : out.limits) = std::move(*list);
    return {};
  });
}

// `list` is "spec.containers" or "spec.initContainers".
Result<kube::ContainerResources> read_container(JsonCursor& c, const std::string& list, bool init,
                                                std::vector<HostPort>& host_ports, size_t index, PodTextExtension* more) {
  kube::ContainerResources out;
  std::vector<HostPort> ports;
  auto where = [&] { return list + "[" + std::to_string(index) + "]"; };
  auto s = c.members(where, [&](std::string_view key) -> Status {
    if (key == "ports") return read_ports(c, where(), ports);
    if (key == "resources") return read_requests_limits(c, [&] { return where() + ".resources"; }, out);
    if (init && key == "restartPolicy") {
      std::string policy;
      if (auto st = c.string_field(where() + ".restartPolicy", policy); !st) return st;
      out.sidecar = policy == "Always";
      return {};
    }
    return more && !init ? more->container_member(index, key, c) : c.pass_over();
  });
  if (!s) return s.error();
  // Restartable init containers (sidecars) keep their ports while the pod runs.
  if (!init || out.sidecar) host_ports.insert(host_ports.end(), ports.begin(), ports.end());
  return out;
}

Status read_containers(JsonCursor& c, std::string_view key, std::vector<kube::ContainerResources>& into,
                       std::vector<HostPort>& host_ports, PodTextExtension* more) {
  into.clear();
  const std::string field = std::string("spec.").append(key);
  return c.elements(field, [&](size_t i) -> Status {
    auto container = read_container(c, field, key == "initContainers", host_ports, i, more);
    if (!container) return container.error();
    into.push_back(std::move(*container));
    return {};
  });
}

Status read_string_map(JsonCursor& c, std::string_view field, bool every_key,
                       std::vector<std::pair<std::string, std::string>>& into, const PodTextExtension* more) {
  into.clear();
  return c.members(field, [&](std::string_view key) -> Status {
    if (!every_key && !read_key(key) && !(more && more->keeps_annotation(key))) return c.pass_over();
    // A key met twice keeps its last value, as a tree would; null is no value.
    const bool present = c.peek() != 'n';
    std::string value;
    if (auto s = string_member(c, field, key, value); !s) return s;
    std::erase_if(into, [&](const auto& kv) { return kv.first == key; });
    if (present) into.emplace_back(key, std::move(value));
    return {};
  });
}

Status read_metadata(JsonCursor& c, PodFields& f, PodTextExtension* more) {
  return c.members("metadata", [&](std::string_view key) -> Status {
    std::string* text = key == "name"                ? &f.name
                        : key == "namespace"         ? &f.namespace_name
                        : key == "uid"               ? &f.uid
                        : key == "resourceVersion"   ? &f.resource_version
                        : key == "creationTimestamp" ? &f.created
                                                     : nullptr;
    if (text) return string_member(c, "metadata", key, *text);
    if (key == "deletionTimestamp") {
      f.deleting = c.peek() == '"';
      return c.pass_over();
    }
    if (key == "annotations" || key == "labels")
      return read_string_map(c, key == "labels" ? "metadata.labels" : "metadata.annotations", key == "labels",
                             key == "labels" ? f.labels : f.annotations, more);
    return more ? more->member(Section::Metadata, key, c) : c.pass_over();
  });
}

// The text of the next value (the signature of pods filtered alike).
Status span_into(JsonCursor& c, std::string_view& into) {
  auto span = c.skip();
  if (!span) return span.error();
  into = *span;
  return {};
}

// Whether the next value is a non-empty list, as non_empty_list reads a tree.
Status list_given(JsonCursor& c, bool& into) {
  auto span = c.skip();
  if (!span) return span.error();
  auto tree = kube::read_json(*span);
  if (!tree) return tree.error();
  into = non_empty_list(*tree);
  return {};
}

Status read_spec(JsonCursor& c, PodFields& f, PodTextExtension* more) {
  ConstraintTexts t;
  std::vector<HostPort> containers_ports, init_ports;
  auto s = c.members("spec", [&](std::string_view key) -> Status {
    if (key == "volumes") {
      std::string_view volumes;
      if (auto st = span_into(c, volumes); !st) return st;
      f.volumes = volumes;
      return {};
    }
    std::string* text = key == "nodeName"            ? &f.node_name
                        : key == "schedulerName"     ? &f.scheduler_name
                        : key == "priorityClassName" ? &f.priority_class
                                                     : nullptr;
    if (text) return string_member(c, "spec", key, *text);
    if (key == "tolerations") return span_into(c, t.tolerations);
    if (key == "nodeSelector") return span_into(c, t.node_selector);
    if (key == "topologySpreadConstraints") return span_into(c, t.spread);
    if (key == "affinity") {
      t.affinity = "null";
      if (c.peek() != '{') return c.pass_over();   // not an object: no affinity, as the tree readers take it
      if (auto st = span_into(c, t.affinity); !st) return st;
      return more ? more->also(Section::Spec, key, t.affinity) : Status{};
    }
    if (key == "schedulingGates") return list_given(c, f.scheduling_gated);
    if (key == "resourceClaims") return list_given(c, f.resource_claims);
    if (key == "resources") return read_requests_limits(c, "spec.resources", f.resources.pod_level);
    if (key == "containers") {
      containers_ports.clear();
      return read_containers(c, key, f.resources.containers, containers_ports, more);
    }
    if (key == "initContainers") {
      init_ports.clear();
      return read_containers(c, key, f.resources.init_containers, init_ports, more);
    }
    if (key == "schedulingGroup") {
      f.scheduling_group.clear();
      if (c.peek() != '{') return c.pass_over();   // null: no group, as the tree reader takes it
      return c.members("spec.schedulingGroup", [&](std::string_view part) {
        return part == "podGroupName" ? c.string_field("spec.schedulingGroup.podGroupName", f.scheduling_group)
                                      : c.pass_over();
      });
    }
    if (key == "overhead") {
      auto list = read_resource_list(c, "spec.overhead");
      if (!list) return list.error();
      f.resources.overhead = std::move(*list);
      return {};
    }
    if (key == "priority") {
      auto span = c.skip();
      if (!span) return span.error();
      auto value = kube::read_json(*span);
      if (!value) return value.error();
      f.priority = std::move(*value);
      return {};
    }
    return more ? more->member(Section::Spec, key, c) : c.pass_over();
  });
  containers_ports.insert(containers_ports.end(), init_ports.begin(), init_ports.end());
  f.constraints = constraints_text(t, containers_ports);
  return s;
}

// Of a pod's conditions the core reads PodScheduled only (when it was bound). Written by
// the kubelet and the scheduler: a value of another type is no value.
Status read_condition(JsonCursor& c, PodFields& f) {
  if (c.peek() != '{') return c.pass_over();
  std::string type, status, time;
  auto s = c.members("status.conditions", [&](std::string_view key) -> Status {
    std::string* into = key == "type" ? &type : key == "status" ? &status : key == "lastTransitionTime" ? &time : nullptr;
    if (!into) return c.pass_over();
    into->clear();
    return c.peek() == '"' ? c.string(*into) : c.pass_over();
  });
  if (type == "PodScheduled" && status == "True" && !time.empty() && f.scheduled_time.empty()) f.scheduled_time = time;
  return s;
}

Status read_status(JsonCursor& c, PodFields& f, PodTextExtension* more) {
  return c.members("status", [&](std::string_view key) -> Status {
    if (key == "phase") return c.string_field("status.phase", f.phase);
    if (key == "startTime") {
      f.start_time.clear();
      return c.peek() == '"' ? c.string(f.start_time) : c.pass_over();
    }
    if (key == "conditions") {
      f.scheduled_time.clear();
      if (!more) {
        if (c.peek() != '[') return c.pass_over();
        return c.elements("status.conditions", [&](size_t) { return read_condition(c, f); });
      }
      // Read twice over its text, checked once: the core reads PodScheduled, `more` all of them.
      std::string_view conditions;
      if (auto st = span_into(c, conditions); !st) return st;
      if (auto st = more->also(Section::Status, key, conditions); !st) return st;
      if (conditions.empty() || conditions[0] != '[') return {};
      JsonCursor list = JsonCursor::over_checked(conditions);
      return list.elements("status.conditions", [&](size_t) { return read_condition(list, f); });
    }
    return more ? more->member(Section::Status, key, c) : c.pass_over();
  });
}

PodFields& reset_metadata(PodFields& f) {
  for (auto* text : {&f.name, &f.namespace_name, &f.uid, &f.resource_version, &f.created}) text->clear();
  f.deleting = false;
  f.annotations.clear();
  f.labels.clear();
  return f;
}

PodFields& reset_spec(PodFields& f) {
  f.volumes.clear();
  // Cleared in place: a reader that reuses its fields keeps their room from pod to pod.
  f.resources.containers.clear();
  f.resources.init_containers.clear();
  f.resources.overhead.clear();
  f.resources.pod_level = {};
  f.priority = nullptr;
  f.scheduling_gated = f.resource_claims = false;
  for (auto* text : {&f.priority_class, &f.scheduler_name, &f.node_name, &f.constraints, &f.scheduling_group})
    text->clear();
  return f;
}

PodFields& reset_status(PodFields& f) {
  for (auto* text : {&f.phase, &f.scheduled_time, &f.start_time}) text->clear();
  return f;
}

}  // namespace

Result<PodFields> pod_fields_of(const json& o) {
  if (!o.is_object()) return make_error(o.dump().substr(0, 60) + " is not an object");
  for (const char* section : {"metadata", "spec", "status"})
    if (const json& v = json_at(o, section); !v.is_null() && !v.is_object())
      return make_error(std::string(section) + ": " + v.dump().substr(0, 60) + " is not an object");
  PodFields f;
  const json& md = json_at(o, "metadata");
  for (auto [key, into] : {std::pair{"name", &f.name}, std::pair{"namespace", &f.namespace_name},
                           std::pair{"uid", &f.uid}, std::pair{"resourceVersion", &f.resource_version},
                           std::pair{"creationTimestamp", &f.created}}) {
    auto v = kube::optional_string(md, key, "metadata");
    if (!v) return v.error();
    *into = std::move(*v);
  }
  f.deleting = json_at(md, "deletionTimestamp").is_string();
  if (auto s = string_map_of(md, "annotations", f.annotations); !s) return s.error();
  if (auto s = string_map_of(md, "labels", f.labels); !s) return s.error();
  auto resources = kube::pod_resources(o);
  if (!resources) return resources.error();
  f.resources = std::move(*resources);
  const json& spec = json_at(o, "spec");
  f.priority = json_at(spec, "priority");
  for (auto [key, into] : {std::pair{"nodeName", &f.node_name}, std::pair{"schedulerName", &f.scheduler_name},
                           std::pair{"priorityClassName", &f.priority_class}}) {
    auto v = kube::optional_string(spec, key, "spec");
    if (!v) return v.error();
    *into = std::move(*v);
  }
  auto ports = tree_host_ports(spec);
  if (!ports) return ports.error();
  const json& affinity = json_at(spec, "affinity");
  const std::string tolerations = json_at(spec, "tolerations").dump(), node_selector = json_at(spec, "nodeSelector").dump(),
                    affinity_text = affinity.is_object() ? affinity.dump() : "null",
                    spread = json_at(spec, "topologySpreadConstraints").dump();
  f.constraints = constraints_text({tolerations, node_selector, affinity_text, spread}, *ports);
  f.scheduling_gated = non_empty_list(json_at(spec, "schedulingGates"));
  f.resource_claims = non_empty_list(json_at(spec, "resourceClaims"));
  f.volumes = json_at(spec, "volumes").dump();
  if (const json& g = json_at(spec, "schedulingGroup"); g.is_object()) {
    auto name = kube::optional_string(g, "podGroupName", "spec.schedulingGroup");
    if (!name) return name.error();
    f.scheduling_group = std::move(*name);
  }
  const json& status = json_at(o, "status");
  auto phase = kube::optional_string(status, "phase", "status");
  if (!phase) return phase.error();
  f.phase = std::move(*phase);
  if (json_at(status, "startTime").is_string()) f.start_time = json_at(status, "startTime").get<std::string>();
  if (json_at(status, "conditions").is_array())
    for (const auto& cond : json_at(status, "conditions"))
      if (json_at(cond, "type") == "PodScheduled" && json_at(cond, "status") == "True" &&
          json_at(cond, "lastTransitionTime").is_string() && f.scheduled_time.empty())
        f.scheduled_time = json_at(cond, "lastTransitionTime").get<std::string>();
  return f;
}

namespace {
Status read_pod_text(std::string_view text, bool checked, PodTextExtension* more, PodFields& f) {
  reset_status(reset_spec(reset_metadata(f)));
  JsonCursor c = checked ? JsonCursor::over_checked(text) : JsonCursor(text);
  if (c.peek() != '{') return make_error("the pod is not a JSON object");
  if (more) more->restart(Section::Top);
  auto section = [&](Section which) -> PodTextExtension* {
    if (more) more->restart(which);
    return more;
  };
  auto s = c.members("pod", [&](std::string_view key) -> Status {
    // A section met twice is read from its last copy only, as a tree keeps it.
    if (key == "metadata") return read_metadata(c, reset_metadata(f), section(Section::Metadata));
    if (key == "spec") return read_spec(c, reset_spec(f), section(Section::Spec));
    if (key == "status") return read_status(c, reset_status(f), section(Section::Status));
    return more ? more->member(Section::Top, key, c) : c.pass_over();
  });
  if (!s) return s;
  if (f.constraints.empty()) f.constraints = constraints_text({}, {});
  return c.end();
}
}  // namespace

Status pod_fields_of_text(std::string_view text, PodFields& out, bool checked, PodTextExtension* more) {
  if (read_pod_text(text, checked, more, out)) return {};
  if (!more) {
    auto verdict = tree_verdict(text, pod_fields_of);
    if (!verdict) return verdict.error();
    out = std::move(*verdict);
    return {};
  }
  // What a tree accepts, `more` reads from the tree's own text (each member once).
  auto tree = kube::read_json(text);
  if (!tree) return tree.error();
  auto verdict = kube::refuse_type_errors("", [&] { return pod_fields_of(*tree); });
  if (!verdict) return verdict.error();
  return read_pod_text(tree->dump(), true, more, out);
}

Result<PodFields> pod_fields_of_text(std::string_view text, bool checked, PodTextExtension* more) {
  PodFields f;
  if (auto s = pod_fields_of_text(text, f, checked, more); !s) return s.error();
  return f;
}

Result<kube::ResourceList> resource_list_of_text(std::string_view text, const std::string& field) {
  JsonCursor c(text);
  auto list = read_resource_list(c, field);
  if (!list) return list;
  if (auto end = c.end(); !end) return end.error();
  return list;
}

Result<json> constraints_pod(const std::string& constraints) {
  auto c = kube::read_json(constraints);
  if (!c) return c.error();
  json spec = json::object();
  for (const char* key : {"tolerations", "nodeSelector"})
    if (!(*c)[key].is_null()) spec[key] = std::move((*c)[key]);
  for (const char* key : {"affinity", "topologySpreadConstraints"})
    if (!(*c)[key].is_null()) spec[key] = std::move((*c)[key]);
  return json{{"spec", std::move(spec)}, {"hostPorts", std::move((*c)["hostPorts"])}};
}

}  // namespace weft::scheduler
