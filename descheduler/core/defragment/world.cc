#include "descheduler/core/defragment/world.h"

#include "kube/objects.h"

namespace weft::descheduler::defragment {

using nlohmann::json;

Result<DisruptionBudget> parse_disruption_budget(const json& pdb, const std::string& where) {
  DisruptionBudget b;
  b.ns = kube::namespace_of(pdb);
  if (b.ns.empty()) b.ns = "default";
  b.name = kube::name_of(pdb);
  const json* spec = pdb.contains("spec") ? &pdb["spec"] : nullptr;
  if (spec && spec->is_object() && spec->contains("selector") && !(*spec)["selector"].is_null()) {
    auto sel = kube::LabelSelector::from_json((*spec)["selector"]);
    if (!sel) return make_error(where + ": spec.selector: " + sel.message());
    b.selector = std::move(*sel);
  }
  if (pdb.contains("status") && pdb["status"].is_object() && pdb["status"].contains("disruptionsAllowed")) {
    const json& a = pdb["status"]["disruptionsAllowed"];
    if (!a.is_number_integer() || a.get<int64_t>() < 0)
      return make_error(where + ": status.disruptionsAllowed: must be a non-negative integer");
    b.allowed = a.get<int>();
  }
  return b;
}

Result<World> world_from_objects(const std::vector<kube::SourcedObject>& objects, TimePoint now) {
  World w;
  scheduler::SnapshotBuilder snap;
  ClusterBuilder cluster;
  for (const auto& so : objects) {
    const json& o = so.object;
    std::string where = so.where();
    if (auto s = cluster.add(o, where); !s) return s.error();
    std::string arrival = kube::annotation(o, keys::kArrivalAnnotation, "0");
    if (!arrival.empty() && std::stoi(arrival) > 0) continue;   // ClusterBuilder::add checked the number
    std::string kind = kube::kind_of(o);
    if (kind == "PodDisruptionBudget") {
      auto b = parse_disruption_budget(o, where);
      if (!b) return b.error();
      w.budgets.push_back(std::move(*b));
      continue;
    }
    if (!scheduler::known_kind(kind)) continue;
    if (auto s = snap.add(o, where); !s) return s.error();
    if (kind != "PodGroup") continue;
    std::string text = kube::annotation(o, kube::kReservationAnnotation);
    if (text.empty()) continue;
    auto r = kube::parse_reservation(text, where);
    if (!r) return r.error();
    std::string ns = kube::namespace_of(o);
    w.reservations[(ns.empty() ? "default" : ns) + "/" + kube::name_of(o)] = std::move(*r);
  }
  w.snapshot = snap.build(now);
  w.cluster = cluster.finish();
  return w;
}

}  // namespace weft::descheduler::defragment
