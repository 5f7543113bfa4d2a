#include "descheduler/core/defragment/world.h"

namespace weft::descheduler::defragment {

World WorldBuilder::finish(TimePoint now) {
  World w;
  w.cluster = cluster_.finish(now);
  for (const auto& [key, group] : w.cluster.snapshot.podgroups)
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
