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

Status WorldBuilder::add(const json& o, const std::string& where) {
  if (auto s = cluster_.add(o, where); !s) return s;
  std::string arrival = kube::annotation(o, keys::kArrivalAnnotation, "0");
  if (!arrival.empty() && std::stoi(arrival) > 0) return {};   // ClusterBuilder::add checked the number
  std::string kind = kube::kind_of(o);
  if (kind == "PodDisruptionBudget") {
    auto b = parse_disruption_budget(o, where);
    if (!b) return b.error();
    world_.budgets.push_back(std::move(*b));
    return {};
  }
  if (!scheduler::known_kind(kind)) return {};
  if (auto s = snapshot_.add(o, where); !s) return s;
  if (kind != "PodGroup") return {};
  std::string text = kube::annotation(o, kube::kReservationAnnotation);
  if (text.empty()) return {};
  auto r = kube::parse_reservation(text, where);
  if (!r) return r.error();
  std::string ns = kube::namespace_of(o);
  world_.reservations[(ns.empty() ? "default" : ns) + "/" + kube::name_of(o)] = std::move(*r);
  return {};
}

World WorldBuilder::finish(TimePoint now) {
  World w = std::move(world_);
  world_ = World{};
  w.snapshot = snapshot_.build(now);
  w.cluster = cluster_.finish();
  return w;
}

Result<World> world_from_objects(const std::vector<kube::SourcedObject>& objects, TimePoint now) {
  WorldBuilder b;
  for (const auto& so : objects)
    if (auto s = b.add(so.object, so.where()); !s) return s.error();
  return b.finish(now);
}

}  // namespace weft::descheduler::defragment
