#include "tools/demo/report/defragment_check.h"

#include <algorithm>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "kube/objects.h"
#include "kube/reservation.h"
#include "kube/time.h"

namespace weft::demo {

namespace {

// Pod keys kube-lite answered 201 to a POST of their eviction subresource.
std::set<std::string> evicted_through_api(const std::string& log) {
  std::set<std::string> out;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    auto r = nlohmann::json::parse(line, nullptr, false);
    if (r.is_discarded() || r.value("verb", "") != "POST" || r.value("status", 0) != 201) continue;
    // /api/v1/namespaces/<ns>/pods/<name>/eviction
    const std::string path = r.value("path", "");
    const std::string prefix = "/api/v1/namespaces/", suffix = "/eviction";
    if (path.rfind(prefix, 0) != 0 || path.size() < suffix.size() ||
        path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string middle = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
    const auto cut = middle.find("/pods/");
    if (cut == std::string::npos) continue;
    out.insert(middle.substr(0, cut) + "/" + middle.substr(cut + 6));
  }
  return out;
}

const PodView* pod_in(const ClusterView& v, const std::string& key) {
  for (const auto& p : v.pods)
    if (p.key == key) return &p;
  return nullptr;
}

}  // namespace

Problems check_defragment(const DefragmentEvidence& e, nlohmann::json& seen) {
  Problems problems;
  const std::string gang_key = "ml/" + e.gang;
  seen = {{"gang", gang_key}, {"evictions", nlohmann::json::array()}, {"gang_pods", nlohmann::json::array()}};

  // The reservation, as the descheduler left it on the PodGroup.
  std::optional<weft::kube::Reservation> reservation;
  for (const auto& g : e.podgroups.value("items", nlohmann::json::array())) {
    if (weft::kube::key_of(g) != gang_key) continue;
    const std::string text = weft::kube::annotation(g, weft::kube::kReservationAnnotation);
    if (text.empty()) break;
    auto r = weft::kube::parse_reservation(text, "PodGroup " + gang_key);
    if (!r) problems.push_back(r.message());
    else reservation = *r;
  }
  std::set<std::string> reserved, reserved_leaves;
  if (!reservation) {
    problems.push_back(fmt::format("PodGroup {} carries no {} annotation", gang_key, weft::kube::kReservationAnnotation));
  } else {
    reserved.insert(reservation->nodes.begin(), reservation->nodes.end());
    seen["domain"] = reservation->domain;
    seen["reserved_nodes"] = reservation->nodes;
    seen["expires"] = weft::kube::format_rfc3339(reservation->expires);
    for (const auto& n : reservation->nodes) {
      const NodeView* node = e.after->node(n);
      if (!node) problems.push_back("the reservation names node " + n + ", which the API does not have");
      else reserved_leaves.insert(node->leaf), seen["fabric"] = node->fabric;
    }
    if (reservation->nodes.empty()) problems.push_back("the reservation holds no node");
    if (reserved_leaves.size() > 1)
      problems.push_back(fmt::format("the reserved nodes span {} leaves", reserved_leaves.size()));
    if (reserved_leaves.size() == 1) seen["leaf"] = *reserved_leaves.begin();
  }

  // The victims: evicted for this gang, through the Eviction API, re-created outside the room.
  const auto via_api = evicted_through_api(e.api_log);
  const std::string reason_prefix = "defragment: gang " + gang_key;
  int for_gang = 0;
  for (const auto& ev : e.plan.value("evictions", nlohmann::json::array())) {
    const std::string pod = ev.value("pod", ""), reason = ev.value("reason", "");
    if (reason.rfind(reason_prefix, 0) != 0) {
      problems.push_back(fmt::format("evicted {} for another reason: {}", pod, reason));
      continue;
    }
    ++for_gang;
    nlohmann::json v = {{"pod", pod}, {"from", ev.value("from", "")}, {"planned_to", ev.value("to", "")},
                        {"reason", reason}, {"eviction_api", via_api.count(pod) > 0}};
    if (const PodView* b = e.before ? pod_in(*e.before, pod) : nullptr) {
      v["priority"] = b->priority;
      v["cpu_request"] = weft::kube::to_base_units(b->requests.count("cpu") ? b->requests.at("cpu") : 0);
    }
    if (!via_api.count(pod)) problems.push_back("no successful eviction of " + pod + " in the API's request log");
    if (!reserved.count(v["from"].get<std::string>()))
      problems.push_back(fmt::format("victim {} came from {}, outside the reserved room", pod, v["from"].get<std::string>()));
    const PodView* now = pod_in(*e.after, pod);
    if (!now || now->node.empty() || now->phase != "Running") {
      problems.push_back("victim " + pod + " was not re-placed and Running");
    } else {
      v["to"] = now->node;
      v["phase"] = now->phase;
      if (reserved.count(now->node))
        problems.push_back(fmt::format("victim {} came back into the reserved room, on {}", pod, now->node));
    }
    seen["evictions"].push_back(v);
  }
  if (for_gang == 0) problems.push_back("weft-descheduler evicted nothing for gang " + gang_key);

  // The gang: every pod bound, Running, inside the reserved room.
  std::set<std::string> gang_leaves;
  int pods = 0;
  for (const auto& p : e.after->pods) {
    if (p.job != e.gang) continue;
    ++pods;
    const NodeView* n = e.after->node(p.node);
    seen["gang_pods"].push_back({{"pod", p.key}, {"node", p.node}, {"leaf", n ? n->leaf : ""}, {"phase", p.phase}});
    if (p.node.empty() || p.phase != "Running") {
      problems.push_back("gang pod " + p.key + " is not bound and Running");
      continue;
    }
    if (n) gang_leaves.insert(n->leaf);
    if (reservation && !reserved.count(p.node))
      problems.push_back(fmt::format("gang pod {} is on {}, outside the reserved nodes", p.key, p.node));
  }
  if (pods == 0) problems.push_back("gang " + gang_key + " has no pods");
  if (gang_leaves.size() > 1) problems.push_back(fmt::format("gang {} spans {} leaves", gang_key, gang_leaves.size()));
  return problems;
}

}  // namespace weft::demo
