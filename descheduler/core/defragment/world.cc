#include "descheduler/core/defragment/world.h"

#include "kube/objects.h"

namespace weft::descheduler::defragment {

using nlohmann::json;

Status WorldBuilder::add(const json& o, const std::string& where) {
  if (auto s = cluster_.add(o, where); !s) return s;
  std::string arrival = kube::annotation(o, keys::kArrivalAnnotation, "0");
  if (!arrival.empty() && std::stoi(arrival) > 0) return {};   // ClusterBuilder::add checked the number
  std::string kind = kube::kind_of(o);
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
