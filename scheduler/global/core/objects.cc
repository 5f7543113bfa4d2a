#include "scheduler/global/core/objects.h"

#include <algorithm>
#include <set>

#include "kube/objects.h"
#include "kube/json_field.h"

namespace weft::scheduler::global {
namespace {

using nlohmann::json;

using kube::field_error;
using kube::json_at;

Result<int32_t> int_field(const json& v, const std::string& where, const std::string& field, int32_t fallback) {
  if (v.is_null()) return fallback;
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > INT32_MAX)
    return field_error(where, field, v.dump() + " is not a non-negative integer");
  return v.get<int32_t>();
}

// A text field: `fallback` when absent or null, an error naming it when of another type.
Result<std::string> string_field(const json& v, const std::string& where, const std::string& field,
                                 const std::string& fallback = "") {
  if (v.is_null()) return fallback;
  if (!v.is_string()) return field_error(where, field, v.dump() + " is not a string");
  return v.get<std::string>();
}

// Absent (null) or of the shape asked for; a field of another shape is refused, never read
// as absent, so that no constraint it held is silently dropped.
Status map_field(const json& v, const std::string& where, const std::string& field) {
  return v.is_null() || v.is_object() ? Status{} : field_error(where, field, "not a map");
}

Status list_field(const json& v, const std::string& where, const std::string& field) {
  return v.is_null() || v.is_array() ? Status{} : field_error(where, field, "not a list");
}

// Every replica is a pod held in memory each cycle: a binding of more is refused rather than
// exhausting memory (spec.replicas may be any int32).
constexpr int32_t kMaxReplicas = 100000;

Result<int32_t> replicas_field(const json& v, const std::string& where, const std::string& field, int32_t fallback,
                               int32_t earlier) {
  auto n = int_field(v, where, field, fallback);
  if (n && *n > kMaxReplicas - earlier) {
    const std::string after = earlier ? " (after " + std::to_string(earlier) + " in earlier tasks)" : "";
    return field_error(where, field, std::to_string(*n) + after + " is above the " + std::to_string(kMaxReplicas) +
                                         " replicas a binding may have");
  }
  return n;
}

Result<std::vector<std::string>> string_list(const json& v, const std::string& where, const std::string& field) {
  std::vector<std::string> out;
  if (v.is_null()) return out;
  if (!v.is_array()) return field_error(where, field, "not a list");
  for (const auto& s : v) {
    if (!s.is_string()) return field_error(where, field, s.dump() + " is not a string");
    out.push_back(s.get<std::string>());
  }
  return out;
}

// status.conditions[type=Ready]: ready, or why not.
Status parse_ready(const json& conds, const std::string& where, MemberCluster& c) {
  c.not_ready = "no Ready condition in status.conditions";
  if (auto st = list_field(conds, where, "status.conditions"); !st) return st;
  for (size_t i = 0; i < conds.size(); ++i) {
    const std::string f = "status.conditions[" + std::to_string(i) + "]";
    if (!conds[i].is_object()) return field_error(where, f, "not a map");
    auto type = string_field(json_at(conds[i], "type"), where, f + ".type");
    if (!type) return type.error();
    if (*type != "Ready") continue;
    auto status = string_field(json_at(conds[i], "status"), where, f + ".status", "?");
    if (!status) return status.error();
    auto reason = string_field(json_at(conds[i], "reason"), where, f + ".reason");
    if (!reason) return reason.error();
    c.ready = *status == "True";
    c.not_ready = c.ready ? "" : "Ready is " + *status + (reason->empty() ? "" : " (" + *reason + ")");
  }
  return {};
}

Result<MemberCluster> parse_cluster(const json& o, const std::string& where) {
  MemberCluster c;
  c.name = kube::name_of(o);
  c.labels = kube::labels_of(o);
  const json& spec = json_at(o, "spec");
  if (auto st = map_field(spec, where, "spec"); !st) return st.error();
  for (const char* f : {"provider", "region", "zone"}) {
    if (json_at(spec, f).is_null()) continue;
    auto text = string_field(json_at(spec, f), where, std::string("spec.") + f);
    if (!text) return text.error();
    c.fields[f] = std::move(*text);
  }
  auto taints = kube::taints_of_node(o);   // same shape as a Node's spec.taints
  if (!taints) return make_error(where + ": " + taints.message());
  c.taints = std::move(*taints);
  if (auto st = parse_ready(json_at(json_at(o, "status"), "conditions"), where, c); !st) return st.error();
  return c;
}

// provider/region/zone In/NotIn.
Result<std::vector<kube::Requirement>> parse_field_selector(const json& selector, const std::string& where,
                                                           const std::string& field) {
  std::vector<kube::Requirement> out;
  if (auto st = map_field(selector, where, field); !st) return st.error();
  const json& exprs = json_at(selector, "matchExpressions");
  if (auto st = list_field(exprs, where, field + ".matchExpressions"); !st) return st.error();
  for (size_t i = 0; i < exprs.size(); ++i) {
    std::string f = field + ".matchExpressions[" + std::to_string(i) + "]";
    if (!exprs[i].is_object()) return field_error(where, f, "not a map");
    auto key = string_field(json_at(exprs[i], "key"), where, f + ".key");
    if (!key) return key.error();
    auto op = string_field(json_at(exprs[i], "operator"), where, f + ".operator");
    if (!op) return op.error();
    if (*key != "provider" && *key != "region" && *key != "zone")
      return field_error(where, f + ".key", "'" + *key + "' is not provider, region or zone");
    if (*op != "In" && *op != "NotIn") return field_error(where, f + ".operator", "'" + *op + "' is not In or NotIn");
    auto values = string_list(json_at(exprs[i], "values"), where, f + ".values");
    if (!values) return values.error();
    out.push_back({*key, *op == "In" ? kube::Requirement::Op::In : kube::Requirement::Op::NotIn, *values});
  }
  return out;
}

Result<ClusterTerm> parse_term(const json& t, const std::string& where, const std::string& field) {
  ClusterTerm term;
  if (!t.is_object()) return field_error(where, field, "not a map");
  for (const auto& [k, v] : t.items()) {
    (void)v;
    static const std::set<std::string> known{"affinityName", "clusterNames", "exclude", "labelSelector", "fieldSelector"};
    if (!known.count(k)) return field_error(where, field + "." + k, "unknown field");
  }
  auto names = string_list(json_at(t, "clusterNames"), where, field + ".clusterNames");
  if (!names) return names.error();
  term.names = std::move(*names);
  auto exclude = string_list(json_at(t, "exclude"), where, field + ".exclude");
  if (!exclude) return exclude.error();
  term.exclude = std::move(*exclude);
  auto labels = kube::LabelSelector::from_json(json_at(t, "labelSelector"));
  if (!labels) return field_error(where, field + ".labelSelector", labels.message());
  term.labels = std::move(*labels);
  auto fields = parse_field_selector(json_at(t, "fieldSelector"), where, field + ".fieldSelector");
  if (!fields) return fields.error();
  term.fields = std::move(*fields);
  return term;
}

Status parse_placement(const json& p, const std::string& where, BindingInfo& b) {
  if (p.is_null()) return {};
  if (!p.is_object()) return field_error(where, "spec.placement", "not a map");
  if (!json_at(p, "clusterAffinity").is_null() && !json_at(p, "clusterAffinities").is_null())
    return field_error(where, "spec.placement", "clusterAffinity and clusterAffinities cannot both be set");
  if (!json_at(p, "clusterAffinity").is_null()) {
    auto t = parse_term(json_at(p, "clusterAffinity"), where, "spec.placement.clusterAffinity");
    if (!t) return t.error();
    b.affinity_groups.push_back(std::move(*t));
  }
  const json& groups = json_at(p, "clusterAffinities");
  if (auto st = list_field(groups, where, "spec.placement.clusterAffinities"); !st) return st;
  for (size_t i = 0; i < groups.size(); ++i) {
    auto t = parse_term(groups[i], where, "spec.placement.clusterAffinities[" + std::to_string(i) + "]");
    if (!t) return t.error();
    b.affinity_groups.push_back(std::move(*t));
  }
  auto tol = kube::tolerations_of_pod(json{{"spec", {{"tolerations", json_at(p, "clusterTolerations")}}}});
  if (!tol) return field_error(where, "spec.placement.clusterTolerations", tol.message());
  b.cluster_tolerations = std::move(*tol);
  if (auto st = map_field(json_at(p, "replicaScheduling"), where, "spec.placement.replicaScheduling"); !st) return st;
  const json& type = json_at(json_at(p, "replicaScheduling"), "replicaSchedulingType");
  if (!type.is_null() && type != "Duplicated" && type != "Divided")
    return field_error(where, "spec.placement.replicaScheduling.replicaSchedulingType",
                       type.dump() + " is not Duplicated or Divided");
  b.divisible = type == "Divided";
  // Aggregated (as few members as possible) is how weft divides; following weights would
  // need a placement per weight, which weft does not do: refused, never ignored.
  const json& preference = json_at(json_at(p, "replicaScheduling"), "replicaDivisionPreference");
  if (!preference.is_null() && preference != "Aggregated")
    return field_error(where, "spec.placement.replicaScheduling.replicaDivisionPreference",
                       preference.dump() + " is not supported (weft divides as Aggregated: fewest members first)");
  const json& spread = json_at(p, "spreadConstraints");
  if (auto st = list_field(spread, where, "spec.placement.spreadConstraints"); !st) return st;
  for (size_t i = 0; i < spread.size(); ++i) {
    const std::string f = "spec.placement.spreadConstraints[" + std::to_string(i) + "]";
    if (!spread[i].is_object()) return field_error(where, f, "not a map");
    auto mg = int_field(json_at(spread[i], "minGroups"), where, f + ".minGroups", 1);
    if (!mg) return mg.error();
    b.min_groups = std::max(b.min_groups, *mg);
  }
  return {};
}

// The pod template as a Pod the snapshot builder parses (requests, tolerations, affinity).
json pod_from_template(const json& tmpl, const std::string& ns, const std::string& name) {
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}, {"namespace", ns}}}};
  pod["spec"] = json_at(tmpl, "spec").is_object() ? json_at(tmpl, "spec") : json::object();
  pod["spec"].erase("nodeName");
  pod["spec"].erase("schedulerName");
  pod["metadata"]["annotations"] = {{keys::kGroupAnnotation, "weft-global"}};
  return pod;
}

struct Workload {
  const json* object = nullptr;
  std::string where;
};

Status add_pods(Gang& g, const json& tmpl, int32_t count, const std::string& task, const std::string& ns,
                const std::string& where, const std::string& field) {
  if (auto st = map_field(tmpl, where, field); !st) return st;
  if (auto st = map_field(json_at(tmpl, "spec"), where, field + ".spec"); !st) return st;
  if (count == 0) return {};
  SnapshotBuilder builder;
  if (auto st = builder.add(pod_from_template(tmpl, ns, "weft-global-0"), where + ": " + field); !st) return st;
  Snapshot one = builder.build();
  PodInfo pod = one.pods.front();
  for (int32_t i = 0; i < count; ++i) {
    g.pods.push_back(pod);
    g.tasks.push_back(task);
    kube::add_to(g.total, pod.request);
  }
  g.signature += task + "*" + std::to_string(count) + ":" + kube::to_json(pod.request).dump() + pod.filter_signature + ";";
  g.replicas += count;
  return {};
}

// spec.networkTopology has the PodGroup's shape: read it as the single-cluster builder does.
Status parse_topology(const json& nt, const std::string& where, Gang& g) {
  if (nt.is_null()) return {};
  SnapshotBuilder builder;
  json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "PodGroup"},
             {"metadata", {{"name", "g"}, {"namespace", "n"}}}, {"spec", {{"networkTopology", nt}}}};
  if (auto st = builder.add(pg, where); !st) return st;
  g.topology = builder.build().podgroups.at("n/g").topology;
  return {};
}

// A task's partitionPolicy (Volcano 1.15): validated as Volcano's admission does, then
// turned into the PodGroup subGroupPolicy entry Volcano's job controller writes (pods of
// the task, grouped by volcano.sh/partition-id = index / partitionSize), read by the
// single-cluster builder; the task's pods get those labels.
Status parse_partitions(const json& task, const std::string& name, int32_t replicas, const std::string& where,
                        const std::string& field, Gang& g) {
  const json& pp = json_at(task, "partitionPolicy");
  if (pp.is_null()) return {};
  if (!pp.is_object()) return field_error(where, field, "not a map");
  for (const auto& [key, v] : pp.items())
    if (key != "totalPartitions" && key != "partitionSize" && key != "minPartitions" && key != "networkTopology")
      return field_error(where, field + "." + key,
                         "unknown field (known: totalPartitions, partitionSize, minPartitions, networkTopology)");
  auto total = int_field(json_at(pp, "totalPartitions"), where, field + ".totalPartitions", 0);
  if (!total) return total.error();
  auto size = int_field(json_at(pp, "partitionSize"), where, field + ".partitionSize", 0);
  if (!size) return size.error();
  auto min = int_field(json_at(pp, "minPartitions"), where, field + ".minPartitions", 0);
  if (!min) return min.error();
  if (*total < 1) return field_error(where, field + ".totalPartitions", "must be at least 1");
  if (*size < 1) return field_error(where, field + ".partitionSize", "must be at least 1");
  if (static_cast<int64_t>(*total) * *size != replicas)
    return field_error(where, field, "replicas " + std::to_string(replicas) + " are not totalPartitions * partitionSize");
  json rule = {{"name", name},
               {"subGroupSize", *size},
               {"minSubGroups", *min},
               {"labelSelector", {{"matchLabels", {{"volcano.sh/task-spec", name}}}}},
               {"matchLabelKeys", json::array({"volcano.sh/partition-id"})}};
  if (!json_at(pp, "networkTopology").is_null()) rule["networkTopology"] = json_at(pp, "networkTopology");
  SnapshotBuilder builder;
  json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "PodGroup"},
             {"metadata", {{"name", "g"}, {"namespace", "n"}}}, {"spec", {{"subGroupPolicy", json::array({rule})}}}};
  if (auto st = builder.add(pg, where + ": " + field); !st) return st;
  g.sub_groups.push_back(builder.build().podgroups.at("n/g").sub_groups.front());
  const size_t first = g.pods.size() - static_cast<size_t>(replicas);
  for (int32_t i = 0; i < replicas; ++i)
    g.pods[first + i].labels = kube::InternedLabels(
        kube::Labels{{"volcano.sh/task-spec", name}, {"volcano.sh/partition-id", std::to_string(i / *size)}}, nullptr);
  g.signature += "|partitions:" + rule.dump();
  return {};
}

// A Volcano Job: queue, tasks, minAvailable, priority class, network topology, partitions.
Status parse_vcjob(const json& spec, const std::string& ns, const std::string& where, Gang& g, std::string& priority_class) {
  auto queue = string_field(json_at(spec, "queue"), where, "spec.queue");
  if (!queue) return queue.error();
  if (!queue->empty()) g.queue = *queue;
  const json& tasks = json_at(spec, "tasks");
  if (!tasks.is_array() || tasks.empty()) return field_error(where, "spec.tasks", "missing or empty");
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::string f = "spec.tasks[" + std::to_string(i) + "]";
    if (!tasks[i].is_object()) return field_error(where, f, "not a map");
    auto n = replicas_field(json_at(tasks[i], "replicas"), where, f + ".replicas", 1, g.replicas);
    if (!n) return n.error();
    auto name = string_field(json_at(tasks[i], "name"), where, f + ".name");
    if (!name) return name.error();
    if (auto st = add_pods(g, json_at(tasks[i], "template"), *n, *name, ns, where, f + ".template"); !st) return st;
    if (auto st = parse_partitions(tasks[i], *name, *n, where, f + ".partitionPolicy", g); !st) return st;
  }
  auto min = int_field(json_at(spec, "minAvailable"), where, "spec.minAvailable", g.replicas);
  if (!min) return min.error();
  if (*min > g.replicas)
    return field_error(where, "spec.minAvailable", std::to_string(*min) + " is above the tasks' " +
                                                       std::to_string(g.replicas) + " replicas");
  g.min_member = *min;
  auto pc = string_field(json_at(spec, "priorityClassName"), where, "spec.priorityClassName");
  if (!pc) return pc.error();
  priority_class = *pc;
  return parse_topology(json_at(spec, "networkTopology"), where, g);
}

// A Deployment, StatefulSet, ReplicaSet or batch Job: the queue annotation and every replica.
Status parse_replicated(const json& w, const std::string& ns, const std::string& where, Gang& g,
                        std::string& priority_class) {
  const json& spec = json_at(w, "spec");
  g.queue = kube::annotation(w, kQueueNameAnnotation, kDefaultQueue);
  const bool batch_job = kube::kind_of(w) == "Job";
  auto n = replicas_field(json_at(spec, batch_job ? "parallelism" : "replicas"), where,
                          batch_job ? "spec.parallelism" : "spec.replicas", 1, 0);
  if (!n) return n.error();
  if (json_at(spec, "template").is_null()) return field_error(where, "spec.template", "missing");
  auto pc = string_field(json_at(json_at(json_at(spec, "template"), "spec"), "priorityClassName"), where,
                         "spec.template.spec.priorityClassName");
  if (!pc) return pc.error();
  priority_class = *pc;
  if (auto st = add_pods(g, json_at(spec, "template"), *n, "", ns, where, "spec.template"); !st) return st;
  g.min_member = g.replicas;
  return {};
}

Result<Gang> gang_of_workload(const json& w, const std::string& where, const std::map<std::string, int32_t>& classes) {
  Gang g;
  const std::string ns = kube::namespace_of(w).empty() ? "default" : kube::namespace_of(w);
  std::string priority_class;
  const bool vcjob = kube::kind_of(w) == "Job" && json_at(w, "apiVersion") == "batch.volcano.sh/v1alpha1";
  if (auto st = map_field(json_at(w, "spec"), where, "spec"); !st) return st.error();
  if (auto st = vcjob ? parse_vcjob(json_at(w, "spec"), ns, where, g, priority_class)
                      : parse_replicated(w, ns, where, g, priority_class);
      !st)
    return st.error();
  if (kube::annotation(w, keys::kIbClusterAnnotation) == "same") g.same_ib_cluster = true;
  if (!priority_class.empty()) {
    auto it = classes.find(priority_class);
    if (it == classes.end()) return field_error(where, "priorityClassName", "PriorityClass '" + priority_class + "' not found");
    g.priority = it->second;
  }
  for (auto& p : g.pods) p.priority = g.priority;
  g.signature += std::to_string(g.min_member) + "|" + std::to_string(static_cast<int>(g.topology.mode)) + "/" +
                 std::to_string(g.topology.highest_tier) + (g.same_ib_cluster ? "|same" : "");
  return g;
}

// Karmada's own requirements, for a binding whose workload the control plane does not hold.
Result<Gang> gang_of_requirements(const json& spec, const std::string& where) {
  Gang g;
  auto n = replicas_field(json_at(spec, "replicas"), where, "spec.replicas", 0, 0);
  if (!n) return n.error();
  const json& req = json_at(spec, "replicaRequirements");
  const json& claim = json_at(req, "nodeClaim");
  const std::string f = "spec.replicaRequirements";
  for (const auto& [v, field] : {std::pair{&req, f}, {&json_at(req, "resourceRequest"), f + ".resourceRequest"},
                                 {&claim, f + ".nodeClaim"}, {&json_at(claim, "nodeSelector"), f + ".nodeClaim.nodeSelector"},
                                 {&json_at(claim, "hardNodeAffinity"), f + ".nodeClaim.hardNodeAffinity"}})
    if (auto st = map_field(*v, where, field); !st) return st.error();
  if (auto st = list_field(json_at(claim, "tolerations"), where, f + ".nodeClaim.tolerations"); !st) return st.error();
  json tmpl = {{"spec", {{"containers", json::array({{{"name", "main"}}})}}}};
  if (json_at(req, "resourceRequest").is_object())
    tmpl["spec"]["containers"][0]["resources"] = {{"requests", json_at(req, "resourceRequest")}};
  if (json_at(claim, "nodeSelector").is_object()) tmpl["spec"]["nodeSelector"] = json_at(claim, "nodeSelector");
  if (json_at(claim, "tolerations").is_array()) tmpl["spec"]["tolerations"] = json_at(claim, "tolerations");
  if (json_at(claim, "hardNodeAffinity").is_object())
    tmpl["spec"]["affinity"] = {{"nodeAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", json_at(claim, "hardNodeAffinity")}}}};
  if (auto st = add_pods(g, tmpl, *n, "", "default", where, f); !st) return st.error();
  g.min_member = g.replicas;
  g.signature += std::to_string(g.min_member);
  return g;
}

// spec.resource: the workload's kind, name and "Kind ns/name"; its apiVersion returned.
Result<std::string> parse_resource(const json& res, const std::string& where, BindingInfo& b) {
  if (auto st = map_field(res, where, "spec.resource"); !st) return st.error();
  auto text = [&](const char* f, bool required) -> Result<std::string> {
    auto v = string_field(json_at(res, f), where, std::string("spec.resource.") + f);
    if (v && required && v->empty()) return field_error(where, std::string("spec.resource.") + f, "missing");
    return v;
  };
  auto api = text("apiVersion", true), kind = text("kind", true), name = text("name", true), ns = text("namespace", false);
  for (const auto* r : {&api, &kind, &name, &ns})
    if (!*r) return r->error();
  b.workload_kind = *kind;
  b.workload_name = *name;
  b.workload = b.workload_kind + " " + (ns->empty() ? b.namespace_name : *ns) + "/" + b.workload_name;
  return *api;
}

// spec.clusters: the members a dispatched binding went to.
Status parse_targets(const json& clusters, const std::string& where, BindingInfo& b) {
  if (auto st = list_field(clusters, where, "spec.clusters"); !st) return st;
  for (size_t i = 0; i < clusters.size(); ++i) {
    std::string f = "spec.clusters[" + std::to_string(i) + "]";
    if (!clusters[i].is_object()) return field_error(where, f, "not a map");
    auto name = string_field(json_at(clusters[i], "name"), where, f + ".name");
    if (!name) return name.error();
    if (name->empty()) return field_error(where, f + ".name", "missing");
    auto r = int_field(json_at(clusters[i], "replicas"), where, f + ".replicas", 0);
    if (!r) return r.error();
    b.clusters.push_back({std::move(*name), *r});
  }
  return {};
}

Result<BindingInfo> parse_binding(const json& o, const std::string& where, const std::map<std::string, Workload>& workloads,
                                  const std::map<std::string, int32_t>& classes) {
  BindingInfo b;
  b.where = where;
  b.namespace_name = kube::namespace_of(o).empty() ? "default" : kube::namespace_of(o);
  b.name = kube::name_of(o);
  b.key = b.namespace_name + "/" + b.name;
  const json& spec = json_at(o, "spec");
  if (auto st = map_field(spec, where, "spec"); !st) return st.error();
  auto api = parse_resource(json_at(spec, "resource"), where, b);
  if (!api) return api.error();
  if (auto it = workloads.find(*api + "/" + b.workload); it != workloads.end()) {
    const Workload& w = it->second;
    auto g = kube::refuse_type_errors(w.where, [&] { return gang_of_workload(*w.object, w.where, classes); });
    if (!g) return make_error(where + ": spec.resource (" + b.workload + "): " + g.message());
    b.gang = std::move(*g);
  } else if (!is_workload_kind(*api, b.workload_kind) || !json_at(spec, "replicaRequirements").is_null()) {
    auto g = gang_of_requirements(spec, where);
    if (!g) return g.error();
    b.gang = std::move(*g);
    b.gang.queue = kube::annotation(o, kQueueNameAnnotation, kDefaultQueue);
  } else {
    return field_error(where, "spec.resource", b.workload + " not found on the control plane and no spec.replicaRequirements");
  }
  for (size_t i = 0; i < b.gang.pods.size(); ++i) {
    b.gang.pods[i].namespace_name = b.namespace_name;
    b.gang.pods[i].name = "weft-global-" + std::to_string(i);
    b.gang.pods[i].key = b.namespace_name + "/" + b.gang.pods[i].name;
    b.gang.pods[i].group = b.namespace_name + "/weft-global";
  }
  if (auto st = map_field(json_at(spec, "suspension"), where, "spec.suspension"); !st) return st.error();
  const json& susp = json_at(json_at(spec, "suspension"), "scheduling");
  if (!susp.is_null() && !susp.is_boolean()) return field_error(where, "spec.suspension.scheduling", "not a boolean");
  b.suspended = susp.is_boolean() && susp.get<bool>();
  if (auto st = parse_targets(json_at(spec, "clusters"), where, b); !st) return st.error();
  if (auto st = parse_placement(json_at(spec, "placement"), where, b); !st) return st.error();
  if (*api == "batch.volcano.sh/v1alpha1") b.divisible = false;   // a gang is never split
  const json& created = json_at(json_at(o, "metadata"), "creationTimestamp");
  if (created.is_string()) b.created = created.get<std::string>();
  if (json_at(json_at(o, "status"), "conditions").is_array()) b.conditions = json_at(json_at(o, "status"), "conditions");
  return b;
}

// The Queue fields the single-cluster builder reads are honoured across clusters; these
// are not, and are refused rather than ignored.
Status check_global_queue(const json& q, const std::string& where) {
  const json& spec = json_at(q, "spec");
  if (json_at(spec, "parent").is_string() && json_at(spec, "parent") != "root")
    return field_error(where, "spec.parent", "hierarchical queues are not supported by weft-scheduler global");
  if (!json_at(spec, "reclaimable").is_null() && !json_at(spec, "reclaimable").is_boolean())
    return field_error(where, "spec.reclaimable", json_at(spec, "reclaimable").dump() + " is not a boolean");
  if (!json_at(spec, "extendClusters").is_null())
    return field_error(where, "spec.extendClusters", "not supported by weft-scheduler global (choose the member "
                                                     "clusters with the ResourceBinding's spec.placement)");
  if (!json_at(spec, "affinity").is_null())
    return field_error(where, "spec.affinity", "queue node-group affinity is not supported by weft-scheduler global");
  return {};
}

// Which dispatched binding created a member pod: Volcano's job-name label, or the
// workload as the pod's (or its ReplicaSet's) controller.
std::string owner_key(const json& pod, const std::map<std::string, std::vector<const BindingInfo*>>& by_workload) {
  const std::string ns = kube::namespace_of(pod).empty() ? "default" : kube::namespace_of(pod);
  auto find = [&](const std::string& name, const std::string& kind) -> std::string {
    auto it = by_workload.find(ns + "/" + name);
    if (it == by_workload.end()) return "";
    for (const auto* b : it->second)
      if (kind.empty() || b->workload_kind == kind) return b->key;
    return "";
  };
  if (auto job = kube::label(pod, "volcano.sh/job-name"); !job.empty()) return find(job, "Job");
  const json& owners = json_at(json_at(pod, "metadata"), "ownerReferences");
  for (const auto& o : owners.is_array() ? owners : json::array()) {
    // Of another type, an owner's kind or name reads as absent, as the member's builder reads it.
    std::string kind = kube::json_text(json_at(o, "kind")), name = kube::json_text(json_at(o, "name"));
    if (kind == "ReplicaSet") {
      // Deployment pods belong to "<deployment>-<hash>".
      if (auto dash = name.rfind('-'); dash != std::string::npos)
        if (auto k = find(name.substr(0, dash), "Deployment"); !k.empty()) return k;
    }
    if (auto k = find(name, kind); !k.empty()) return k;
  }
  return "";
}

}  // namespace

bool ClusterTerm::matches(const MemberCluster& c) const {
  if (!names.empty() && std::find(names.begin(), names.end(), c.name) == names.end()) return false;
  if (std::find(exclude.begin(), exclude.end(), c.name) != exclude.end()) return false;
  if (!labels.matches(c.labels)) return false;
  for (const auto& r : fields)
    if (!r.matches(c.fields)) return false;
  return true;
}

bool is_workload_kind(const std::string& api_version, const std::string& kind) {
  if (api_version == "batch.volcano.sh/v1alpha1") return kind == "Job";
  if (api_version == "apps/v1") return kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet";
  if (api_version == "batch/v1") return kind == "Job";
  return false;
}

Status GlobalBuilder::add(const json& o, const std::string& where) {
  return kube::refuse_type_errors(where, [&] { return add_checked(o, where); });
}

Status GlobalBuilder::add_checked(const json& o, const std::string& where) {
  if (!o.is_object()) return make_error(where.empty() ? "not an object" : where + ": not an object");
  auto api_version = string_field(json_at(o, "apiVersion"), where, "apiVersion");
  if (!api_version) return api_version.error();
  auto kind_text = string_field(json_at(o, "kind"), where, "kind");
  if (!kind_text) return kind_text.error();
  const std::string& kind = *kind_text;
  const std::string& api = *api_version;
  if (kube::name_of(o).empty()) return field_error(where, "metadata.name", "missing");
  std::string member = kube::annotation(o, kMemberAnnotation);
  if (!member.empty()) {
    if (kind != "Node" && kind != "Pod" && kind != "HyperNode")
      return field_error(where, std::string("metadata.annotations.") + kMemberAnnotation,
                         "only Nodes, Pods and HyperNodes belong to a member (this is a " + kind + ")");
    member_objects_[member].push_back({o, where});
    return {};
  }
  if (kind == "Cluster" && api == "cluster.karmada.io/v1alpha1") clusters_.push_back({o, where});
  else if (kind == "ResourceBinding" && api == "work.karmada.io/v1alpha2") bindings_.push_back({o, where});
  else if (kind == "Queue" && api == "scheduling.volcano.sh/v1beta1") queues_.push_back({o, where});
  else if (kind == "PriorityClass") priority_classes_.push_back({o, where});
  else if (is_workload_kind(api, kind)) workloads_.push_back({o, where});
  else if (kind == "Node" || kind == "Pod" || kind == "HyperNode")
    return field_error(where, "metadata.annotations", std::string("a ") + kind + " needs " + kMemberAnnotation +
                                                          ": NAME to say which member cluster it is in");
  else
    return field_error(where, "kind", "'" + api + " " + kind + "' is not read by weft-scheduler global (supported: "
                                      "cluster.karmada.io/v1alpha1 Cluster, work.karmada.io/v1alpha2 ResourceBinding, "
                                      "scheduling.volcano.sh/v1beta1 Queue, PriorityClass, workloads: "
                                      "batch.volcano.sh/v1alpha1 Job, apps/v1 Deployment/StatefulSet/ReplicaSet, "
                                      "batch/v1 Job; member Nodes/Pods/HyperNodes)");
  return {};
}

Result<GlobalState> GlobalBuilder::build(std::vector<std::string>* skipped) {
  GlobalState s;
  for (const auto& c : clusters_) {
    auto mc = kube::refuse_type_errors(c.where, [&] { return parse_cluster(c.object, c.where); });
    if (!mc) return mc.error();
    s.clusters[mc->name] = std::move(*mc);
  }
  // Queues and priority classes through the single-cluster builder: the same rules. A
  // bad Queue is left out in run mode (its bindings then name the missing queue).
  SnapshotBuilder qb;
  for (const auto* list : {&queues_, &priority_classes_})
    for (const auto& q : *list) {
      Status st = list == &queues_ ? kube::refuse_type_errors(q.where, [&] { return check_global_queue(q.object, q.where); })
                                   : Status{};
      if (st) st = qb.add(q.object, q.where);
      if (!st) {
        if (!skipped || list != &queues_) return st.error();
        skipped->push_back(st.message());
        continue;
      }
      if (list != &queues_) continue;
      auto pr = int_field(json_at(json_at(q.object, "spec"), "priority"), q.where, "spec.priority", 0);
      if (!pr) return pr.error();
      s.queue_extras[kube::name_of(q.object)].priority = *pr;
    }
  Snapshot qs = qb.build();
  s.queues = std::move(qs.queues);
  std::map<std::string, Workload> workloads;
  for (const auto& w : workloads_) {
    std::string ns = kube::namespace_of(w.object).empty() ? "default" : kube::namespace_of(w.object);
    workloads[kube::json_text(json_at(w.object, "apiVersion")) + "/" + kube::kind_of(w.object) + " " + ns + "/" +
              kube::name_of(w.object)] = {&w.object, w.where};
  }
  for (const auto& b : bindings_) {
    auto bi = kube::refuse_type_errors(b.where,
                                       [&] { return parse_binding(b.object, b.where, workloads, qs.priority_classes); });
    if (bi) {
      auto unknown = std::find_if(bi->clusters.begin(), bi->clusters.end(),
                                  [&](const TargetCluster& t) { return !s.clusters.count(t.name); });
      if (unknown != bi->clusters.end())
        bi = field_error(b.where, "spec.clusters", "cluster '" + unknown->name + "' has no Cluster object");
    }
    if (bi && !s.queues.count(bi->gang.queue))
      bi = make_error(b.where + ": queue '" + bi->gang.queue + "' (from " + bi->workload + ") has no Queue object");
    if (!bi) {
      if (!skipped) return bi.error();
      skipped->push_back(bi.message());
      continue;
    }
    s.bindings.push_back(std::move(*bi));
  }
  std::sort(s.bindings.begin(), s.bindings.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  std::map<std::string, std::vector<const BindingInfo*>> by_workload;
  for (const auto& b : s.bindings)
    if (!b.clusters.empty()) by_workload[b.namespace_name + "/" + b.workload_name].push_back(&b);
  for (const auto& [member, objects] : member_objects_) {
    if (!s.clusters.count(member))
      return field_error(objects.front().where, std::string("metadata.annotations.") + kMemberAnnotation,
                         "member cluster '" + member + "' has no Cluster object");
    SnapshotBuilder mb;
    auto& owners = s.pod_owners[member];
    for (const auto& o : objects) {
      if (auto st = mb.add(o.object, o.where); !st) return st.error();
      if (kube::kind_of(o.object) != "Pod") continue;
      if (auto k = owner_key(o.object, by_workload); !k.empty())
        owners[kube::key_of(o.object).find('/') == std::string::npos ? "default/" + kube::key_of(o.object)
                                                                      : kube::key_of(o.object)] =
            {k, kube::label(o.object, "volcano.sh/task-spec")};
    }
    s.members[member] = mb.build();
  }
  for (const auto& [name, c] : s.clusters)
    if (!s.members.count(name)) s.members[name] = SnapshotBuilder().build();
  return s;
}

}  // namespace weft::scheduler::global
