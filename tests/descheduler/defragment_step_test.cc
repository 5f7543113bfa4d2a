// GangDefragment against the API (descheduler/app/defragment_step.h): reservations first,
// a pause, then the evictions; a room whose reservation fails evicts nothing.
#include <gtest/gtest.h>

#include "descheduler/app/defragment_step.h"

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

}  // namespace
}  // namespace weft::descheduler
