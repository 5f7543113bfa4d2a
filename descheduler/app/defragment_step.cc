#include "descheduler/app/defragment_step.h"

#include <spdlog/spdlog.h>

namespace weft::descheduler {

void carry_out_rooms(const defragment::Outcome& outcome, Plan& plan, const PatchPodGroupFn& patch,
                     const EvictFn& evict, const std::function<void()>& settle) {
  std::vector<const defragment::GangRoom*> held;
  for (const auto& room : outcome.rooms) {
    std::string ns = room.gang.substr(0, room.gang.find('/')), name = room.gang.substr(room.gang.find('/') + 1);
    if (auto s = patch(ns, name, defragment::reservation_patch(room)); !s) {
      spdlog::error("defragment: reservation for gang {} not written, nothing evicted for it: {}", room.gang, s.message());
      for (const auto& e : room.evictions)
        plan.skipped.push_back({e.ns, e.name, e.from, "reservation-not-written: " + s.message()});
      continue;
    }
    spdlog::info("defragment: gang {} holds {} on {} nodes until {}", room.gang, room.reservation.domain,
                 room.reservation.nodes.size(), kube::format_rfc3339(room.reservation.expires));
    held.push_back(&room);
  }
  // Watches of different resources are not ordered: a scheduler could see a victim's
  // replacement before the PodGroup's reservation. Every room is freed only after a pause.
  if (!held.empty() && settle) settle();
  for (const defragment::GangRoom* room : held) {
    Plan part;
    part.evictions = room->evictions;
    execute_evictions(part, evict);
    plan.evictions.insert(plan.evictions.end(), part.evictions.begin(), part.evictions.end());
    plan.skipped.insert(plan.skipped.end(), part.skipped.begin(), part.skipped.end());
    plan.notes.push_back("defragment: gang " + room->gang + " gets room in " + room->reservation.domain + ", " +
                         std::to_string(part.evictions.size()) + " of " + std::to_string(room->evictions.size()) +
                         " evictions done");
  }
}

}  // namespace weft::descheduler
