#include "descheduler/core/cluster.h"

#include <algorithm>
#include <cctype>
#include <future>
#include <utility>

#include "common/fault_in.h"
#include "kube/load_annotation.h"
#include "kube/priority.h"
#include "kube/objects.h"
#include "kube/podgroup.h"
#include "scheduler/core/node_fields.h"
#include "scheduler/core/pod_fields.h"
#include "scheduler/core/query/group_name.h"

namespace weft::descheduler {
namespace {

using nlohmann::json;

// This side's record of a node, made from the scheduler's (its one decode).
NodeInfo node_record_of(const scheduler::NodeInfo& spec) {
  NodeInfo n;
  n.name = spec.name;
  for (const auto& [key, value] : spec.labels) n.labels.emplace_hint(n.labels.end(), key.str(), value.str());
  n.allocatable = spec.allocatable;
  n.taints = spec.taints;
  n.ready = spec.ready;
  n.unschedulable = spec.unschedulable;
  if (spec.load) {
    LoadSample s;
    s.cpu = spec.load->cpu;
    s.memory = spec.load->memory;
    s.cpu_at = spec.load->cpu_at;
    s.memory_at = spec.load->memory_at;
    s.source = spec.load->source.empty() ? "annotation" : spec.load->source;
    n.annotated_load = s;
  } else if (!spec.load_error.empty()) {
    n.annotation_error = "annotation " + std::string(keys::kLoadAnnotation) + ": " + spec.load_error;
  }
  return n;
}

// Each node's index in the snapshot (sorted by name, as it keeps them).
void link_nodes(Cluster& c) {
  const auto& nodes = c.snapshot.nodes;
  c.topology_node.assign(c.nodes.size(), -1);
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    auto it = std::lower_bound(nodes.begin(), nodes.end(), c.nodes[i].name,
                               [](const scheduler::NodeInfo& n, const std::string& name) { return n.name < name; });
    if (it != nodes.end() && it->name == c.nodes[i].name) c.topology_node[i] = static_cast<int>(it - nodes.begin());
  }
}

// Each pod's twin in the snapshot: `twins` (the order each was added to the snapshot's
// builder) through `slots` (where the builder put each).
void link_pods(Cluster& c, const std::vector<size_t>& twins, const std::vector<size_t>& slots) {
  for (size_t i = 0; i < c.pods.size(); ++i) {
    const size_t slot = slots[twins[i]];
    c.pods[i].core = static_cast<int>(slot);
    c.pods[i].spec = &c.snapshot.pods[slot];
  }
}

// Which budgets cover each pod (same namespace, selector matches), and each budget's
// allowance. Budgets are few: they are grouped by namespace so each pod tries only its own.
void match_pdbs(Cluster& c) {
  if (c.pdbs.empty()) return;
  std::unordered_map<std::string, std::vector<int>> by_ns;
  for (size_t i = 0; i < c.pdbs.size(); ++i) by_ns[c.pdbs[i].ns].push_back(static_cast<int>(i));
  for (size_t i = 0; i < c.pods.size(); ++i) {
    PodInfo& p = c.pods[i];
    if (p.terminal) continue;
    auto it = by_ns.find(p.ns);
    if (it == by_ns.end()) continue;
    for (int b : it->second) {
      PdbInfo& pdb = c.pdbs[static_cast<size_t>(b)];
      if (!pdb.selector || !pdb.selector->matches(p.labels())) continue;
      p.pdbs.push_back(b);
      ++pdb.expected;
      if ((p.phase.empty() || p.phase == "Running") && !p.terminating) ++pdb.healthy;
    }
  }
  for (auto& pdb : c.pdbs) pdb.disruptions_allowed = pdb.compute_allowed();
}

}  // namespace

bool PodInfo::requests_rdma() const {
  for (const auto& [res, _] : requests()) {
    std::string lower = res;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (lower.find("rdma") != std::string::npos) return true;
  }
  return false;
}

std::string PodInfo::owner_key() const {
  return owner_uid.empty() ? owner_kind + "/" + ns + "/" + owner_name : owner_uid;
}

std::string PodInfo::workload() const {
  if (!group.empty()) return "PodGroup/" + ns + "/" + group;
  if (!owner_kind.empty()) return owner_kind + "/" + ns + "/" + owner_name;
  return "Pod/" + ns + "/" + name;
}

LoadReport load_from_annotations(const Cluster& cluster) {
  LoadReport report;
  report.source_name = std::string("annotations ") + keys::kLoadAnnotation;
  for (const auto& n : cluster.nodes) {
    if (n.annotated_load) report.nodes[n.name] = *n.annotated_load;
    else if (!n.annotation_error.empty()) report.invalid[n.name] = n.annotation_error;
  }
  return report;
}

const NodeInfo* Cluster::node(const std::string& name) const {
  auto it = node_index.find(name);
  return it == node_index.end() ? nullptr : &nodes[static_cast<size_t>(it->second)];
}

Status ClusterBuilder::add(const json& obj, const std::string& where) {
  return kube::refuse_type_errors(where, [&] { return add_checked(obj, where); });
}

Result<bool> arrives_later(const json& obj, const std::string& where) {
  return arrives_later(kube::annotation(obj, keys::kArrivalAnnotation, "0"), where);
}

Status ClusterBuilder::add_checked(const json& obj, const std::string& where) {
  auto later = arrives_later(obj, where);
  if (!later) return later.error();
  if (*later) return {};
  std::string kind = kube::kind_of(obj);
  if (kind == "Node") {
    // Checked here first: the snapshot's builder has no undo.
    if (cluster_.node_index.count(kube::name_of(obj))) return make_error(where + ": node " + kube::name_of(obj) + " appears twice");
    auto spec = scheduler::node_info_of(obj, where, &decode_pools_);
    if (!spec) return spec.error();
    ReadNode read;
    read.own = node_record_of(*spec);
    read.spec = std::move(*spec);
    (void)add_read(std::move(read));
    return {};
  }
  if (kind == "Pod") return add_pod(obj, where);
  if (kind != "PriorityClass" && kind != "PodDisruptionBudget")
    return scheduler::known_kind(kind) ? scheduling_.add(obj, where) : Status{};
  if (kind == "PriorityClass") {
    const json& v = obj.contains("value") ? obj["value"] : json();
    if (!v.is_number_integer()) return make_error(where + ": value must be an integer");
    if (auto s = scheduling_.add(obj, where); !s) return s;
    cluster_.priority_classes[kube::name_of(obj)] = v.get<int32_t>();
    return {};
  }
  if (kind == "PodDisruptionBudget") {
    auto pdb = parse_pdb(obj);
    if (!pdb) return wrap(pdb.error(), where + ": PodDisruptionBudget " + kube::key_of(obj));
    cluster_.pdbs.push_back(std::move(*pdb));
    return {};
  }
  return {};
}

Status ClusterBuilder::add_pod(const json& obj, const std::string& where) { return add_pod_text(obj.dump(), where); }

Status ClusterBuilder::add_pod_text(std::string_view text, const std::string& where) {
  auto pod = reader_.read_text(text, where);
  if (!pod) return pod.error();
  add_read(std::move(*pod));
  return {};
}

bool ClusterBuilder::added_as_pod(std::string_view text, const std::string& where, bool kind_implied) {
  auto pod = reader_.read_if_pod(text, where, kind_implied);
  if (pod) add_read(std::move(*pod));
  return pod.has_value();
}

Result<ClusterBuilder::ReadPod> ClusterBuilder::TextReader::read_text(std::string_view text, const std::string& where) {
  if (auto s = scheduler::pod_fields_of_text(text, fields_, false, &facts_); !s)
    return make_error((where.empty() ? "" : where + ": ") + s.message());
  return read_fields(std::move(fields_), where);
}

std::optional<ClusterBuilder::ReadPod> ClusterBuilder::TextReader::read_if_pod(std::string_view text,
                                                                            const std::string& where,
                                                                            bool kind_implied) {
  const bool decoded = scheduler::pod_fields_of_text(text, fields_, false, &facts_).ok();
  const bool pod = facts_.kind() == "Pod" || (kind_implied && facts_.kind().empty());
  // Anything else (or a pod it would refuse) goes the general way, whose errors name more.
  if (!decoded || !pod || !facts_.has_metadata()) return std::nullopt;
  auto read = read_fields(std::move(fields_), where);
  if (!read) return std::nullopt;
  return std::move(*read);
}

std::optional<ClusterBuilder::ReadNode> ClusterBuilder::TextReader::read_if_node(std::string_view text,
                                                                              const std::string& where,
                                                                              bool kind_implied) {
  // Anything else, or a node it would refuse, goes the general way (as read_if_pod).
  auto fields = scheduler::node_fields_of_text(text);
  if (!fields || !(fields->kind == "Node" || (kind_implied && fields->kind.empty()))) return std::nullopt;
  auto later = arrives_later(fields->arrival, where);
  if (!later) return std::nullopt;
  ReadNode read;
  if (*later) {
    read.later = true;
    return read;
  }
  auto spec = scheduler::node_info_from(std::move(*fields), where, &pools_);
  if (!spec) return std::nullopt;
  read.own = node_record_of(*spec);
  read.spec = std::move(*spec);
  return read;
}

// Every pod goes to the snapshot (GangDefragment places the pending ones); bound pods are
// kept here too, with their eviction facts (read in the same pass).
Result<ClusterBuilder::ReadPod> ClusterBuilder::TextReader::read_fields(scheduler::PodFields&& fields,
                                                                     const std::string& where) {
  const std::string* arrival = nullptr;
  for (const auto& [key, value] : fields.annotations)
    if (key == keys::kArrivalAnnotation) arrival = &value;
  auto later = arrives_later(arrival ? *arrival : "", where);
  if (!later) return later.error();
  ReadPod read;
  if (*later) {
    read.later = true;
    return read;
  }
  read.node = fields.node_name;
  auto spec = scheduler::pod_info_from(std::move(fields), where, &pools_);
  if (!spec) return spec.error();
  // pod_info_from took the texts it keeps (the name); the rest of `fields` is still there.
  auto pod = facts_.facts(fields, *spec);
  if (!read.node.empty() && !pod) return wrap(pod.error(), where);
  read.spec = std::move(*spec);
  if (!read.node.empty()) read.bound = std::move(*pod);
  return read;
}

void ClusterBuilder::add_read(ReadPod&& pod) {
  if (pod.later) return;
  const size_t twin = scheduling_.pods_added();
  scheduling_.add(std::move(pod.spec));
  if (!pod.bound) return;
  cluster_.pods.push_back(std::move(*pod.bound));
  pod_nodes_.push_back(std::move(pod.node));
  pod_twins_.push_back(twin);
}

bool ClusterBuilder::add_read(ReadNode&& node) {
  if (node.later) return true;
  if (cluster_.node_index.count(node.own.name)) return false;
  cluster_.node_index[node.own.name] = static_cast<int>(cluster_.nodes.size());
  cluster_.nodes.push_back(std::move(node.own));
  scheduling_.add(std::move(node.spec));
  return true;
}

void ClusterBuilder::reserve_pods(size_t pods) {
  scheduling_.reserve(0, pods);
  cluster_.pods.reserve(pods);
  pod_nodes_.reserve(pods);
  pod_twins_.reserve(pods);
}

ClusterBuilder::PodRoom ClusterBuilder::reserved_pod_room() {
  const auto [scheduling, room] = scheduling_.reserved_pod_room();
  return {{cluster_.pods.data(), sizeof(PodInfo), cluster_.pods.capacity()},
          {scheduling, sizeof(scheduler::PodInfo), room}};
}

void ClusterBuilder::PodRoom::fault_in(size_t pods) const {
  for (const Records& r : {own, scheduling}) (void)weft::fault_in(r.begin, std::min(pods, r.pods) * r.bytes_per_pod);
}

size_t ClusterBuilder::pod_capacity() const {
  size_t total = 0;
  for (const auto& n : cluster_.nodes) {
    auto pods = n.allocatable.find("pods");
    total += pods == n.allocatable.end() ? 110 : static_cast<size_t>(std::max<int64_t>(0, pods->second / 1000));
  }
  return total;
}

Cluster ClusterBuilder::finish(TimePoint now) {
  Cluster c = std::move(cluster_);
  c.snapshot = scheduling_.build(now);
  c.groups = c.snapshot.podgroups;
  // The scheduler's topology reads only the snapshot's nodes and HyperNodes, and what
  // follows here only reads the snapshot: it is built meanwhile, on another core.
  auto topology = std::async(std::launch::async, [&snapshot = std::as_const(c.snapshot)] {
    return scheduler::build_topology(snapshot);
  });
  link_pods(c, pod_twins_, scheduling_.pod_slots());
  // Kept pods are compacted in place: a second vector of 100,000 pods would double the peak.
  size_t kept = 0;
  for (size_t i = 0; i < c.pods.size(); ++i) {
    auto it = c.node_index.find(pod_nodes_[i]);
    if (it == c.node_index.end() || !c.pods[i].spec) continue;
    if (kept != i) c.pods[kept] = std::move(c.pods[i]);
    PodInfo& p = c.pods[kept];
    p.node = it->second;
    p.has_priority = p.priority_in_spec;
    if (!p.priority_in_spec && !p.priority_class.empty()) {
      // Hand-written scenarios name a class without the admission-filled spec.priority.
      p.has_priority = true;
      if (auto pc = c.priority_classes.find(p.priority_class); pc != c.priority_classes.end()) p.priority = pc->second;
      else if (auto builtin = kube::builtin_priority(p.priority_class.view())) p.priority = *builtin;
      else p.has_priority = false;
    }
    NodeInfo& n = c.nodes[static_cast<size_t>(it->second)];
    if (p.terminal) {
      n.terminal_pods.push_back(static_cast<int>(kept++));
      continue;
    }
    kube::add_to(n.requested, p.requests());
    n.pods.push_back(static_cast<int>(kept));
    if (!p.terminating && !p.group.empty()) c.running_in_group[p.ns + "/" + p.group]++;
    if (!p.owner_kind.empty()) c.pods_of_owner[p.owner_key()]++;
    ++kept;
  }
  c.pods.erase(c.pods.begin() + static_cast<std::ptrdiff_t>(kept), c.pods.end());
  link_nodes(c);
  match_pdbs(c);
  pod_nodes_ = {};
  pod_twins_ = {};
  c.topology = topology.get();
  return c;
}

}  // namespace weft::descheduler
