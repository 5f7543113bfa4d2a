#include "scheduler/core/pod_contract.h"
#include "kube/json_field.h"

#include <set>

namespace weft::scheduler {

using nlohmann::json;

namespace {

using kube::field_error;
using kube::json_at;

Result<std::vector<std::string>> string_list(const json& v, const std::string& field) {
  std::vector<std::string> out;
  if (v.is_null()) return out;
  if (!v.is_array()) return field_error(field, "not a list");
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) return field_error(field + "[" + std::to_string(i) + "]", "not a string");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

Result<std::optional<kube::LabelSelector>> optional_selector(const json& v, const std::string& field) {
  if (v.is_null()) return std::optional<kube::LabelSelector>{};
  auto s = kube::LabelSelector::from_json(v);
  if (!s) return field_error(field, s.message());
  return std::optional<kube::LabelSelector>(std::move(*s));
}

Result<int32_t> int_of(const json& v, const std::string& field, int32_t fallback) {
  if (v.is_null()) return fallback;
  if (!v.is_number_integer()) return field_error(field, v.dump() + " is not an integer");
  return v.get<int32_t>();
}

Result<PodAffinityTerm> affinity_term(const json& t, const std::string& field) {
  if (!t.is_object()) return field_error(field, "not an object");
  PodAffinityTerm term;
  auto selector = optional_selector(json_at(t, "labelSelector"), field + ".labelSelector");
  if (!selector) return selector.error();
  term.selector = std::move(*selector);
  auto ns_selector = optional_selector(json_at(t, "namespaceSelector"), field + ".namespaceSelector");
  if (!ns_selector) return ns_selector.error();
  term.namespace_selector = std::move(*ns_selector);
  auto namespaces = string_list(json_at(t, "namespaces"), field + ".namespaces");
  if (!namespaces) return namespaces.error();
  term.namespaces = std::move(*namespaces);
  const json& key = json_at(t, "topologyKey");
  if (!key.is_string() || key.get<std::string>().empty()) return field_error(field + ".topologyKey", "missing");
  term.topology_key = key.get<std::string>();
  for (auto [name, into] : {std::pair{"matchLabelKeys", &term.match_label_keys},
                            std::pair{"mismatchLabelKeys", &term.mismatch_label_keys}}) {
    auto keys = string_list(json_at(t, name), field + "." + name);
    if (!keys) return keys.error();
    *into = std::move(*keys);
  }
  return term;
}

Status required_terms(const json& v, const std::string& field, std::vector<PodAffinityTerm>& into) {
  if (v.is_null()) return {};
  if (!v.is_array()) return field_error(field, "not a list");
  for (size_t i = 0; i < v.size(); ++i) {
    auto term = affinity_term(v[i], field + "[" + std::to_string(i) + "]");
    if (!term) return term.error();
    into.push_back(std::move(*term));
  }
  return {};
}

Status preferred_terms(const json& v, const std::string& field, std::vector<PodAffinityTerm>& into) {
  if (v.is_null()) return {};
  if (!v.is_array()) return field_error(field, "not a list");
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string where = field + "[" + std::to_string(i) + "]";
    auto term = affinity_term(json_at(v[i], "podAffinityTerm"), where + ".podAffinityTerm");
    if (!term) return term.error();
    auto weight = int_of(json_at(v[i], "weight"), where + ".weight", 0);
    if (!weight) return weight.error();
    if (*weight < 1 || *weight > 100) return field_error(where + ".weight", "must be in 1..100");
    term->weight = *weight;
    into.push_back(std::move(*term));
  }
  return {};
}

Status pod_affinity(const json& affinity, PodContract& c) {
  const char* required = "requiredDuringSchedulingIgnoredDuringExecution";
  const char* preferred = "preferredDuringSchedulingIgnoredDuringExecution";
  for (auto [name, req, pref] : {std::tuple{"podAffinity", &c.affinity, &c.preferred_affinity},
                                 std::tuple{"podAntiAffinity", &c.anti_affinity, &c.preferred_anti_affinity}}) {
    const json& part = json_at(affinity, name);
    if (part.is_null()) continue;
    const std::string field = std::string("spec.affinity.") + name;
    if (!part.is_object()) return field_error(field, "not an object");
    if (auto s = required_terms(json_at(part, required), field + "." + required, *req); !s) return s;
    if (auto s = preferred_terms(json_at(part, preferred), field + "." + preferred, *pref); !s) return s;
  }
  return {};
}

Status preferred_node(const json& affinity, PodContract& c) {
  const std::string field = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution";
  const json& list = json_at(json_at(affinity, "nodeAffinity"), "preferredDuringSchedulingIgnoredDuringExecution");
  if (list.is_null()) return {};
  if (!list.is_array()) return field_error(field, "not a list");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = field + "[" + std::to_string(i) + "]";
    auto weight = int_of(json_at(list[i], "weight"), where + ".weight", 0);
    if (!weight) return weight.error();
    if (*weight < 1 || *weight > 100) return field_error(where + ".weight", "must be in 1..100");
    // The preference read by the one node-affinity reader, as a single required term.
    json pod = {{"spec",
                 {{"affinity",
                   {{"nodeAffinity",
                     {{"requiredDuringSchedulingIgnoredDuringExecution",
                       {{"nodeSelectorTerms", json::array({json_at(list[i], "preference")})}}}}}}}}}};
    auto term = kube::NodeAffinity::from_pod(pod);
    if (!term) return field_error(where + ".preference", term.message());
    c.preferred_node.push_back({*weight, std::move(*term)});
  }
  return {};
}

Result<SpreadConstraint> spread_constraint(const json& v, const std::string& field) {
  if (!v.is_object()) return field_error(field, "not an object");
  SpreadConstraint s;
  auto skew = int_of(json_at(v, "maxSkew"), field + ".maxSkew", 0);
  if (!skew) return skew.error();
  if (*skew < 1) return field_error(field + ".maxSkew", "must be at least 1");
  s.max_skew = *skew;
  const json& key = json_at(v, "topologyKey");
  if (!key.is_string() || key.get<std::string>().empty()) return field_error(field + ".topologyKey", "missing");
  s.topology_key = key.get<std::string>();
  const json& when = json_at(v, "whenUnsatisfiable");
  if (when == "DoNotSchedule") s.hard = true;
  else if (when == "ScheduleAnyway") s.hard = false;
  else return field_error(field + ".whenUnsatisfiable", when.dump() + " is not DoNotSchedule or ScheduleAnyway");
  auto selector = optional_selector(json_at(v, "labelSelector"), field + ".labelSelector");
  if (!selector) return selector.error();
  s.selector = std::move(*selector);
  auto min_domains = int_of(json_at(v, "minDomains"), field + ".minDomains", 1);
  if (!min_domains) return min_domains.error();
  if (*min_domains < 1) return field_error(field + ".minDomains", "must be at least 1");
  if (!json_at(v, "minDomains").is_null() && !s.hard)
    return field_error(field + ".minDomains", "only with whenUnsatisfiable DoNotSchedule");
  s.min_domains = *min_domains;
  for (auto [name, into] : {std::pair{"nodeAffinityPolicy", &s.honor_node_affinity},
                            std::pair{"nodeTaintsPolicy", &s.honor_taints}}) {
    const json& policy = json_at(v, name);
    if (policy.is_null()) continue;
    if (policy != "Honor" && policy != "Ignore")
      return field_error(field + "." + name, policy.dump() + " is not Honor or Ignore");
    *into = policy == "Honor";
  }
  auto keys = string_list(json_at(v, "matchLabelKeys"), field + ".matchLabelKeys");
  if (!keys) return keys.error();
  s.match_label_keys = std::move(*keys);
  return s;
}

}  // namespace

Result<PodContract> pod_contract_of(const json& pod, std::vector<HostPort> host_ports) {
  PodContract c;
  c.host_ports = std::move(host_ports);
  const json& spec = json_at(pod, "spec");
  const json& affinity = json_at(spec, "affinity");
  if (affinity.is_object()) {
    if (auto s = pod_affinity(affinity, c); !s) return s.error();
    if (auto s = preferred_node(affinity, c); !s) return s.error();
  }
  const json& spread = json_at(spec, "topologySpreadConstraints");
  if (!spread.is_null()) {
    if (!spread.is_array()) return field_error("spec.topologySpreadConstraints", "not a list");
    std::set<std::pair<std::string, bool>> seen;
    for (size_t i = 0; i < spread.size(); ++i) {
      const std::string field = "spec.topologySpreadConstraints[" + std::to_string(i) + "]";
      auto s = spread_constraint(spread[i], field);
      if (!s) return s.error();
      if (!seen.insert({s->topology_key, s->hard}).second)
        return field_error(field, "duplicate topologyKey and whenUnsatisfiable");
      c.spread.push_back(std::move(*s));
    }
  }
  return c;
}

Result<std::vector<HostPort>> host_ports_of_json(const json& ports) {
  std::vector<HostPort> out;
  if (ports.is_null()) return out;
  if (!ports.is_array()) return field_error("ports", "not a list");
  for (size_t i = 0; i < ports.size(); ++i) {
    const json& p = ports[i];
    const std::string field = "ports[" + std::to_string(i) + "]";
    auto port = int_of(json_at(p, "hostPort"), field + ".hostPort", 0);
    if (!port) return port.error();
    if (*port <= 0) continue;
    HostPort h;
    h.port = *port;
    if (const json& ip = json_at(p, "hostIP"); ip.is_string() && !ip.get<std::string>().empty()) h.ip = ip.get<std::string>();
    if (const json& proto = json_at(p, "protocol"); proto.is_string() && !proto.get<std::string>().empty())
      h.protocol = proto.get<std::string>();
    out.push_back(std::move(h));
  }
  return out;
}

json host_ports_json(const std::vector<HostPort>& ports) {
  json out = json::array();
  for (const auto& p : ports) out.push_back({{"hostPort", p.port}, {"hostIP", p.ip}, {"protocol", p.protocol}});
  return out;
}

std::vector<kube::Requirement> label_key_requirements(const std::vector<std::string>& match_keys,
                                                      const std::vector<std::string>& mismatch_keys,
                                                      const kube::InternedLabels& labels) {
  std::vector<kube::Requirement> out;
  for (const auto& k : match_keys)
    if (const std::string* v = labels.find(k)) out.push_back({k, kube::Requirement::Op::In, {*v}});
  for (const auto& k : mismatch_keys)
    if (const std::string* v = labels.find(k)) out.push_back({k, kube::Requirement::Op::NotIn, {*v}});
  return out;
}

}  // namespace weft::scheduler
