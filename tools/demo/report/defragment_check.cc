#include "tools/demo/report/defragment_check.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "kube/objects.h"
#include "kube/reservation.h"
#include "kube/time.h"

namespace weft::demo {

namespace {

// For each pod key, the times ("at", RFC 3339 with milliseconds, so they order as text) at
// which kube-lite answered 201 to a POST of the pod's `subresource` (eviction, binding).
std::map<std::string, std::vector<std::string>> posts_through_api(const std::string& log,
                                                                  const std::string& subresource) {
  std::map<std::string, std::vector<std::string>> out;
  std::istringstream in(log);
  std::string line;
  const std::string prefix = "/api/v1/namespaces/", suffix = "/" + subresource;
  while (std::getline(in, line)) {
    auto r = nlohmann::json::parse(line, nullptr, false);
    if (r.is_discarded() || !r.is_object() || r.value("verb", "") != "POST" || r.value("status", 0) != 201) continue;
    // /api/v1/namespaces/<ns>/pods/<name>/<subresource>
    const std::string path = r.value("path", "");
    if (path.rfind(prefix, 0) != 0 || path.size() < prefix.size() + suffix.size() ||
        path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string middle = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
    const auto cut = middle.find("/pods/");
    if (cut == std::string::npos) continue;
    out[middle.substr(0, cut) + "/" + middle.substr(cut + 6)].push_back(r.value("at", ""));
  }
  return out;
}

// When the gang had min_member pods bound (the scheduler lets go of the room then), from the
// bindings of its pods in the API's log; "" when it never had.
std::string gang_placed_at(const std::map<std::string, std::vector<std::string>>& bindings,
                           const ClusterView& after, const std::string& gang, int min_member) {
  std::vector<std::string> times;
  for (const auto& p : after.pods)
    if (p.job == gang)
      if (auto b = bindings.find(p.key); b != bindings.end() && !b->second.empty()) times.push_back(b->second.back());
  if (min_member <= 0 || times.size() < static_cast<size_t>(min_member)) return "";
  std::sort(times.begin(), times.end());
  return times[min_member - 1];
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
  int min_member = 0;
  for (const auto& g : e.podgroups.value("items", nlohmann::json::array())) {
    if (weft::kube::key_of(g) != gang_key) continue;
    if (const auto& spec = g.value("spec", nlohmann::json::object()); spec.contains("minMember") &&
                                                                       spec["minMember"].is_number_integer())
      min_member = spec["minMember"].get<int>();
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

  // The victims: evicted for this gang, through the Eviction API, re-created outside the room
  // while the gang is not yet placed.
  const auto via_api = posts_through_api(e.api_log, "eviction");
  const auto bindings = posts_through_api(e.api_log, "binding");
  int gang_size = 0;
  for (const auto& p : e.after->pods) gang_size += p.job == e.gang;
  // The room is held until the gang has minMember pods bound; a victim may fill what the
  // gang leaves of it after that.
  const std::string placed_at = gang_placed_at(bindings, *e.after, e.gang, min_member > 0 ? min_member : gang_size);
  if (!placed_at.empty()) seen["gang_placed_at"] = placed_at;
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
      const auto b = bindings.find(pod);
      const std::string bound_at = b != bindings.end() && !b->second.empty() ? b->second.back() : "";
      if (!bound_at.empty()) v["bound_at"] = bound_at;
      if (reserved.count(now->node) && (placed_at.empty() || bound_at.empty() || bound_at <= placed_at))
        problems.push_back(fmt::format("victim {} came back into the reserved room, on {}, before the gang was placed",
                                       pod, now->node));
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
