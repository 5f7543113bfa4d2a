#include "kube/reservation.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace weft::kube {

std::string format_reservation(const Reservation& r) {
  nlohmann::json j = {{"domain", r.domain}, {"nodes", r.nodes}, {"expires", format_rfc3339(r.expires)}};
  return j.dump();
}

Result<Reservation> parse_reservation(const std::string& text, const std::string& where) {
  auto fail = [&](const std::string& what) {
    return make_error(where + ": annotation " + kReservationAnnotation + ": " + what);
  };
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return fail("'" + text + "' is not a JSON object");
  for (const auto& [key, _] : j.items())
    if (key != "domain" && key != "nodes" && key != "expires") return fail(key + ": unknown field");
  Reservation r;
  if (!j.contains("domain") || !j["domain"].is_string() || j["domain"].get<std::string>().empty())
    return fail("domain: must be a non-empty string");
  r.domain = j["domain"].get<std::string>();
  if (!j.contains("nodes") || !j["nodes"].is_array() || j["nodes"].empty())
    return fail("nodes: must be a non-empty list of node names");
  for (size_t i = 0; i < j["nodes"].size(); ++i) {
    const auto& n = j["nodes"][i];
    if (!n.is_string() || n.get<std::string>().empty())
      return fail("nodes[" + std::to_string(i) + "]: must be a node name");
    r.nodes.push_back(n.get<std::string>());
  }
  std::sort(r.nodes.begin(), r.nodes.end());
  r.nodes.erase(std::unique(r.nodes.begin(), r.nodes.end()), r.nodes.end());
  if (!j.contains("expires") || !j["expires"].is_string()) return fail("expires: must be an RFC 3339 time");
  auto t = parse_rfc3339(j["expires"].get<std::string>());
  if (!t) return fail("expires: " + t.message());
  r.expires = *t;
  return r;
}

void ReservedRooms::add(const std::string& gang, const Reservation& r, bool satisfied, TimePoint now) {
  if (satisfied || !r.live(now)) return;
  // Two gangs never hold one node: the descheduler never plans that, and if stale
  // annotations say so anyway, the first (by caller order) keeps it.
  for (const auto& n : r.nodes) holder_.try_emplace(n, gang);
}

const std::string* ReservedRooms::holder(const std::string& node) const {
  auto it = holder_.find(node);
  return it == holder_.end() ? nullptr : &it->second;
}

bool ReservedRooms::blocks(const std::string& node, const std::string& gang) const {
  const std::string* h = holder(node);
  return h && *h != gang;
}

}  // namespace weft::kube
