#include "scheduler/core/simulation.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "kube/objects.h"
#include "kube/workload.h"
#include "scheduler/core/framework/ranks.h"
#include "scheduler/core/native_groups.h"
#include "scheduler/core/topology.h"

namespace weft::scheduler {
namespace {

// A group's minMember in the report: Volcano's spec.minMember; a Kubernetes PodGroup's
// gang minCount (basic: 1); a CompositePodGroup's is per child (minGroupCount beside it).
int min_member_of(const nlohmann::json& g) {
  if (kube::api_group_of(g) == kube::kWorkloadApiGroup) {
    if (kube::kind_of(g) != "PodGroup") return 1;
    auto pg = kube::parse_native_podgroup(g);
    return pg && pg->gang ? pg->min_count : 1;
  }
  if (g.contains("spec") && g["spec"].is_object() && g["spec"].contains("minMember") &&
      g["spec"]["minMember"].is_number_integer())
    return g["spec"]["minMember"].get<int>();
  return 1;
}

using nlohmann::json;

struct SimObject {
  json object;
  std::string where;
  int arrival = 0;
};

Result<int> arrival_of(const kube::SourcedObject& so) {
  std::string v = kube::annotation(so.object, keys::kArrivalAnnotation);
  if (v.empty()) {
    // Tolerate a number written without quotes.
    const json& md = so.object["metadata"];
    if (md.contains("annotations") && md["annotations"].is_object() && md["annotations"].contains(keys::kArrivalAnnotation)) {
      const json& n = md["annotations"][keys::kArrivalAnnotation];
      if (n.is_number_integer() && n.get<int>() >= 0) return n.get<int>();
      return make_error(so.where() + ": metadata.annotations." + keys::kArrivalAnnotation + ": " + n.dump() +
                        " is not a cycle number");
    }
    return 0;
  }
  try {
    size_t used = 0;
    int n = std::stoi(v, &used);
    if (used == v.size() && n >= 0) return n;
  } catch (const std::exception&) {
  }
  return make_error(so.where() + ": metadata.annotations." + keys::kArrivalAnnotation + ": '" + v +
                    "' is not a cycle number");
}

json resources_json(const std::map<std::string, double>& milli) {
  json out = json::object();
  for (const auto& [k, v] : milli)
    if (k != "pods") out[k] = v / 1000.0;
  if (!out.contains("cpu")) out["cpu"] = 0;
  if (!out.contains("memory")) out["memory"] = 0;
  return out;
}

// kube-scheduler's PreBind, then what the PV controller does with it: a static volume is
// bound to its claim at once; a claim to provision gets the selected node (no
// provisioner runs here, so it stays pending, as its pod may run only once it is bound).
json apply_claim_writes(std::vector<SimObject>& objects, const std::vector<ClaimWrite>& writes, int cycle) {
  json out = json::array();
  for (const auto& w : writes) {
    const auto slash = w.claim.find('/');
    const std::string ns = w.claim.substr(0, slash), name = w.claim.substr(slash + 1);
    for (auto& o : objects) {
      const std::string kind = kube::kind_of(o.object);
      std::string o_ns = kube::namespace_of(o.object);
      if (kind == "PersistentVolumeClaim" && (o_ns.empty() ? "default" : o_ns) == ns && kube::name_of(o.object) == name) {
        if (!w.selected_node.empty()) {
          o.object["metadata"]["annotations"][kSelectedNodeAnnotation] = w.selected_node;
        } else {
          o.object["spec"]["volumeName"] = w.volume;
          o.object["metadata"]["annotations"][kBindCompletedAnnotation] = "yes";
          o.object["status"]["phase"] = "Bound";
        }
      } else if (kind == "PersistentVolume" && !w.volume.empty() && kube::name_of(o.object) == w.volume) {
        o.object["spec"]["claimRef"] = {{"kind", "PersistentVolumeClaim"}, {"namespace", ns}, {"name", name}, {"uid", w.claim_uid}};
        o.object["status"]["phase"] = "Bound";
      }
    }
    json record = {{"claim", w.claim}, {"cycle", cycle}};
    if (w.volume.empty()) record["selected_node"] = w.selected_node;
    else record["volume"] = w.volume;
    out.push_back(std::move(record));
  }
  return out;
}

// Per group with ranked pods: adjacent ranks of its bound pods whose nodes sit in
// different lowest-tier domains (leaves), as placed at the end (ranks.h).
std::map<std::string, int> rank_crossings(const std::vector<SimObject>& objects) {
  SnapshotBuilder builder;
  for (const auto& o : objects)
    if (kube::kind_of(o.object) != "Pod") (void)builder.add(o.object, o.where);
  for (const auto& o : objects)
    if (kube::kind_of(o.object) == "Pod") (void)builder.add(o.object, o.where);
  const Snapshot snap = builder.build();
  const Topology topo = build_topology(snap);
  std::map<std::string, int> node_index;
  for (size_t n = 0; n < snap.nodes.size(); ++n) node_index[snap.nodes[n].name] = static_cast<int>(n);
  std::map<std::string, std::vector<std::pair<Rank, int>>> by_group;
  for (const auto& p : snap.pods) {
    if (p.group.empty() || p.node.empty() || p.terminal()) continue;
    auto g = snap.podgroups.find(p.group);
    auto rank = rank_of(p, g == snap.podgroups.end() ? nullptr : &g->second);
    auto n = node_index.find(p.node.str());
    if (rank && n != node_index.end()) by_group[p.group.str()].push_back({*rank, n->second});
  }
  std::map<std::string, int> out;
  for (const auto& [group, ranks] : by_group) out[group] = rank_pairs_crossing(topo, ranks);
  return out;
}

}  // namespace

Result<SimulationResult> simulate(const std::vector<kube::SourcedObject>& input, const Config& config,
                                  const SimulationOptions& options) {
  std::vector<SimObject> objects;
  int last_arrival = 0;
  std::set<std::string> queues{kDefaultQueue};
  {
    SnapshotBuilder check;   // validates every object once, with its location
    for (const auto& so : input) {
      auto arrival = arrival_of(so);
      if (!arrival) return arrival.error();
      if (auto st = check.add(so.object, so.where()); !st) return st.error();
      if (kube::kind_of(so.object) == "Queue") queues.insert(kube::name_of(so.object));
      objects.push_back({so.object, so.where(), *arrival});
      last_arrival = std::max(last_arrival, *arrival);
    }
  }
  for (const auto& o : objects) {
    if (kube::kind_of(o.object) != "PodGroup" || kube::api_group_of(o.object) == kube::kWorkloadApiGroup) continue;
    const json& spec = o.object.contains("spec") ? o.object["spec"] : json::object();
    if (spec.is_object() && spec.contains("queue") && spec["queue"].is_string() &&
        !queues.count(spec["queue"].get<std::string>()))
      return make_error(o.where + ": spec.queue: queue '" + spec["queue"].get<std::string>() +
                        "' is not in the scenario");
  }

  json bindings = json::array(), evictions = json::array(), volume_bindings = json::array();
  std::map<std::string, int> writes;
  std::map<std::string, size_t> pod_object;   // pod key -> index in objects
  for (size_t i = 0; i < objects.size(); ++i)
    if (kube::kind_of(objects[i].object) == "Pod") {
      std::string ns = kube::namespace_of(objects[i].object);
      pod_object[(ns.empty() ? "default" : ns) + "/" + kube::name_of(objects[i].object)] = i;
    }
  std::map<std::string, size_t> group_object;
  for (size_t i = 0; i < objects.size(); ++i)
    if (std::string key = group_key_of(objects[i].object); !key.empty()) group_object[key] = i;

  Decisions last;
  int cycles = 0;
  for (int cycle = 0; cycle < options.max_cycles; ++cycle) {
    cycles = cycle + 1;
    SnapshotBuilder builder;
    for (const auto& o : objects)
      if (o.arrival <= cycle)
        if (auto st = builder.add(o.object, o.where); !st) return st.error();
    Snapshot snap = builder.build(options.now);
    last = run_session(snap, config);
    for (auto& w : apply_claim_writes(objects, last.claim_writes, cycle)) volume_bindings.push_back(w);
    for (const auto& b : last.bindings) {
      bindings.push_back({{"pod", b.pod}, {"node", b.node}, {"cycle", cycle}});
      json& pod = objects[pod_object.at(b.pod)].object;
      pod["spec"]["nodeName"] = b.node;
      pod["status"]["phase"] = "Running";
    }
    for (const auto& e : last.evictions) {
      evictions.push_back({{"pod", e.pod}, {"node", e.node}, {"cycle", cycle}, {"reason", e.reason}});
      json& pod = objects[pod_object.at(e.pod)].object;
      pod["spec"].erase("nodeName");
      pod["status"]["phase"] = "Pending";
    }
    for (const auto& w : last.status_writes) {
      ++writes[w.podgroup];
      objects[group_object.at(w.podgroup)].object["status"] = w.status;
    }
    bool changed = !last.bindings.empty() || !last.evictions.empty() || !last.status_writes.empty();
    if (!changed && cycle >= last_arrival) break;
  }

  SimulationResult result;
  result.pending_reasons = last.unschedulable;
  json pods = json::array();
  std::map<std::string, int> scheduled;   // PodGroup key -> pods on a node, not finished
  for (const auto& [key, i] : pod_object) {
    const json& p = objects[i].object;
    std::string node = p.contains("spec") && p["spec"].contains("nodeName") && p["spec"]["nodeName"].is_string()
                           ? p["spec"]["nodeName"].get<std::string>() : "";
    std::string phase = p.contains("status") && p["status"].is_object() ? p["status"].value("phase", "") : "";
    if (!node.empty() && phase != "Succeeded" && phase != "Failed")
      if (std::string group = pod_group_key_of(p); !group.empty()) ++scheduled[group];
    if (phase.empty()) phase = node.empty() ? "Pending" : "Running";
    pods.push_back({{"pod", key}, {"node", node.empty() ? json(nullptr) : json(node)}, {"phase", phase}});
  }
  const std::map<std::string, int> crossing = rank_crossings(objects);
  json groups = json::array();
  for (const auto& [key, i] : group_object) {
    const json& g = objects[i].object;
    json status = g.contains("status") && g["status"].is_object() ? g["status"] : json::object();
    groups.push_back({{"name", key},
                      {"phase", status.value("phase", "Pending")},
                      {"scheduled", scheduled[key]},
                      {"minMember", min_member_of(g)},
                      {"status_writes", writes[key]},
                      {"conditions", status.value("conditions", json::array())}});
    if (auto cpg = kube::parse_composite_podgroup(g); cpg && kube::api_group_of(g) == kube::kWorkloadApiGroup &&
                                                      kube::kind_of(g) == "CompositePodGroup")
      groups.back()["minGroupCount"] = cpg->gang ? cpg->min_group_count : 0;
    if (auto c = crossing.find(key); c != crossing.end()) groups.back()["rank_pairs_crossing_leaf"] = c->second;
  }
  json queue_list = json::array();
  for (const auto& q : last.queues)
    queue_list.push_back({{"name", q.name},
                          {"weight", q.weight},
                          {"deserved", resources_json(q.deserved_units)},
                          {"allocated", resources_json(q.allocated_units)}});
  result.report = {{"cycles", cycles}, {"bindings", bindings}, {"evictions", evictions},
                   {"pods", pods},     {"podgroups", groups},  {"queues", queue_list}};
  if (!volume_bindings.empty()) result.report["volume_bindings"] = std::move(volume_bindings);
  return result;
}

std::string simulation_table(const SimulationResult& r) {
  std::ostringstream out;
  const json& rep = r.report;
  out << "cycles: " << rep["cycles"] << "\n\nPOD                                      NODE                 PHASE     REASON\n";
  for (const auto& p : rep["pods"]) {
    std::string pod = p["pod"], node = p["node"].is_null() ? "-" : p["node"].get<std::string>();
    auto it = r.pending_reasons.find(pod);
    char line[256];
    std::snprintf(line, sizeof line, "%-40s %-20s %-9s ", pod.c_str(), node.c_str(),
                  p["phase"].get<std::string>().c_str());
    out << line << (it == r.pending_reasons.end() ? "" : it->second) << "\n";
  }
  out << "\nPODGROUP                                 PHASE      SCHEDULED/MIN  WRITES\n";
  for (const auto& g : rep["podgroups"]) {
    char line[256];
    std::snprintf(line, sizeof line, "%-40s %-10s %5d/%-7d  %d\n", g["name"].get<std::string>().c_str(),
                  g["phase"].get<std::string>().c_str(), g["scheduled"].get<int>(), g["minMember"].get<int>(),
                  g["status_writes"].get<int>());
    out << line;
  }
  out << "\nQUEUE                WEIGHT  DESERVED(cpu, memory)          ALLOCATED(cpu, memory)\n";
  for (const auto& q : rep["queues"]) {
    char line[256];
    std::snprintf(line, sizeof line, "%-20s %6g  %8.3f cores %12.0f B  %8.3f cores %12.0f B\n",
                  q["name"].get<std::string>().c_str(), q["weight"].get<double>(), q["deserved"]["cpu"].get<double>(),
                  q["deserved"]["memory"].get<double>(), q["allocated"]["cpu"].get<double>(),
                  q["allocated"]["memory"].get<double>());
    out << line;
  }
  if (!rep["evictions"].empty()) {
    out << "\nEVICTIONS\n";
    for (const auto& e : rep["evictions"])
      out << "  cycle " << e["cycle"] << " " << e["pod"].get<std::string>() << " from " << e["node"].get<std::string>()
          << ": " << e["reason"].get<std::string>() << "\n";
  }
  return out.str();
}

}  // namespace weft::scheduler
