#include "tests/crash/invariants.h"

#include <regex>

#include "kube/client/resource.h"
#include "kube/objects.h"
#include "kube/quantity.h"
#include "kube/reservation.h"
#include "tools/kube-lite/disruption.h"

namespace weft::testing::crash {

using nlohmann::json;

namespace {

std::vector<json> items(kube::Client& client, const kube::ResourceRef& ref, const std::string& ns) {
  auto list = client.list(ref, ns);
  return list ? list->items : std::vector<json>{};
}

bool holds_node(const json& pod) {
  const std::string phase = pod["status"].value("phase", "");
  return !pod["spec"].value("nodeName", "").empty() && phase != "Succeeded" && phase != "Failed";
}

int64_t milli(const json& list, const std::string& resource) {
  if (!list.is_object() || !list.contains(resource)) return 0;
  auto q = kube::parse_quantity_milli(list[resource]);
  return q ? *q : 0;
}

// Free room per node: allocatable minus what the pods holding it request.
std::map<std::string, std::map<std::string, int64_t>> free_room(const ClusterView& v) {
  std::map<std::string, std::map<std::string, int64_t>> free;
  for (const auto& n : v.nodes) {
    const json allocatable = n["status"].value("allocatable", json::object());
    for (const auto& [r, q] : allocatable.items()) free[kube::name_of(n)][r] = milli(allocatable, r);
  }
  for (const auto& p : v.pods) {
    if (!holds_node(p)) continue;
    auto& room = free[p["spec"]["nodeName"].get<std::string>()];
    if (room.count("pods")) room["pods"] -= 1000;
    const json containers = p["spec"].value("containers", json::array());
    for (const auto& c : containers) {
      const json req = c.value("resources", json::object()).value("requests", json::object());
      for (const auto& [r, q] : req.items())
        if (room.count(r)) room[r] -= milli(req, r);   // only what the node declares
    }
  }
  return free;
}

json requests_of(const json& pod) {
  json sum = json::object();
  const json containers = pod["spec"].value("containers", json::array());
  for (const auto& c : containers) {
    const json requests = c.value("resources", json::object()).value("requests", json::object());
    for (const auto& [r, q] : requests.items()) sum[r] = sum.value(r, int64_t{0}) + milli(requests, r);
  }
  return sum;
}

}  // namespace

std::string group_of(const json& pod) {
  const std::string g = pod["metadata"].value("annotations", json::object()).value("scheduling.k8s.io/group-name", "");
  return g.empty() ? "" : pod["metadata"].value("namespace", "") + "/" + g;
}

ClusterView ClusterView::read(kube::Client& client) {
  ClusterView v;
  v.nodes = items(client, kube::resources::nodes(), "");
  v.pods = items(client, kube::resources::pods(), "");
  v.podgroups = items(client, kube::resources::podgroups(), "");
  v.budgets = items(client, kube::resources::poddisruptionbudgets(), "");
  return v;
}

std::map<std::string, int> ClusterView::bound_by_group() const {
  std::map<std::string, int> out;
  for (const auto& pg : podgroups) out[kube::key_of(pg)] = 0;
  for (const auto& p : pods)
    if (holds_node(p) && !group_of(p).empty()) ++out[group_of(p)];
  return out;
}

std::string gangs_whole_or_pending(const ClusterView& v) {
  std::string out;
  const auto bound = v.bound_by_group();
  for (const auto& pg : v.podgroups) {
    const int min_member = pg["spec"].value("minMember", 1);
    const int n = bound.at(kube::key_of(pg));
    if (n > 0 && n < min_member)
      out += "gang " + kube::key_of(pg) + " has " + std::to_string(n) + " of " + std::to_string(min_member) +
             " bound; ";
  }
  return out;
}

std::string no_node_over_capacity(const ClusterView& v) {
  std::string out;
  for (const auto& [node, room] : free_room(v))
    for (const auto& [resource, left] : room)
      if (left < 0) out += "node " + node + " over capacity in " + resource + " by " + std::to_string(-left) + "m; ";
  return out;
}

std::string no_budget_violated(const ClusterView& v) {
  // Computed from the pods now (kube-lite's disruption rules), not the budget's stored
  // status: that is written on evictions only, and a pod may also go by a delete.
  std::string out;
  for (const auto& b : v.budgets) {
    std::vector<json> in_namespace;
    for (const auto& p : v.pods)
      if (p["metadata"].value("namespace", "") == b["metadata"].value("namespace", "")) in_namespace.push_back(p);
    auto st = kube_lite::compute_disruption(b, in_namespace);
    if (!st) {
      out += "budget " + kube::name_of(b) + ": " + st.message() + "; ";
      continue;
    }
    if (st->current_healthy < st->desired_healthy)
      out += "budget " + kube::name_of(b) + " has " + std::to_string(st->current_healthy) + " healthy of " +
             std::to_string(st->desired_healthy) + "; ";
  }
  return out;
}

std::string no_idle_reservation(const ClusterView& v) {
  std::string out;
  const auto bound = v.bound_by_group();
  std::map<std::string, std::vector<json>> pending;
  for (const auto& p : v.pods)
    if (p["spec"].value("nodeName", "").empty() && !group_of(p).empty()) pending[group_of(p)].push_back(p);
  auto free = free_room(v);
  for (const auto& pg : v.podgroups) {
    const json annotations = pg["metadata"].value("annotations", json::object());
    if (!annotations.contains(kube::kReservationAnnotation)) continue;
    const std::string key = kube::key_of(pg);
    auto room = kube::parse_reservation(annotations[kube::kReservationAnnotation].get<std::string>(), key);
    if (!room || !room->live(std::chrono::system_clock::now())) continue;   // lapsed: holds nothing
    if (bound.at(key) >= pg["spec"].value("minMember", 1) || pending[key].empty()) {
      out += "PodGroup " + key + " keeps a reservation nothing waits for; ";
      continue;
    }
    // Its pending pods, one by one, on the reserved nodes' free room.
    size_t fitted = 0;
    for (const auto& p : pending[key]) {
      const json want = requests_of(p);
      for (const auto& node : room->nodes) {
        auto& f = free[node];
        bool fits = !f.count("pods") || f["pods"] >= 1000;
        for (const auto& [r, q] : want.items()) fits = fits && f.count(r) && f[r] >= q.get<int64_t>();
        if (!fits) continue;
        for (const auto& [r, q] : want.items()) f[r] -= q.get<int64_t>();
        if (f.count("pods")) f["pods"] -= 1000;
        ++fitted;
        break;
      }
    }
    if (fitted < pending[key].size())
      out += "PodGroup " + key + " reserves " + room->domain + " where only " + std::to_string(fitted) + " of its " +
             std::to_string(pending[key].size()) + " pending pods fit; ";
  }
  return out;
}

std::string no_pod_evicted_twice(const std::vector<json>& requests, const std::map<std::string, int>& created) {
  static const std::regex eviction("/api/v1/namespaces/([^/]+)/pods/([^/]+)/eviction");
  std::map<std::string, int> evicted;
  for (const auto& r : requests) {
    std::smatch m;
    const std::string path = r.value("path", "");
    if (r.value("verb", "") == "POST" && r.value("status", 0) / 100 == 2 && std::regex_match(path, m, eviction))
      ++evicted[m[1].str() + "/" + m[2].str()];
  }
  std::string out;
  for (const auto& [pod, n] : evicted) {
    auto c = created.find(pod);
    const int lives = c == created.end() ? 1 : c->second;
    if (n > lives) out += "pod " + pod + " evicted " + std::to_string(n) + " times in " + std::to_string(lives) + " lives; ";
  }
  return out;
}

std::string all_invariants(const ClusterView& v, const std::vector<json>& requests,
                           const std::map<std::string, int>& created) {
  return gangs_whole_or_pending(v) + no_node_over_capacity(v) + no_budget_violated(v) + no_idle_reservation(v) +
         no_pod_evicted_twice(requests, created);
}

}  // namespace weft::testing::crash
