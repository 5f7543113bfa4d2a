#include "descheduler/core/defragment/world.h"

#include "kube/objects.h"

namespace weft::descheduler::defragment {

using nlohmann::json;

Status WorldBuilder::add(const json& o, const std::string& where) {
  std::string kind = kube::kind_of(o);
  // PodGroups and HyperNodes: the snapshot's decode is the cluster's too (finish).
  if (kind != "PodGroup" && kind != "HyperNode")
    if (auto s = cluster_.add(o, where); !s) return s;
  auto later = arrives_later(o, where);
  if (!later) return later.error();
  if (*later || !scheduler::known_kind(kind)) return {};
  return snapshot_.add(o, where);
}

World WorldBuilder::finish(TimePoint now) {
  World w;
  w.snapshot = snapshot_.build(now);
  w.cluster = cluster_.finish(&w.snapshot);
  for (const auto& [key, group] : w.snapshot.podgroups)
    if (group.reservation) w.reservations[key] = *group.reservation;
  return w;
}

Result<World> world_from_objects(const std::vector<kube::SourcedObject>& objects, TimePoint now) {
  WorldBuilder b;
  for (const auto& so : objects)
    if (auto s = b.add(so.object, so.where()); !s) return s.error();
  return b.finish(now);
}

}  // namespace weft::descheduler::defragment
