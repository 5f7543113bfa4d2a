// GangDefragment against the API (descheduler/app/defragment_step.h): the journal first,
// then the reservations, a pause, the evictions, the journal cleared; a room whose
// reservation fails evicts nothing; a killed run's rooms finished by the next.
#include <gtest/gtest.h>

#include "descheduler/app/defragment_step.h"
#include "kube/reservation.h"

namespace weft::descheduler {
namespace {

defragment::GangRoom room(const std::string& gang, const std::vector<std::string>& victims) {
  defragment::GangRoom r;
  r.gang = gang;
  r.reservation.domain = "leaf-1";
  r.reservation.nodes = {"n1"};
  for (const auto& v : victims) {
    PlannedEviction e;
    e.ns = "ml";
    e.name = v;
    e.from = "n1";
    e.reason = "defragment: gang " + gang + " into leaf-1";
    r.evictions.push_back(e);
  }
  return r;
}

TEST(DefragmentStep, EveryReservationIsWrittenAndSettledBeforeAnyEviction) {
  defragment::Outcome outcome;
  outcome.rooms = {room("ml/a", {"v1", "v2"}), room("ml/b", {"v3"}), room("ml/c", {"v4"})};
  std::vector<std::string> calls;
  Plan plan;
  carry_out_rooms(
      outcome, plan,
      [&](const std::string& ns, const std::string& name, const nlohmann::json&) -> Status {
        calls.push_back("patch " + ns + "/" + name);
        if (name == "b") return make_error("409 Conflict");
        return {};
      },
      [&](const std::string&, const std::string& name) -> Result<kube::EvictionResult> {
        calls.push_back("evict " + name);
        return kube::EvictionResult{};
      },
      [&] { calls.push_back("settle"); });
  const std::vector<std::string> expected = {"patch ml/a", "patch ml/b", "patch ml/c", "settle",
                                             "evict v1",   "evict v2",   "evict v4"};
  EXPECT_EQ(calls, expected);
  ASSERT_EQ(plan.evictions.size(), 3u);
  ASSERT_EQ(plan.skipped.size(), 1u);
  EXPECT_EQ(plan.skipped[0].name, "v3");
  EXPECT_EQ(plan.skipped[0].reason, "reservation-not-written: 409 Conflict");
}

TEST(DefragmentStep, NoPauseWhenNoReservationWasWritten) {
  defragment::Outcome outcome;
  outcome.rooms = {room("ml/a", {"v1"})};
  bool settled = false, evicted = false;
  Plan plan;
  carry_out_rooms(
      outcome, plan, [](const std::string&, const std::string&, const nlohmann::json&) -> Status { return make_error("down"); },
      [&](const std::string&, const std::string&) -> Result<kube::EvictionResult> {
        evicted = true;
        return kube::EvictionResult{};
      },
      [&] { settled = true; });
  EXPECT_FALSE(settled);
  EXPECT_FALSE(evicted);
}

// A journal kept in memory, recording its writes into `calls`.
struct MemoryJournal {
  std::vector<RoomInProgress> rooms;
  std::vector<std::string>* calls = nullptr;
  bool fail_save = false;
  RoomJournal journal() {
    return {[this]() -> Result<std::vector<RoomInProgress>> { return rooms; },
            [this](const std::vector<RoomInProgress>& r) -> Status {
              if (calls) calls->push_back("journal " + std::to_string(r.size()));
              if (fail_save) return make_error("403 Forbidden");
              rooms = r;
              return {};
            }};
  }
};

TEST(DefragmentStep, TheJournalIsWrittenBeforeAnyReservationAndClearedAfterTheEvictions) {
  defragment::Outcome outcome;
  outcome.rooms = {room("ml/a", {"v1"}), room("ml/b", {"v2"})};
  std::vector<std::string> calls;
  MemoryJournal journal{.calls = &calls};
  Plan plan;
  carry_out_rooms(
      outcome, plan,
      [&](const std::string& ns, const std::string& name, const nlohmann::json&) -> Status {
        calls.push_back("patch " + ns + "/" + name);
        return {};
      },
      [&](const std::string&, const std::string& name) -> Result<kube::EvictionResult> {
        calls.push_back("evict " + name);
        return kube::EvictionResult{};
      },
      [&] { calls.push_back("settle"); }, journal.journal());
  const std::vector<std::string> expected = {"journal 2", "patch ml/a", "patch ml/b", "settle",
                                             "evict v1",  "evict v2",   "journal 0"};
  EXPECT_EQ(calls, expected);
}

TEST(DefragmentStep, AJournalThatCannotBeWrittenReservesAndEvictsNothing) {
  defragment::Outcome outcome;
  outcome.rooms = {room("ml/a", {"v1"})};
  std::vector<std::string> calls;
  MemoryJournal journal{.calls = &calls, .fail_save = true};
  Plan plan;
  carry_out_rooms(
      outcome, plan,
      [&](const std::string&, const std::string&, const nlohmann::json&) -> Status {
        calls.push_back("patch");
        return {};
      },
      [&](const std::string&, const std::string&) -> Result<kube::EvictionResult> {
        calls.push_back("evict");
        return kube::EvictionResult{};
      },
      [] {}, journal.journal());
  EXPECT_EQ(calls, std::vector<std::string>{"journal 1"});
  ASSERT_EQ(plan.skipped.size(), 1u);
  EXPECT_EQ(plan.skipped[0].reason, "journal-not-written: 403 Forbidden");
}

// The API as a killed run left it: PodGroups with their reservation annotation, pods on nodes.
struct LeftBehind {
  std::map<std::string, std::string> reservations;   // "ns/name" -> annotation value
  std::map<std::string, std::string> pods;           // "ns/name" -> nodeName
  std::vector<std::string> calls;
  GetObjectFn podgroup() {
    return [this](const std::string& ns, const std::string& name) -> Result<nlohmann::json> {
      nlohmann::json pg = {{"metadata", {{"name", name}, {"namespace", ns}}}};
      if (reservations.count(ns + "/" + name))
        pg["metadata"]["annotations"][kube::kReservationAnnotation] = reservations.at(ns + "/" + name);
      return pg;
    };
  }
  GetObjectFn pod() {
    return [this](const std::string& ns, const std::string& name) -> Result<nlohmann::json> {
      auto it = pods.find(ns + "/" + name);
      if (it == pods.end()) return Error{"pods \"" + name + "\" not found", 404};
      return nlohmann::json{{"metadata", {{"name", name}}}, {"spec", {{"nodeName", it->second}}}};
    };
  }
  PatchPodGroupFn patch() {
    return [this](const std::string& ns, const std::string& name, const nlohmann::json& p) -> Status {
      calls.push_back("patch " + ns + "/" + name + " " + p.dump());
      return {};
    };
  }
  EvictFn evict(kube::EvictionResult::Outcome outcome = kube::EvictionResult::Outcome::Evicted) {
    return [this, outcome](const std::string&, const std::string& name) -> Result<kube::EvictionResult> {
      calls.push_back("evict " + name);
      kube::EvictionResult r;
      r.outcome = outcome;
      return r;
    };
  }
};

RoomInProgress in_progress(const std::string& gang, const std::vector<std::string>& victims) {
  auto r = room(gang, victims);
  return {gang, kube::format_reservation(r.reservation), r.evictions};
}

TEST(DefragmentStep, AResumedRoomEvictsOnlyTheVictimsStillOnTheirPlannedNode) {
  MemoryJournal journal{.rooms = {in_progress("ml/a", {"gone", "stays", "moved"})}};
  LeftBehind api;
  api.reservations["ml/a"] = journal.rooms[0].reservation;
  api.pods = {{"ml/stays", "n1"}, {"ml/moved", "n7"}};   // "moved": re-created and bound elsewhere
  Plan plan;
  ASSERT_TRUE(resume_rooms(journal.journal(), plan, api.podgroup(), api.pod(), api.patch(), api.evict()));
  EXPECT_EQ(api.calls, std::vector<std::string>{"evict stays"});
  ASSERT_EQ(plan.evictions.size(), 1u);
  EXPECT_EQ(plan.evictions[0].name, "stays");
  EXPECT_TRUE(journal.rooms.empty()) << "the journal is cleared";
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_EQ(plan.notes[0], "defragment: gang ml/a resumed after an interrupted run, 2 of 3 victims gone");
}

TEST(DefragmentStep, AResumedRoomThatFreesNothingLosesItsReservation) {
  MemoryJournal journal{.rooms = {in_progress("ml/a", {"v1"})}};
  LeftBehind api;
  api.reservations["ml/a"] = journal.rooms[0].reservation;
  api.pods = {{"ml/v1", "n1"}};
  Plan plan;
  ASSERT_TRUE(resume_rooms(journal.journal(), plan, api.podgroup(), api.pod(), api.patch(),
                           api.evict(kube::EvictionResult::Outcome::Blocked)));
  const std::vector<std::string> expected = {
      "evict v1", "patch ml/a {\"metadata\":{\"annotations\":{\"" + std::string(kube::kReservationAnnotation) + "\":null}}}"};
  EXPECT_EQ(api.calls, expected);
  EXPECT_EQ(plan.skipped.size(), 1u);
}

TEST(DefragmentStep, ARoomWhoseReservationWasNeverWrittenIsNotResumed) {
  MemoryJournal journal{.rooms = {in_progress("ml/a", {"v1"})}};
  LeftBehind api;
  api.pods = {{"ml/v1", "n1"}};
  Plan plan;
  ASSERT_TRUE(resume_rooms(journal.journal(), plan, api.podgroup(), api.pod(), api.patch(), api.evict()));
  EXPECT_TRUE(api.calls.empty());
  EXPECT_TRUE(plan.evictions.empty());
  EXPECT_TRUE(journal.rooms.empty());
}

TEST(DefragmentStep, AnUnreadableJournalIsAnErrorAndNothingIsEvicted) {
  RoomJournal broken{[]() -> Result<std::vector<RoomInProgress>> { return make_error("data.rooms-in-progress.json: not a list"); },
                     [](const std::vector<RoomInProgress>&) -> Status { return {}; }};
  LeftBehind api;
  Plan plan;
  auto s = resume_rooms(broken, plan, api.podgroup(), api.pod(), api.patch(), api.evict());
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), "data.rooms-in-progress.json: not a list");
  EXPECT_TRUE(api.calls.empty());
}

}  // namespace
}  // namespace weft::descheduler
