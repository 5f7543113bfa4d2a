#include "scheduler/core/native_groups.h"

#include <set>

#include "common/keys.h"
#include "kube/objects.h"
#include "kube/podgroup.h"
#include "kube/workload.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;

std::string prefixed(const std::string& where) { return where.empty() ? "" : where + ": "; }

PodGroupInfo info_of(const kube::NativeGroupCommon& n, const std::string& kind) {
  PodGroupInfo g;
  g.native = true;
  g.kind = kind;
  g.api_version = n.api_version;
  g.key = kube::native_group_key(kind, n.namespace_name, n.name);
  g.topology_key = n.topology_key;
  if (!n.parent.empty()) g.parent = kube::native_group_key("CompositePodGroup", n.namespace_name, n.parent);
  g.priority_class = n.priority_class_name;
  g.explicit_priority = n.priority;
  g.never_preempts = n.preempt_never;
  g.disrupt_all = n.disrupt_all;
  g.status = n.status;
  return g;
}

Status add_podgroup(Snapshot& snap, const json& o, const std::string& where) {
  auto pg = kube::parse_native_podgroup(o);
  if (!pg) return make_error(prefixed(where) + pg.message());
  PodGroupInfo g = info_of(*pg, "PodGroup");
  g.min_member = pg->gang ? pg->min_count : 1;
  g.pod_index_label = kube::annotation(o, kube::kPodIndexLabelAnnotation);
  snap.podgroups[g.key] = std::move(g);
  return {};
}

Status add_composite(Snapshot& snap, const json& o, const std::string& where) {
  auto cpg = kube::parse_composite_podgroup(o);
  if (!cpg) return make_error(prefixed(where) + cpg.message());
  PodGroupInfo g = info_of(*cpg, "CompositePodGroup");
  SubGroupRule children;
  children.name = "children";
  children.min_groups = cpg->gang ? cpg->min_group_count : 0;
  g.sub_groups.push_back(std::move(children));
  snap.podgroups[g.key] = std::move(g);
  return {};
}

struct Served {
  const char* kind;
  std::set<std::string> versions;
};

const std::vector<Served>& served() {
  static const std::vector<Served> kinds{{"PodGroup", {"v1alpha2", "v1alpha3", "v1beta1"}},
                                         {"CompositePodGroup", {"v1alpha3"}},
                                         {"Workload", {"v1alpha1", "v1alpha2", "v1alpha3", "v1beta1"}}};
  return kinds;
}

}  // namespace

std::optional<Status> add_native_object(Snapshot& snap, const json& o, const std::string& where) {
  if (kube::api_group_of(o) != kube::kWorkloadApiGroup) return std::nullopt;
  const std::string kind = kube::kind_of(o), version = kube::api_version_of(o);
  if (kind == "PriorityClass") return std::nullopt;
  for (const auto& s : served()) {
    if (kind != s.kind) continue;
    if (!s.versions.count(version))
      return make_error(prefixed(where) + "apiVersion: '" + kube::kWorkloadApiGroup + "/" + version + "' does not serve " +
                        kind);
    if (kind == "PodGroup") return add_podgroup(snap, o, where);
    if (kind == "CompositePodGroup") return add_composite(snap, o, where);
    auto w = kube::parse_workload(o);
    if (!w) return make_error(prefixed(where) + w.message());
    snap.workloads[w->namespace_name + "/" + w->name] = w->pod_group_templates;
    return Status{};
  }
  return make_error(prefixed(where) + "kind: '" + kind + "' of " + kube::kWorkloadApiGroup +
                    " is not one weft reads (PodGroup, CompositePodGroup, Workload, PriorityClass)");
}

Status check_api_group(const std::string& kind, const json& o, const std::string& where) {
  static const std::map<std::string, std::string> home{{"PodGroup", "scheduling.volcano.sh"},
                                                      {"Queue", "scheduling.volcano.sh"},
                                                      {"HyperNode", "topology.volcano.sh"},
                                                      {"PriorityClass", "scheduling.k8s.io"}};
  auto it = home.find(kind);
  if (it == home.end() || !o.contains("apiVersion")) return {};
  const std::string group = kube::api_group_of(o);
  if (group == it->second) return {};
  return make_error(prefixed(where) + "apiVersion: a " + kind + " of '" + o["apiVersion"].dump() +
                    "' is not one weft reads (" + kind + ": " + it->second +
                    (kind == "PodGroup" ? " or scheduling.k8s.io" : "") + ")");
}

std::string group_key_of(const json& o) {
  const std::string kind = kube::kind_of(o);
  const std::string ns = kube::namespace_of(o).empty() ? "default" : kube::namespace_of(o);
  if (kube::api_group_of(o) == kube::kWorkloadApiGroup) {
    if (kind != "PodGroup" && kind != "CompositePodGroup") return "";
    return kube::native_group_key(kind, ns, kube::name_of(o));
  }
  return kind == "PodGroup" ? ns + "/" + kube::name_of(o) : "";
}

std::string pod_group_key_of(const json& pod) {
  const std::string ns = kube::namespace_of(pod).empty() ? "default" : kube::namespace_of(pod);
  if (pod.contains("spec") && pod["spec"].is_object()) {
    const json& g = pod["spec"].value("schedulingGroup", json());
    if (g.is_object() && g.contains("podGroupName") && g["podGroupName"].is_string())
      return kube::native_group_key("PodGroup", ns, g["podGroupName"].get<std::string>());
  }
  std::string group = kube::annotation(pod, keys::kGroupAnnotation);
  if (group.empty()) group = kube::annotation(pod, "scheduling.volcano.sh/group-name");
  return group.empty() ? "" : ns + "/" + group;
}

void link_composite_groups(Snapshot& snap) {
  for (auto& [key, g] : snap.podgroups) {
    if (!g.native || g.parent.empty()) continue;
    auto parent = snap.podgroups.find(g.parent);
    if (parent == snap.podgroups.end() || parent->second.kind != "CompositePodGroup") continue;
    parent->second.sub_groups.front().children.push_back(key);
  }
}

}  // namespace weft::scheduler
