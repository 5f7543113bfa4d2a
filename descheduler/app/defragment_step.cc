#include "descheduler/app/defragment_step.h"

#include <spdlog/spdlog.h>

#include "kube/reservation.h"

namespace weft::descheduler {
namespace {

std::pair<std::string, std::string> split_key(const std::string& key) {
  const size_t slash = key.find('/');
  return {key.substr(0, slash), key.substr(slash + 1)};
}

nlohmann::json without_reservation() {
  return {{"metadata", {{"annotations", {{kube::kReservationAnnotation, nullptr}}}}}};
}

void remove_reservation(const std::string& gang, const PatchPodGroupFn& patch, Plan& plan) {
  auto [ns, name] = split_key(gang);
  if (auto s = patch(ns, name, without_reservation()); !s) {
    spdlog::error("defragment: reservation of gang {} frees nothing and could not be removed: {}", gang, s.message());
    return;
  }
  plan.notes.push_back("defragment: gang " + gang + ": no victim could be evicted, reservation removed");
}

std::vector<RoomInProgress> journal_entries(const defragment::Outcome& outcome) {
  std::vector<RoomInProgress> out;
  for (const auto& room : outcome.rooms)
    out.push_back({room.gang, kube::format_reservation(room.reservation), room.evictions});
  return out;
}

void clear(const RoomJournal& journal) {
  if (!journal) return;
  if (auto s = journal.save({}); !s) spdlog::error("defragment: rooms journal not cleared: {}", s.message());
}

}  // namespace

void carry_out_rooms(const defragment::Outcome& outcome, Plan& plan, const PatchPodGroupFn& patch,
                     const EvictFn& evict, const std::function<void()>& settle, const RoomJournal& journal) {
  if (journal && !outcome.rooms.empty())
    if (auto s = journal.save(journal_entries(outcome)); !s) {
      spdlog::error("defragment: rooms journal not written, nothing reserved or evicted: {}", s.message());
      for (const auto& room : outcome.rooms)
        for (const auto& e : room.evictions) plan.skipped.push_back(e.not_done("journal-not-written: " + s.message()));
      return;
    }
  std::vector<const defragment::GangRoom*> held;
  for (const auto& room : outcome.rooms) {
    auto [ns, name] = split_key(room.gang);
    if (auto s = patch(ns, name, defragment::reservation_patch(room)); !s) {
      spdlog::error("defragment: reservation for gang {} not written, nothing evicted for it: {}", room.gang, s.message());
      for (const auto& e : room.evictions)
        plan.skipped.push_back(e.not_done("reservation-not-written: " + s.message()));
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
    if (part.evictions.empty() && !room->evictions.empty()) remove_reservation(room->gang, patch, plan);
  }
  if (!outcome.rooms.empty()) clear(journal);
}

Status resume_rooms(const RoomJournal& journal, Plan& plan, const GetObjectFn& get_podgroup, const GetObjectFn& get_pod,
                    const PatchPodGroupFn& patch, const EvictFn& evict) {
  if (!journal) return {};
  auto rooms = journal.load();
  if (!rooms) return rooms.error();
  if (rooms->empty()) return {};
  for (const auto& room : *rooms) {
    auto [ns, name] = split_key(room.gang);
    auto pg = get_podgroup(ns, name);
    const std::string now_held =
        pg ? (*pg)["metadata"].value("annotations", nlohmann::json::object()).value(kube::kReservationAnnotation, "") : "";
    if (now_held != room.reservation) {
      plan.notes.push_back("defragment: gang " + room.gang + ": its room of an interrupted run is no longer reserved");
      continue;
    }
    Plan part;
    size_t gone = 0;
    for (const auto& v : room.victims) {
      auto pod = get_pod(v.ns, v.name);
      const bool still_there = pod && (*pod)["spec"].value("nodeName", "") == v.from &&
                               !(*pod)["metadata"].contains("deletionTimestamp");
      if (still_there) part.evictions.push_back(v);
      else if (!pod && pod.error().code == 404) ++gone;
    }
    const size_t planned = part.evictions.size();
    execute_evictions(part, evict);
    spdlog::info("defragment: resumed gang {}: {} victims were gone, {} of {} evicted now", room.gang, gone,
                 part.evictions.size(), planned);
    plan.evictions.insert(plan.evictions.end(), part.evictions.begin(), part.evictions.end());
    plan.skipped.insert(plan.skipped.end(), part.skipped.begin(), part.skipped.end());
    plan.notes.push_back("defragment: gang " + room.gang + " resumed after an interrupted run, " +
                         std::to_string(gone + part.evictions.size()) + " of " + std::to_string(room.victims.size()) +
                         " victims gone");
    if (gone + part.evictions.size() == 0 && !room.victims.empty()) remove_reservation(room.gang, patch, plan);
  }
  clear(journal);
  return {};
}

}  // namespace weft::descheduler
