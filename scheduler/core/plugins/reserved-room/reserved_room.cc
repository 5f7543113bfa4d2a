// reserved-room (weft): the room weft-descheduler's GangDefragment freed for a gang stays
// the gang's. A PodGroup's weft.dev/reserved-room (kube/reservation.h) keeps every pod of
// another PodGroup, and every pod without one, off the reserved nodes until it expires or
// the gang has minMember pods bound. On unless the configuration lists it (a reservation
// is never ignored).
#include "scheduler/core/plugins/reserved-room/reserved_room.h"

#include "scheduler/core/plugins/plugin_makers.h"

namespace weft::scheduler {
namespace {

class ReservedRoom : public Plugin {
 public:
  explicit ReservedRoom(const PluginOption& o) : opt_(o) {}

  void open(Session& ssn) override {
    for (const Job& j : ssn.jobs)
      if (j.group && j.group->reservation)
        rooms_.add(j.group->key, *j.group->reservation, j.bound >= j.min_member, ssn.snap.now);
    if (rooms_.empty()) return;
    ssn.add_predicate(opt_, [this, &ssn](int pod, int node) -> std::string {
      if (!rooms_.blocks(ssn.snap.nodes[node].name, ssn.snap.pods[pod].group)) return "";
      return "node(s) were reserved for another gang (" + std::string(kube::kReservationAnnotation) + ")";
    });
  }

 private:
  PluginOption opt_;
  kube::ReservedRooms rooms_;
};

}  // namespace

Result<std::unique_ptr<Plugin>> make_reserved_room_plugin(const PluginOption& option, std::vector<std::string>* warnings) {
  return make_without_arguments<ReservedRoom>(option, warnings);
}

}  // namespace weft::scheduler
