#include "scheduler/core/snapshot.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <regex>
#include <set>
#include <thread>

#include "kube/load_annotation.h"
#include "kube/objects.h"
#include "kube/podgroup.h"
#include "kube/time.h"
#include "kube/workload.h"
#include "scheduler/core/native_groups.h"
#include "kube/client/json_reader.h"
#include "scheduler/core/node_fields.h"
#include "scheduler/core/pod_fields.h"
#include "scheduler/core/query/group_name.h"
#include "kube/json_field.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;

using kube::json_at;
using kube::field_error;
Result<int32_t> int_field(const json& v, const std::string& where, const std::string& field, int32_t fallback) {
  if (v.is_null()) return fallback;
  if (v.is_number_integer()) return v.get<int32_t>();
  if (v.is_string()) {
    try {
      size_t used = 0;
      int n = std::stoi(v.get<std::string>(), &used);
      if (used == v.get<std::string>().size()) return n;
    } catch (const std::exception&) {
    }
  }
  return field_error(where, field, v.dump() + " is not an integer");
}

Result<kube::ResourceList> list_field(const json& v, const std::string& where, const std::string& field) {
  auto r = kube::parse_resource_list(v);
  if (!r) return field_error(where, field, r.message());
  return r;
}

// Written by the agents: a report that does not decode is no report (the node's load is
// unknown, never guessed; docs/contracts.md), and the reason is kept for messages.
std::optional<NodeLoad> parse_load(const std::string& text, std::string* error) {
  if (text.empty()) return std::nullopt;
  auto decoded = kube::decode_load_annotation(text);
  if (!decoded) {
    *error = decoded.message();
    return std::nullopt;
  }
  NodeLoad l;
  l.cpu = decoded->cpu;
  l.memory = decoded->memory;
  l.window_s = decoded->window_s;
  l.source = decoded->source;
  l.at = decoded->oldest();
  l.cpu_at = decoded->cpu_at;
  l.memory_at = decoded->memory_at;
  return l;
}

// Go's strconv.ParseBool, as Volcano reads volcano.sh/preemptable.
std::optional<bool> parse_go_bool(const std::string& v) {
  if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True") return true;
  if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" || v == "False") return false;
  return std::nullopt;
}

// The annotation, else the label (Volcano's order for volcano.sh/preemptable and task-spec).
std::optional<std::string> annotation_or_label(const json& o, const std::string& key, std::string* field) {
  const json& md = json_at(o, "metadata");
  for (const char* part : {"annotations", "labels"}) {
    const json& m = json_at(md, part);
    if (m.is_object() && m.contains(key) && m[key].is_string()) {
      *field = std::string("metadata.") + part + "." + key;
      return m[key].get<std::string>();
    }
  }
  return std::nullopt;
}

const std::string* value_of(const std::vector<std::pair<std::string, std::string>>& pairs, const std::string& key) {
  for (const auto& [k, v] : pairs)
    if (k == key) return &v;
  return nullptr;
}

// The same over a pod's fields.
std::optional<std::string> annotation_or_label(const PodFields& f, const std::string& key, std::string* field) {
  for (auto [part, pairs] : {std::pair{"annotations", &f.annotations}, std::pair{"labels", &f.labels}})
    if (const std::string* v = value_of(*pairs, key)) {
      *field = std::string("metadata.") + part + "." + key;
      return *v;
    }
  return std::nullopt;
}

Result<std::optional<bool>> preemptable_from(const std::optional<std::string>& value, const std::string& field,
                                             const std::string& where) {
  if (!value) return std::optional<bool>();
  auto b = parse_go_bool(*value);
  if (!b) return field_error(where, field, "'" + *value + "' is not a boolean");
  return std::optional<bool>(*b);
}

Result<std::optional<bool>> preemptable_of(const json& o, const std::string& where) {
  std::string field;
  auto v = annotation_or_label(o, "volcano.sh/preemptable", &field);
  return preemptable_from(v, field, where);
}

Status missing_name(const json& o, const std::string& where) {
  if (!kube::name_of(o).empty()) return {};
  return make_error((where.empty() ? "" : where + ": ") + "metadata.name: missing");
}

// What a reader of fields (tree or text) read, through the rules; its error names `where`.
template <class Info, class Fields>
Result<Info> with_rules(Result<Fields>&& fields, const std::string& where, DecodePools* pools,
                        Result<Info> (*rules)(Fields&&, const std::string&, DecodePools*)) {
  if (!fields) return make_error((where.empty() ? "" : where + ": ") + fields.message());
  return rules(std::move(*fields), where, pools);
}

// The pod's claims and inline CSI volumes. Pods using claims are filtered by them (the
// volume filters read the claims), so their signature names the claims.
Status add_volumes(PodInfo& p, const PodFields& f, StringPool* pool) {
  auto volumes = pod_volumes_of(f.volumes, p.name, f.uid);
  if (!volumes) return volumes.error();
  p.volumes = std::move(*volumes);
  if (!p.volumes || !p.volumes->uses_claims()) return {};
  std::string signature = std::string(p.filter_signature) + "|claims:";
  for (const auto& v : p.volumes->volumes)
    if (!v.claim.empty()) signature += std::string(p.namespace_name) + "/" + v.claim + ",";
  p.filter_signature = shared_text(pool, signature);
  return {};
}

Result<NodeInfo> decode_node(const json& o, const std::string& where, DecodePools* pools) {
  return with_rules(node_fields_of(o), where, pools, node_info_from);
}

Result<PodInfo> decode_pod(const json& o, const std::string& where, DecodePools* pools) {
  return with_rules(pod_fields_of(o), where, pools, pod_info_from);
}

NetworkTopology topology_of(const kube::PodGroupNetworkTopology& nt) {
  NetworkTopology t;
  t.mode = nt.mode == kube::PodGroupNetworkTopology::Mode::Hard ? NetworkTopology::Mode::Hard : NetworkTopology::Mode::Soft;
  t.highest_tier = nt.highest_tier_allowed.value_or(0);
  t.highest_tier_name = nt.highest_tier_name;
  return t;
}

Status add_podgroup(Snapshot& s, const json& o, const std::string& where) {
  auto spec = kube::parse_podgroup(o);
  if (!spec) return make_error((where.empty() ? "" : where + ": ") + spec.message());
  PodGroupInfo g;
  g.key = spec->key();
  g.queue = spec->queue;
  g.min_member = spec->min_member;
  g.min_task_member = spec->min_task_member;
  if (spec->min_resources) {
    g.min_resources = *spec->min_resources;
    g.has_min_resources = true;
  }
  g.priority_class = spec->priority_class_name;
  if (const auto& nt = spec->network_topology) g.topology = topology_of(*nt);
  for (const auto& p : spec->sub_group_policy) {
    SubGroupRule r;
    r.name = p.name;
    if (p.network_topology) r.topology = topology_of(*p.network_topology);
    r.size = p.sub_group_size;
    r.min_groups = p.min_sub_groups;
    r.selector = p.label_selector;
    r.match_label_keys = p.match_label_keys;
    g.sub_groups.push_back(std::move(r));
  }
  g.same_ib_cluster = spec->same_ib_cluster;
  g.pod_index_label = kube::annotation(o, kube::kPodIndexLabelAnnotation);
  auto preemptable = preemptable_of(o, where);
  if (!preemptable) return preemptable.error();
  g.preemptable = *preemptable;
  if (std::string room = kube::annotation(o, kube::kReservationAnnotation); !room.empty()) {
    auto r = kube::parse_reservation(room, where.empty() ? "PodGroup " + g.key : where);
    if (!r) return r.error();
    g.reservation = std::move(*r);
  }
  if (json_at(o, "status").is_object()) g.status = json_at(o, "status");
  s.podgroups[g.key] = std::move(g);
  return {};
}

Status add_queue(Snapshot& s, const json& o, const std::string& where) {
  QueueInfo q;
  q.name = kube::name_of(o);
  const json& spec = json_at(o, "spec");
  if (!json_at(spec, "weight").is_null()) {
    const json& w = json_at(spec, "weight");
    if (!w.is_number() || w.get<double>() <= 0) return field_error(where, "spec.weight", w.dump() + " is not a positive number");
    q.weight = w.get<double>();
  }
  for (auto [field, into] : {std::pair{"capability", &q.capability}, std::pair{"deserved", &q.deserved},
                             std::pair{"guarantee", &q.guarantee}}) {
    const json* v = &json_at(spec, field);
    if (std::string(field) == "guarantee" && v->is_object() && v->contains("resource")) v = &(*v)["resource"];
    auto r = list_field(*v, where, std::string("spec.") + field + (v != &json_at(spec, field) ? ".resource" : ""));
    if (!r) return r.error();
    *into = std::move(*r);
  }
  if (const json& r = json_at(spec, "reclaimable"); !r.is_null()) {
    if (!r.is_boolean()) return field_error(where, "spec.reclaimable", r.dump() + " is not true or false");
    q.reclaimable = r.get<bool>();
  }
  auto priority = int_field(json_at(spec, "priority"), where, "spec.priority", 0);
  if (!priority) return priority.error();
  q.priority = *priority;
  const json& parent = json_at(spec, "parent");
  if (!parent.is_null()) {
    if (!parent.is_string()) return field_error(where, "spec.parent", "not a queue name");
    q.parent = parent.get<std::string>();
    if (q.parent == q.name) return field_error(where, "spec.parent", "a queue cannot be its own parent");
  }
  const json& state = json_at(json_at(o, "status"), "state");
  if (state.is_string() && (state == "Closed" || state == "Closing")) q.open = false;
  s.queues[q.name] = std::move(q);
  return {};
}

Result<HyperNodeMember> parse_member(const json& m, const std::string& where, const std::string& field) {
  HyperNodeMember out;
  std::string type = m.value("type", "Node");
  if (type == "Node") out.type = HyperNodeMember::Type::Node;
  else if (type == "HyperNode") out.type = HyperNodeMember::Type::HyperNode;
  else return field_error(where, field + ".type", "'" + type + "' is not Node or HyperNode");
  const json& sel = json_at(m, "selector");
  if (!sel.is_object()) return field_error(where, field + ".selector", "missing");
  int kinds = 0;
  if (sel.contains("exactMatch")) {
    ++kinds;
    const json& n = json_at(json_at(sel, "exactMatch"), "name");
    if (!n.is_string() || n.get<std::string>().empty()) return field_error(where, field + ".selector.exactMatch.name", "missing");
    out.exact_name = n.get<std::string>();
  }
  if (sel.contains("regexMatch")) {
    ++kinds;
    const json& p = json_at(json_at(sel, "regexMatch"), "pattern");
    if (!p.is_string() || p.get<std::string>().empty()) return field_error(where, field + ".selector.regexMatch.pattern", "missing");
    out.regex = p.get<std::string>();
    try {
      std::regex test(out.regex);
    } catch (const std::regex_error& e) {
      return field_error(where, field + ".selector.regexMatch.pattern", "invalid regex: " + std::string(e.what()));
    }
  }
  if (sel.contains("labelMatch")) {
    ++kinds;
    auto ls = kube::LabelSelector::from_json(json_at(sel, "labelMatch"));
    if (!ls) return field_error(where, field + ".selector.labelMatch", ls.message());
    out.labels = std::move(*ls);
  }
  if (kinds != 1) return field_error(where, field + ".selector", "needs exactly one of exactMatch, regexMatch, labelMatch");
  return out;
}

Status add_hypernode(Snapshot& s, const json& o, const std::string& where) {
  HyperNodeInfo h;
  h.name = kube::name_of(o);
  const json& spec = json_at(o, "spec");
  auto tier = int_field(json_at(spec, "tier"), where, "spec.tier", -1);
  if (!tier) return tier.error();
  if (*tier < 1) return field_error(where, "spec.tier", "missing or below 1");
  h.tier = *tier;
  const json& tier_name = json_at(spec, "tierName");
  if (!tier_name.is_null()) {
    if (!tier_name.is_string()) return field_error(where, "spec.tierName", "not a string");
    h.tier_name = tier_name.get<std::string>();
  }
  const json& members = json_at(spec, "members");
  if (!members.is_null() && !members.is_array()) return field_error(where, "spec.members", "not a list");
  for (size_t i = 0; i < members.size(); ++i) {
    auto m = parse_member(members[i], where, "spec.members[" + std::to_string(i) + "]");
    if (!m) return m.error();
    h.members.push_back(std::move(*m));
  }
  s.hypernodes.push_back(std::move(h));
  return {};
}

// A PodGroup, Queue, HyperNode, PriorityClass or Namespace (`kind`, as SnapshotBuilder::add read it).
Status add_object(Snapshot& snap, std::optional<int32_t>& default_priority, const std::string& kind, const json& o,
                  const std::string& where) {
  std::string prefix = where.empty() ? "" : where + ": ";
  if (auto s = missing_name(o, where); !s) return s;
  if (StorageObjects::reads(kind)) return snap.storage.add(kind, o, where);
  if (auto native = add_native_object(snap, o, where)) return *native;
  if (auto s = check_api_group(kind, o, where); !s) return s;
  if (kind == "PodGroup") return add_podgroup(snap, o, where);
  if (kind == "Queue") return add_queue(snap, o, where);
  if (kind == "HyperNode") return add_hypernode(snap, o, where);
  if (kind == "Namespace") {
    snap.namespaces[kube::name_of(o)] = kube::labels_of(o);
    return {};
  }
  if (kind == "PriorityClass") {
    auto v = int_field(json_at(o, "value"), where, "value", 0);
    if (!v) return v.error();
    snap.priority_classes[kube::name_of(o)] = *v;
    if (json_at(o, "globalDefault").is_boolean() && json_at(o, "globalDefault").get<bool>()) default_priority = *v;
    return {};
  }
  return make_error(prefix + "kind: '" + kind + "' is unknown (supported: Node, Pod, PodGroup, Queue, HyperNode, PriorityClass, "
                    "Namespace, PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode, CSIDriver, CompositePodGroup, Workload)");
}

}  // namespace

Result<NodeInfo> node_info_of(const json& o, const std::string& where, DecodePools* pools) {
  return kube::refuse_type_errors(where, [&] { return decode_node(o, where, pools); });
}

Result<PodInfo> pod_info_of(const json& o, const std::string& where, DecodePools* pools) {
  return kube::refuse_type_errors(where, [&] { return decode_pod(o, where, pools); });
}

namespace {
// Sorted by key, each key once (its last value), as a JSON object keeps them.
kube::InternedLabels interned_labels(std::vector<std::pair<std::string, std::string>>& read, StringPool* pool) {
  auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  // The API server writes them sorted: a sort would only take a buffer per object.
  if (!std::is_sorted(read.begin(), read.end(), by_key)) std::stable_sort(read.begin(), read.end(), by_key);
  std::vector<std::pair<SharedString, SharedString>> labels;
  labels.reserve(read.size());
  for (size_t i = 0; i < read.size(); ++i)
    if (i + 1 == read.size() || read[i + 1].first != read[i].first)
      labels.emplace_back(shared_text(pool, read[i].first), shared_text(pool, read[i].second));
  return kube::InternedLabels::from_sorted(std::move(labels));
}
}  // namespace

Result<NodeInfo> node_info_from(NodeFields&& f, const std::string& where, DecodePools* pools) {
  const std::string prefix = where.empty() ? "" : where + ": ";
  if (f.name.empty()) return make_error(prefix + "metadata.name: missing");
  StringPool* pool = pools ? &pools->strings : nullptr;
  NodeInfo n;
  n.name = std::move(f.name);
  n.labels = interned_labels(f.labels, pool);
  const char* field = f.allocatable_given ? "status.allocatable" : "status.capacity";
  auto alloc = resource_list_of_text(f.allocatable_given ? f.allocatable : f.capacity, field);
  if (!alloc) return make_error(prefix + alloc.message());
  n.allocatable = std::move(*alloc);
  if (f.taints != "null") {
    auto taints_tree = kube::read_json(f.taints);
    if (!taints_tree) return make_error(prefix + "spec.taints: " + taints_tree.message());
    auto taints = kube::taints_of_node(json{{"spec", {{"taints", std::move(*taints_tree)}}}});
    if (!taints) return make_error(prefix + taints.message());
    n.taints = std::move(*taints);
  }
  n.ready = kube::node_ready(f.conditions_listed, f.conditions, f.ready);
  n.unschedulable = f.unschedulable;
  n.load = parse_load(f.load, &n.load_error);
  return n;
}

Result<NodeInfo> node_info_of_text(std::string_view text, const std::string& where, DecodePools* pools) {
  return with_rules(node_fields_of_text(text), where, pools, node_info_from);
}

Result<PodInfo> pod_info_from(PodFields&& f, const std::string& where, DecodePools* pools) {
  // Spelled only for an error: every pod of a list shares `where`.
  auto prefix = [&where] { return where.empty() ? std::string() : where + ": "; };
  if (f.name.empty()) return make_error(prefix() + "metadata.name: missing");
  StringPool* pool = pools ? &pools->strings : nullptr;
  PodInfo p;
  std::string namespace_name = f.namespace_name.empty() ? "default" : f.namespace_name;
  p.namespace_name = shared_text(pool, namespace_name);
  p.name = std::move(f.name);
  p.key = namespace_name + "/" + p.name;
  std::string group = group_name([&](const char* key) { return value_of(f.annotations, key); });
  if (!group.empty()) p.group = shared_text(pool, namespace_name + "/" + group);
  if (!f.scheduling_group.empty()) {
    if (!group.empty())
      return make_error(prefix() + "spec.schedulingGroup: the pod also names Volcano PodGroup '" + group +
                        "' in an annotation; a pod belongs to one group");
    p.group = shared_text(pool, kube::native_group_key("PodGroup", namespace_name, f.scheduling_group));
  }
  p.request = kube::effective_request(f.resources);
  p.constraints = pools ? pools->constraints(f.constraints) : nullptr;
  if (!p.constraints) {
    auto pod = constraints_pod(f.constraints);
    if (!pod) return make_error(prefix() + "spec: " + pod.message());
    PodConstraints c;
    auto tol = kube::tolerations_of_pod(*pod);
    if (!tol) return make_error(prefix() + tol.message());
    c.tolerations = std::move(*tol);
    auto aff = kube::NodeAffinity::from_pod(*pod);
    if (!aff) return make_error(prefix() + aff.message());
    c.affinity = std::move(*aff);
    auto ports = host_ports_of_json((*pod)["hostPorts"]);
    if (!ports) return make_error(prefix() + "spec.containers: " + ports.message());
    auto contract = pod_contract_of(*pod, std::move(*ports));
    if (!contract) return make_error(prefix() + contract.message());
    c.contract = std::move(*contract);
    if (pools) p.constraints = pools->keep(f.constraints, std::move(c));
    else if (!c.tolerations.empty() || !c.affinity.empty() || !c.contract.empty())
      p.constraints = std::make_shared<const PodConstraints>(std::move(c));
  }
  p.filter_signature = shared_text(pool, f.constraints);
  p.labels = interned_labels(f.labels, pool);
  p.scheduling_gated = f.scheduling_gated;
  p.resource_claims = f.resource_claims;
  if (!f.priority.is_null()) {
    auto pr = int_field(f.priority, where, "spec.priority", 0);
    if (!pr) return pr.error();
    p.priority = *pr;
  }
  auto text_of = [pool](const std::string& v) { return v.empty() ? SharedString() : shared_text(pool, v); };
  p.priority_class = text_of(f.priority_class);
  p.scheduler_name = text_of(f.scheduler_name);
  p.phase = text_of(f.phase);
  p.set_node(text_of(f.node_name));
  p.terminating = f.deleting;
  std::string field;
  auto preemptable = preemptable_from(annotation_or_label(f, "volcano.sh/preemptable", &field), field, where);
  if (!preemptable) return preemptable.error();
  p.preemptable = *preemptable;
  p.task_role = shared_text(pool, annotation_or_label(f, "volcano.sh/task-spec", &field).value_or(""));
  if (auto s = add_volumes(p, f, pool); !s) return make_error(prefix() + s.message());
  if (!f.scheduled_time.empty())
    if (auto t = kube::parse_rfc3339(f.scheduled_time)) p.scheduled_at = *t;
  if (!p.scheduled_at && !f.start_time.empty())
    if (auto t = kube::parse_rfc3339(f.start_time)) p.scheduled_at = *t;
  return p;
}

Result<PodInfo> pod_info_of_text(std::string_view text, const std::string& where, DecodePools* pools) {
  return with_rules(pod_fields_of_text(text), where, pools, pod_info_from);
}

bool PodInfo::terminal() const {
  return phase == std::string_view("Succeeded") || phase == std::string_view("Failed");
}

void PodInfo::set_node(SharedString node_name) {
  // The two phases a binding writes: one text each for the whole process, pool or not.
  static const SharedString pending("Pending"), running("Running");
  node = std::move(node_name);
  if (phase.empty() || (phase == "Pending" && !node.empty())) phase = node.empty() ? pending : running;
}

const std::vector<kube::Toleration>& PodInfo::tolerations() const {
  static const std::vector<kube::Toleration> none;
  return constraints ? constraints->tolerations : none;
}

const kube::NodeAffinity& PodInfo::affinity() const {
  static const kube::NodeAffinity none;
  return constraints ? constraints->affinity : none;
}

std::pair<std::string, std::string> PodInfo::held_back_reason() const {
  if (scheduling_gated) return {"SchedulingGated", "pod has spec.schedulingGates; it is not scheduled until they are removed"};
  return {"DRANotSupported", "pod has spec.resourceClaims: dynamic resource allocation is not built in weft-scheduler, "
                             "so its claims could not be allocated; it is never bound"};
}

const PodContract& PodInfo::contract() const {
  static const PodContract none;
  return constraints ? constraints->contract : none;
}

std::shared_ptr<const PodConstraints> DecodePools::constraints(const std::string& signature) const {
  std::lock_guard lock(mu_);
  auto it = constraints_.find(signature);
  return it == constraints_.end() ? nullptr : it->second;
}

std::shared_ptr<const PodConstraints> DecodePools::keep(const std::string& signature, PodConstraints decoded) {
  std::lock_guard lock(mu_);
  auto [it, added] = constraints_.try_emplace(signature);
  if (added) it->second = std::make_shared<const PodConstraints>(std::move(decoded));
  return it->second;
}

void DecodePools::sweep() {
  strings.sweep();
  std::lock_guard lock(mu_);
  std::erase_if(constraints_, [](const auto& c) { return c.second.use_count() == 1; });
}

bool PodInfo::best_effort() const {
  for (const auto& [k, v] : request)
    if (v > 0 && k != "pods") return false;
  return true;
}

std::string PodGroupInfo::phase() const {
  auto it = status.find("phase");
  return it != status.end() && it->is_string() && !it->get<std::string>().empty() ? it->get<std::string>() : "Pending";
}

bool known_kind(const std::string& kind) {
  static const std::set<std::string> kinds{"Node",          "Pod",      "PodGroup",         "Queue",
                                           "HyperNode",     "PriorityClass", "CompositePodGroup", "Workload",
                                           "Namespace"};
  return kinds.count(kind) > 0 || StorageObjects::reads(kind);
}

Status SnapshotBuilder::add(const json& o, const std::string& where) {
  std::string kind = kube::kind_of(o);
  if (kind == "Node") {   // node_info_of and pod_info_of check the name themselves
    auto n = node_info_of(o, where);
    if (!n) return n.error();
    add(std::move(*n));
    return {};
  }
  if (kind == "Pod") {
    auto p = pod_info_of(o, where);
    if (!p) return p.error();
    add(std::move(*p));
    return {};
  }
  return kube::refuse_type_errors(where, [&] { return add_object(snap_, default_priority_, kind, o, where); });
}

void SnapshotBuilder::reserve(size_t nodes, size_t pods) {
  snap_.nodes.reserve(nodes);
  snap_.pods.reserve(pods);
}

namespace {
constexpr size_t kSortOnTwoThreads = 20000;   // fewer keys sort in less time than a thread takes to start

// A key as the sort compares it: its first 16 bytes in two words, so that most comparisons
// are two integer compares in the sort's own array rather than a memcmp through a pointer
// into a record or a heap string (a cache miss each, 100,000 records being 27 MB).
struct SortKey {
  uint64_t head = 0, next = 0;   // bytes 0-7 and 8-15, big-endian, zero past the key's end
  std::string_view key;
  size_t index = 0;

  SortKey() = default;
  SortKey(std::string_view k, size_t i) : head(word_at(k, 0)), next(word_at(k, 8)), key(k), index(i) {}
  static uint64_t word_at(std::string_view k, size_t from) {
    uint64_t w = 0;
    for (size_t i = 0; i < 8; ++i) w = w << 8 | (from + i < k.size() ? static_cast<unsigned char>(k[from + i]) : 0u);
    return w;
  }
  // Unequal words order as the keys do (a key that ended is padded with zeros, which sort
  // first as its shorter text does); equal words leave it to the whole keys. Ties keep the
  // order of add.
  friend bool operator<(const SortKey& a, const SortKey& b) {
    if (a.head != b.head) return a.head < b.head;
    if (a.next != b.next) return a.next < b.next;
    if (const int c = a.key.compare(b.key); c != 0) return c < 0;
    return a.index < b.index;
  }
};

// Moves pods[order[i]] into slot i for every i, in place, following each cycle of the
// permutation once (a sorted copy would be as big again). The record a few moves ahead is
// fetched meanwhile: the sources are scattered, and waiting for each in turn is most of
// the cost.
void apply_order(std::vector<PodInfo>& pods, std::vector<size_t>& order) {
  constexpr int kAhead = 4;
  auto prefetch = [&pods](size_t i) {
    const char* record = reinterpret_cast<const char*>(&pods[i]);
    for (size_t line = 0; line < sizeof(PodInfo); line += 64) __builtin_prefetch(record + line);
  };
  for (size_t start = 0; start < order.size(); ++start) {
    if (order[start] == start) continue;
    size_t ahead = order[start];
    for (int i = 0; i < kAhead && ahead != start; ++i) {
      prefetch(ahead);
      ahead = order[ahead];
    }
    PodInfo held = std::move(pods[start]);
    size_t at = start;
    while (order[at] != start) {
      const size_t from = order[at];
      if (ahead != start) {
        prefetch(ahead);
        ahead = order[ahead];
      }
      pods[at] = std::move(pods[from]);
      order[at] = at;
      at = from;
    }
    pods[at] = std::move(held);
    order[at] = at;
  }
}

// Records sorted by key through their indexes, then moved about once each (a PodInfo is
// large: sorting 100,000 of them directly moves each many times). Sets slots[i] to where
// pods[i] landed.
void sort_by_key(std::vector<PodInfo>& pods, std::vector<size_t>& slots) {
  std::vector<SortKey> keys(pods.size());
  for (size_t i = 0; i < pods.size(); ++i) keys[i] = SortKey(pods[i].key, i);
  // A big list's halves are sorted on two cores, then merged.
  if (keys.size() >= kSortOnTwoThreads) {
    const auto middle = keys.begin() + static_cast<std::ptrdiff_t>(keys.size() / 2);
    {
      std::jthread other([&] { std::sort(keys.begin(), middle); });
      std::sort(middle, keys.end());
    }
    std::inplace_merge(keys.begin(), middle, keys.end());
  } else {
    std::sort(keys.begin(), keys.end());
  }
  std::vector<size_t> order(pods.size());   // slot i takes pods[order[i]]
  for (size_t i = 0; i < keys.size(); ++i) {
    order[i] = keys[i].index;
    slots[keys[i].index] = i;
  }
  keys = {};
  apply_order(pods, order);
}
}  // namespace

Snapshot SnapshotBuilder::build(TimePoint now) {
  Snapshot s = std::move(snap_);
  snap_ = Snapshot{};
  s.now = now;
  auto class_value = [&](const std::string& name, int32_t fallback) -> int32_t {
    if (!name.empty())
      if (auto it = s.priority_classes.find(name); it != s.priority_classes.end()) return it->second;
    return default_priority_.value_or(fallback);
  };
  for (auto& p : s.pods)
    if (p.priority == 0) p.priority = class_value(p.priority_class, 0);
  for (auto& [k, g] : s.podgroups) {
    (void)k;
    g.priority = g.explicit_priority.value_or(class_value(g.priority_class, 0));
  }
  link_composite_groups(s);
  if (!s.queues.count(kDefaultQueue)) s.queues[kDefaultQueue] = QueueInfo{.name = kDefaultQueue};
  // A gang holding a reserved room passes the reserved-room filter where others do not.
  for (auto& p : s.pods)
    if (auto g = s.podgroups.find(p.group); g != s.podgroups.end() && g->second.reservation)
      p.filter_signature = p.filter_signature + "|room:" + p.group;
  auto by_name = [](const NodeInfo& a, const NodeInfo& b) { return a.name < b.name; };
  auto by_key = [](const PodInfo& a, const PodInfo& b) { return a.key < b.key; };
  if (!std::is_sorted(s.nodes.begin(), s.nodes.end(), by_name)) std::sort(s.nodes.begin(), s.nodes.end(), by_name);
  pod_slots_.resize(s.pods.size());
  for (size_t i = 0; i < pod_slots_.size(); ++i) pod_slots_[i] = i;
  if (!std::is_sorted(s.pods.begin(), s.pods.end(), by_key)) sort_by_key(s.pods, pod_slots_);
  std::sort(s.hypernodes.begin(), s.hypernodes.end(),
            [](const HyperNodeInfo& a, const HyperNodeInfo& b) { return a.name < b.name; });
  default_priority_.reset();
  return s;
}

}  // namespace weft::scheduler
