#include "kube/podgroup.h"

#include <cmath>
#include <limits>

#include "common/keys.h"
#include "kube/json_field.h"
#include "kube/objects.h"

namespace weft::kube {
namespace {

using nlohmann::json;


// An int32 as the API carries it: a JSON integer (a float with no fraction, as YAML
// may give, is one too); anything else, or out of range, is an error.
Result<int32_t> int32_field(const json& v, const std::string& field, int32_t min) {
  int64_t n = 0;
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
      return field_error(field, v.dump() + " is out of range");
    n = v.get<int64_t>();
  } else if (v.is_number_float() && std::fabs(v.get<double>()) < 1e12 &&
             v.get<double>() == std::trunc(v.get<double>())) {
    n = static_cast<int64_t>(v.get<double>());
  } else {
    return field_error(field, v.dump() + " is not an integer");
  }
  if (n > std::numeric_limits<int32_t>::max()) return field_error(field, v.dump() + " is out of range");
  if (n < min) return field_error(field, v.dump() + " is below " + std::to_string(min));
  return static_cast<int32_t>(n);
}

Result<std::string> name_field(const json& v, const std::string& field) {
  if (!v.is_string()) return field_error(field, v.dump() + " is not a string");
  std::string s = v.get<std::string>();
  if (!valid_dns_subdomain(s)) return field_error(field, "'" + s + "' is not a DNS-1123 subdomain (a-z, 0-9, '-', '.')");
  return s;
}

// A string Volcano's schema bounds only by length (maxLength 253): tier names, priorityClassName.
Result<std::string> bounded_string(const json& v, const std::string& field) {
  if (!v.is_string()) return field_error(field, v.dump() + " is not a string");
  std::string s = v.get<std::string>();
  if (s.size() > 253) return field_error(field, "longer than 253 characters");
  return s;
}

Result<PodGroupNetworkTopology> parse_topology(const json& nt, const std::string& where) {
  if (!nt.is_object()) return field_error(where, nt.dump() + " is not a map");
  PodGroupNetworkTopology t;
  for (const auto& [key, v] : nt.items()) {
    if (v.is_null()) continue;
    if (key == "mode") {
      if (v == "hard") t.mode = PodGroupNetworkTopology::Mode::Hard;
      else if (v == "soft") t.mode = PodGroupNetworkTopology::Mode::Soft;
      else return field_error(where + ".mode", v.dump() + " is not hard or soft");
    } else if (key == "highestTierAllowed") {
      auto n = int32_field(v, where + ".highestTierAllowed", 0);
      if (!n) return n.error();
      t.highest_tier_allowed = *n;
    } else if (key == "highestTierName") {
      auto s = bounded_string(v, where + ".highestTierName");
      if (!s) return s.error();
      t.highest_tier_name = *s;
    } else {
      return field_error(where + "." + key, "unknown field (known: mode, highestTierAllowed, highestTierName)");
    }
  }
  if (t.highest_tier_allowed && !t.highest_tier_name.empty())
    return field_error(where, "highestTierAllowed and highestTierName are both set (Volcano allows one)");
  return t;
}

Result<SubGroupPolicy> parse_sub_group_policy(const json& p, const std::string& where) {
  if (!p.is_object()) return field_error(where, p.dump() + " is not a map");
  SubGroupPolicy out;
  for (const auto& [key, v] : p.items()) {
    const std::string field = where + "." + key;
    if (v.is_null()) continue;
    if (key == "name") {
      auto s = bounded_string(v, field);
      if (!s) return s.error();
      out.name = *s;
    } else if (key == "networkTopology") {
      auto t = parse_topology(v, field);
      if (!t) return t.error();
      out.network_topology = std::move(*t);
    } else if (key == "subGroupSize" || key == "minSubGroups") {
      auto n = int32_field(v, field, key == "subGroupSize" ? 1 : 0);
      if (!n) return n.error();
      (key == "subGroupSize" ? out.sub_group_size : out.min_sub_groups) = *n;
    } else if (key == "labelSelector") {
      auto sel = LabelSelector::from_json(v);
      if (!sel) return field_error(field, sel.message());
      out.label_selector = std::move(*sel);
    } else if (key == "matchLabelKeys") {
      if (!v.is_array()) return field_error(field, "not a list of label keys");
      for (const auto& k : v) {
        if (!k.is_string()) return field_error(field, k.dump() + " is not a string");
        out.match_label_keys.push_back(k.get<std::string>());
      }
    } else {
      return field_error(field, "unknown field (known: name, networkTopology, subGroupSize, minSubGroups, "
                                "labelSelector, matchLabelKeys)");
    }
  }
  return out;
}

Status parse_spec(const json& spec, PodGroupSpec& g) {
  if (spec.is_null()) return {};
  if (!spec.is_object()) return field_error("spec", "not a map");
  for (const auto& [key, v] : spec.items()) {
    const std::string field = "spec." + key;
    if (v.is_null()) continue;
    if (key == "queue") {
      auto s = name_field(v, field);
      if (!s) return s.error();
      g.queue = *s;
    } else if (key == "minMember") {
      auto n = int32_field(v, field, 0);
      if (!n) return n.error();
      g.min_member = *n;
    } else if (key == "minTaskMember") {
      if (!v.is_object()) return field_error(field, "not a map of task name to count");
      for (const auto& [task, count] : v.items()) {
        // The empty key is the role of pods without volcano.sh/task-spec (Volcano counts them so).
        auto n = int32_field(count, field + "." + task, 0);
        if (!n) return n.error();
        g.min_task_member[task] = *n;
      }
    } else if (key == "minResources") {
      if (!v.is_object()) return field_error(field, "not a map of resource to quantity");
      auto r = parse_resource_list(v);
      if (!r) return wrap(r.error(), field);
      g.min_resources = std::move(*r);
    } else if (key == "priorityClassName") {
      auto s = bounded_string(v, field);
      if (!s) return s.error();
      g.priority_class_name = *s;
    } else if (key == "networkTopology") {
      auto t = parse_topology(v, field);
      if (!t) return t.error();
      g.network_topology = std::move(*t);
    } else if (key == "subGroupPolicy") {
      if (!v.is_array()) return field_error(field, "not a list");
      for (size_t i = 0; i < v.size(); ++i) {
        auto p = parse_sub_group_policy(v[i], field + "[" + std::to_string(i) + "]");
        if (!p) return p.error();
        g.sub_group_policy.push_back(std::move(*p));
      }
    } else {
      return field_error(field, "not supported by weft (known: queue, minMember, minTaskMember, minResources, "
                                "priorityClassName, networkTopology, subGroupPolicy)");
    }
  }
  return {};
}

}  // namespace

bool valid_dns_subdomain(const std::string& text) {
  if (text.empty() || text.size() > 253) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  // Labels of [a-z0-9]([-a-z0-9]*[a-z0-9])? joined by dots.
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    size_t end = dot == std::string::npos ? text.size() : dot;
    if (end == start || !alnum(text[start]) || !alnum(text[end - 1])) return false;
    for (size_t i = start; i < end; ++i)
      if (!alnum(text[i]) && text[i] != '-') return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

Result<PodGroupSpec> parse_podgroup(const json& obj) {
  if (!obj.is_object()) return make_error("PodGroup: not an object");
  PodGroupSpec g;
  g.name = name_of(obj);
  g.namespace_name = namespace_of(obj);
  if (g.namespace_name.empty()) g.namespace_name = "default";
  auto spec = obj.find("spec");
  if (spec != obj.end())
    if (auto s = parse_spec(*spec, g); !s) return wrap(s.error(), "PodGroup " + g.key());
  const std::string same = annotation(obj, keys::kIbClusterAnnotation);
  if (!same.empty() && same != "same")
    return make_error("PodGroup " + g.key() + ": metadata.annotations." + keys::kIbClusterAnnotation + ": '" + same +
                      "' is not 'same'");
  g.same_ib_cluster = same == "same";
  return g;
}

}  // namespace weft::kube
