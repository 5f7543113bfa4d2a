#include "kube/workload.h"

#include <cctype>
#include <limits>

#include "kube/objects.h"
#include "kube/podgroup.h"
#include "kube/json_field.h"

namespace weft::kube {
namespace {

using nlohmann::json;


Result<int32_t> positive_int32(const json& v, const std::string& field) {
  if (!v.is_number_integer()) return field_error(field, v.is_null() ? "required" : v.dump() + " is not an integer");
  int64_t n = v.get<int64_t>();
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    return field_error(field, v.dump() + " is out of range");
  if (n < 1) return field_error(field, v.dump() + " is below 1");
  if (n > std::numeric_limits<int32_t>::max()) return field_error(field, v.dump() + " is out of range");
  return static_cast<int32_t>(n);
}

Result<std::string> dns_name(const json& v, const std::string& field) {
  if (!v.is_string()) return field_error(field, v.is_null() ? "required" : v.dump() + " is not a string");
  std::string s = v.get<std::string>();
  if (!valid_dns_subdomain(s)) return field_error(field, "'" + s + "' is not a DNS-1123 subdomain");
  return s;
}

Status check_map(const json& v, const std::string& field) {
  if (!v.is_null() && !v.is_object()) return field_error(field, v.dump() + " is not a map");
  return {};
}

Status known_fields(const json& m, const std::string& field, std::initializer_list<const char*> known) {
  if (!m.is_object()) return {};
  for (const auto& [key, v] : m.items()) {
    bool ok = false;
    for (const char* k : known) ok = ok || key == k;
    if (!ok) {
      std::string list;
      for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return field_error(field + "." + key, "unknown field (known: " + list + ")");
    }
  }
  return {};
}

// schedulingPolicy: exactly one of basic and gang; `count` is minCount or minGroupCount.
Status parse_policy(const json& p, const char* count, bool& gang, int32_t& min) {
  const std::string field = "spec.schedulingPolicy";
  if (!p.is_object()) return field_error(field, p.is_null() ? "required" : p.dump() + " is not a map");
  if (auto s = known_fields(p, field, {"basic", "gang"}); !s) return s;
  const bool basic = !json_at(p, "basic").is_null(), has_gang = !json_at(p, "gang").is_null();
  if (basic == has_gang) return field_error(field, "exactly one of basic and gang must be set");
  if (auto s = check_map(json_at(p, basic ? "basic" : "gang"), field + (basic ? ".basic" : ".gang")); !s) return s;
  gang = has_gang;
  if (!gang) return {};
  if (auto s = known_fields(json_at(p, "gang"), field + ".gang", {count}); !s) return s;
  auto n = positive_int32(json_at(json_at(p, "gang"), count), field + ".gang." + count);
  if (!n) return n.error();
  min = *n;
  return {};
}

// schedulingConstraints.topology: at most one {key}, a label key.
Status parse_constraints(const json& c, std::string& key) {
  const std::string field = "spec.schedulingConstraints";
  if (c.is_null()) return {};
  if (auto s = check_map(c, field); !s) return s;
  if (auto s = known_fields(c, field, {"topology"}); !s) return s;
  const json& t = json_at(c, "topology");
  if (t.is_null()) return {};
  if (!t.is_array()) return field_error(field + ".topology", t.dump() + " is not a list");
  if (t.size() > 1) return field_error(field + ".topology", "at most 1 item (has " + std::to_string(t.size()) + ")");
  if (t.empty()) return {};
  const std::string item = field + ".topology[0]";
  if (auto s = check_map(t[0], item); !s) return s;
  if (auto s = known_fields(t[0], item, {"key"}); !s) return s;
  const json& k = json_at(t[0], "key");
  if (!k.is_string()) return field_error(item + ".key", k.is_null() ? "required" : k.dump() + " is not a string");
  if (!valid_label_key(k.get<std::string>()))
    return field_error(item + ".key", "'" + k.get<std::string>() + "' is not a label key");
  key = k.get<std::string>();
  return {};
}

Result<WorkloadReference> parse_workload_ref(const json& r, const std::string& field, const char* workload_key,
                                             const char* template_key) {
  if (auto s = check_map(r, field); !s) return s.error();
  if (auto s = known_fields(r, field, {workload_key, template_key}); !s) return s.error();
  WorkloadReference out;
  auto w = dns_name(json_at(r, workload_key), field + "." + workload_key);
  if (!w) return w.error();
  out.workload_name = *w;
  auto t = dns_name(json_at(r, template_key), field + "." + template_key);
  if (!t) return t.error();
  out.template_name = *t;
  return out;
}

Status parse_disruption(const json& d, bool& all) {
  const std::string field = "spec.disruptionMode";
  if (d.is_null()) return {};
  if (auto s = check_map(d, field); !s) return s;
  if (auto s = known_fields(d, field, {"single", "all"}); !s) return s;
  const bool single = !json_at(d, "single").is_null();
  all = !json_at(d, "all").is_null();
  if (single == all) return field_error(field, "exactly one of single and all must be set");
  return {};
}

// The spec fields PodGroup and CompositePodGroup share (not the policy).
Status parse_common(const json& spec, NativeGroupCommon& g) {
  if (const json& p = json_at(spec, "parentCompositePodGroupName"); !p.is_null()) {
    auto n = dns_name(p, "spec.parentCompositePodGroupName");
    if (!n) return n.error();
    g.parent = *n;
  }
  if (const json& r = json_at(spec, "workloadRef"); !r.is_null()) {
    auto ref = parse_workload_ref(r, "spec.workloadRef", "workloadName", "templateName");
    if (!ref) return ref.error();
    g.workload_ref = *ref;
  }
  if (const json& r = json_at(spec, "podGroupTemplateRef"); !r.is_null()) {   // v1alpha2's name for it
    if (auto s = known_fields(r, "spec.podGroupTemplateRef", {"workload"}); !s) return s;
    auto ref = parse_workload_ref(json_at(r, "workload"), "spec.podGroupTemplateRef.workload", "workloadName",
                                  "podGroupTemplateName");
    if (!ref) return ref.error();
    g.workload_ref = *ref;
  }
  if (auto s = parse_constraints(json_at(spec, "schedulingConstraints"), g.topology_key); !s) return s;
  if (auto s = parse_disruption(json_at(spec, "disruptionMode"), g.disrupt_all); !s) return s;
  if (const json& pc = json_at(spec, "priorityClassName"); !pc.is_null()) {
    auto n = dns_name(pc, "spec.priorityClassName");
    if (!n) return n.error();
    g.priority_class_name = *n;
  }
  if (const json& pr = json_at(spec, "priority"); !pr.is_null()) {
    if (!pr.is_number_integer() || pr.get<int64_t>() < std::numeric_limits<int32_t>::min() ||
        pr.get<int64_t>() > std::numeric_limits<int32_t>::max())
      return field_error("spec.priority", pr.dump() + " is not an int32");
    g.priority = pr.get<int32_t>();
  }
  if (const json& pp = json_at(spec, "preemptionPolicy"); !pp.is_null()) {
    if (pp != "Never" && pp != "PreemptLowerPriority")
      return field_error("spec.preemptionPolicy", pp.dump() + " is not Never or PreemptLowerPriority");
    g.preempt_never = pp == "Never";
  }
  if (const json& rc = json_at(spec, "resourceClaims"); !rc.is_null() && !(rc.is_array() && rc.empty()))
    return field_error("spec.resourceClaims", "not supported by weft (PodGroup-level DRA claims are not modelled)");
  return {};
}

template <class Group>
Result<Group> parse_group(const json& obj, const char* kind, const char* count, int32_t Group::*min,
                          std::initializer_list<const char*> known) {
  if (!obj.is_object()) return make_error(std::string(kind) + ": not an object");
  Group g;
  g.name = name_of(obj);
  g.namespace_name = namespace_of(obj).empty() ? "default" : namespace_of(obj);
  g.api_version = api_version_of(obj);
  const std::string where = std::string(kind) + " " + g.namespace_name + "/" + g.name;
  if (g.name.empty()) return make_error(std::string(kind) + ": metadata.name: missing");
  const json& spec = json_at(obj, "spec");
  if (!spec.is_object()) return make_error(where + ": spec: " + (spec.is_null() ? "required" : "not a map"));
  if (auto s = known_fields(spec, "spec", known); !s) return wrap(s.error(), where);
  if (auto s = parse_policy(json_at(spec, "schedulingPolicy"), count, g.gang, g.*min); !s) return wrap(s.error(), where);
  if (auto s = parse_common(spec, g); !s) return wrap(s.error(), where);
  if (const json& st = json_at(obj, "status"); st.is_object()) g.status = st;
  return g;
}

}  // namespace

std::string api_group_of(const json& obj) {
  const json& v = json_at(obj, "apiVersion");
  if (!v.is_string()) return "";
  const std::string s = v.get<std::string>();
  auto slash = s.find('/');
  return slash == std::string::npos ? "" : s.substr(0, slash);
}

std::string api_version_of(const json& obj) {
  const json& v = json_at(obj, "apiVersion");
  if (!v.is_string()) return "";
  const std::string s = v.get<std::string>();
  auto slash = s.find('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

std::string native_group_key(const std::string& kind, const std::string& namespace_name, const std::string& name) {
  std::string plural = kind == "CompositePodGroup" ? "compositepodgroups" : "podgroups";
  return plural + "." + kWorkloadApiGroup + "/" + namespace_name + "/" + name;
}

std::optional<NativeGroupRef> split_native_group_key(const std::string& key) {
  for (const char* kind : {"PodGroup", "CompositePodGroup"}) {
    const std::string prefix = native_group_key(kind, "", "");   // "<plural>.scheduling.k8s.io//"
    const std::string head = prefix.substr(0, prefix.size() - 1);
    if (key.rfind(head, 0) != 0) continue;
    const std::string rest = key.substr(head.size());
    auto slash = rest.find('/');
    if (slash == std::string::npos) return std::nullopt;
    return NativeGroupRef{kind, rest.substr(0, slash), rest.substr(slash + 1)};
  }
  return std::nullopt;
}

Result<NativePodGroup> parse_native_podgroup(const json& obj) {
  return parse_group<NativePodGroup>(obj, "PodGroup", "minCount", &NativePodGroup::min_count,
                                     {"parentCompositePodGroupName", "workloadRef", "podGroupTemplateRef",
                                      "schedulingPolicy", "schedulingConstraints", "resourceClaims", "disruptionMode",
                                      "priorityClassName", "priority", "preemptionPolicy"});
}

Result<NativeCompositePodGroup> parse_composite_podgroup(const json& obj) {
  return parse_group<NativeCompositePodGroup>(obj, "CompositePodGroup", "minGroupCount",
                                              &NativeCompositePodGroup::min_group_count,
                                              {"parentCompositePodGroupName", "workloadRef", "schedulingPolicy",
                                               "schedulingConstraints", "disruptionMode", "priorityClassName",
                                               "priority", "preemptionPolicy"});
}

Result<NativeWorkload> parse_workload(const json& obj) {
  if (!obj.is_object()) return make_error("Workload: not an object");
  NativeWorkload w;
  w.name = name_of(obj);
  w.namespace_name = namespace_of(obj).empty() ? "default" : namespace_of(obj);
  const std::string where = "Workload " + w.namespace_name + "/" + w.name;
  const json& spec = json_at(obj, "spec");
  if (!spec.is_object()) return make_error(where + ": spec: " + (spec.is_null() ? "required" : "not a map"));
  for (auto [field, into] : {std::pair{"podGroupTemplates", &w.pod_group_templates},
                             std::pair{"compositePodGroupTemplates", &w.composite_templates},
                             std::pair{"podGroups", &w.pod_group_templates}}) {   // podGroups: v1alpha1's name
    const json& list = json_at(spec, field);
    if (list.is_null()) continue;
    if (!list.is_array()) return make_error(where + ": spec." + field + ": not a list");
    for (size_t i = 0; i < list.size(); ++i) {
      auto n = dns_name(json_at(list[i], "name"), std::string("spec.") + field + "[" + std::to_string(i) + "].name");
      if (!n) return wrap(n.error(), where);
      into->push_back(*n);
    }
  }
  return w;
}

bool valid_label_key(const std::string& key) {
  std::string name = key;
  if (auto slash = key.find('/'); slash != std::string::npos) {
    if (!valid_dns_subdomain(key.substr(0, slash))) return false;
    name = key.substr(slash + 1);
  }
  return !name.empty() && valid_label_value(name);   // the name part has a value's syntax
}

bool valid_label_value(const std::string& value) {
  if (value.empty()) return true;
  if (value.size() > 63) return false;
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (!alnum(value.front()) || !alnum(value.back())) return false;
  for (char c : value)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

std::string scheduled_condition_type(const std::string& api_version) {
  return api_version == "v1alpha2" ? "PodGroupScheduled" : "PodGroupInitiallyScheduled";
}

}  // namespace weft::kube
