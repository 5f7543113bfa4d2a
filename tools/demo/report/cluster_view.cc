#include "tools/demo/report/cluster_view.h"

#include <fstream>
#include <sstream>

#include "common/keys.h"
#include "kube/load_annotation.h"
#include "kube/objects.h"
#include "kube/podgroup.h"

namespace weft::demo {

namespace {

// The report shows what a dump holds, so a stale reading is shown too; one that does
// not decode is unknown (docs/contracts.md).
std::optional<double> load_cpu(const nlohmann::json& node) {
  const std::string text = weft::kube::annotation(node, weft::keys::kLoadAnnotation);
  if (text.empty()) return std::nullopt;
  auto load = weft::kube::decode_load_annotation(text);
  if (!load) return std::nullopt;
  return load->cpu;
}

bool has_no_schedule_taint(const nlohmann::json& node) {
  for (const auto& t : node.value("spec", nlohmann::json::object()).value("taints", nlohmann::json::array()))
    if (t.value("effect", "") == "NoSchedule") return true;
  return false;
}

// A pod's requests as the scheduler counts them; a quantity that does not parse is an error
// naming the pod, so a check never sizes room from a guess.
Result<weft::kube::ResourceList> pod_requests(const nlohmann::json& pod) {
  auto r = weft::kube::pod_requests(pod);
  if (!r) return make_error("pod " + weft::kube::key_of(pod) + ": " + r.message());
  return r;
}

bool finished(const nlohmann::json& pod) {
  const std::string phase = pod.value("status", nlohmann::json::object()).value("phase", "");
  return phase == "Succeeded" || phase == "Failed";
}

const nlohmann::json& items_of(const nlohmann::json& list) {
  static const nlohmann::json empty = nlohmann::json::array();
  if (!list.is_object() || !list.contains("items") || !list["items"].is_array()) return empty;
  return list["items"];
}

}  // namespace

const NodeView* ClusterView::node(const std::string& name) const {
  auto it = nodes.find(name);
  return it == nodes.end() ? nullptr : &it->second;
}

Result<ClusterView> read_cluster(const nlohmann::json& nodes, const nlohmann::json& pods,
                                 const nlohmann::json& podgroups) {
  if (!nodes.is_object() || !nodes.contains("items")) return make_error("nodes: not a List");
  if (!pods.is_object() || !pods.contains("items")) return make_error("pods: not a List");
  ClusterView v;
  for (const auto& n : items_of(nodes)) {
    NodeView node;
    node.name = weft::kube::name_of(n);
    node.fabric = weft::kube::label(n, weft::keys::kFabric);
    node.leaf = weft::kube::label(n, weft::keys::kLeaf);
    node.spine = weft::kube::label(n, weft::keys::kSpine);
    node.cpu = load_cpu(n);
    node.control_plane = has_no_schedule_taint(n);
    const auto status = n.value("status", nlohmann::json::object());
    auto allocatable = weft::kube::parse_resource_list(status.value("allocatable", nlohmann::json::object()));
    if (!allocatable) return make_error("node " + node.name + ": status.allocatable: " + allocatable.message());
    node.allocatable = *allocatable;
    v.nodes[node.name] = node;
  }
  for (const auto& g : items_of(podgroups)) {
    auto group = weft::kube::parse_podgroup(g);
    if (!group) return make_error("podgroups: " + group.message());
    JobView job;
    job.name = group->name;
    job.min_member = group->min_member;
    job.same_cluster = group->same_ib_cluster;
    const auto& topo = group->network_topology;
    if (topo && topo->mode == weft::kube::PodGroupNetworkTopology::Mode::Hard)
      job.hard_tier = topo->highest_tier_allowed.value_or(1);
    job.kind = job.hard_tier ? "hard-tier gang" : "gang";
    v.jobs[job.name] = job;
  }
  for (const auto& p : items_of(pods)) {
    auto requests = pod_requests(p);
    if (!requests) return make_error("pods: " + requests.message());
    const std::string bound_to = p.value("spec", nlohmann::json::object()).value("nodeName", "");
    if (!bound_to.empty() && !finished(p))
      if (auto it = v.nodes.find(bound_to); it != v.nodes.end()) weft::kube::add_to(it->second.requested, *requests);
    PodView pod;
    pod.requests = *requests;
    pod.priority = p.value("spec", nlohmann::json::object()).value("priority", 0);
    pod.key = weft::kube::key_of(p);
    pod.name = weft::kube::name_of(p);
    pod.job = weft::kube::label(p, kJobLabel);
    if (pod.job.empty()) continue;   // not one of the demo's
    pod.node = p.value("spec", nlohmann::json::object()).value("nodeName", "");
    pod.phase = p.value("status", nlohmann::json::object()).value("phase", "");
    v.pods.push_back(pod);
  }
  for (size_t i = 0; i < v.pods.size(); ++i) {
    const auto& pod = v.pods[i];
    auto [it, added] = v.jobs.try_emplace(pod.job);
    if (added) {
      it->second.name = pod.job;
      it->second.kind = "plain";
    }
    it->second.pods.push_back(i);
  }
  return v;
}

Result<nlohmann::json> read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return make_error(path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded()) return make_error(path + ": not valid JSON");
  return j;
}

}  // namespace weft::demo
