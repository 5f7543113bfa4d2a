// The descheduler's state ConfigMap (descheduler/app/state_store.h) holds two keys written
// by different steps: the state after a run, the rooms journal around GangDefragment's
// evictions. Each write replaces the whole object with the read resourceVersion, so one
// key's write keeps the other, and a journal that does not parse is an error naming where.
#include <gtest/gtest.h>

#include "descheduler/app/state_store.h"
#include "kube/client/resource.h"
#include "tests/support/kube_lite.h"

namespace weft::descheduler {
namespace {

using testing::KubeLite;

TEST(StateStore, TheJournalAndTheStateKeepEachOtherInOneConfigMap) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  KubeLite api;
  ASSERT_EQ(api.error(), "");
  StateStore store(api.client(), {"default", "ds-state"});
  ASSERT_TRUE(store.load_rooms()->empty()) << "no ConfigMap yet: no rooms";
  PlannedEviction victim;
  victim.ns = "batch", victim.name = "fill-1", victim.from = "n1";
  ASSERT_TRUE(store.save_rooms({{"ml/train", R"({"domain":"leaf-1"})", {victim}}}));   // creates it
  DeschedulerState state;
  state.workload_moved_at["batch/ReplicaSet/filler"] = std::chrono::system_clock::time_point(std::chrono::seconds(1764100000));
  ASSERT_TRUE(store.save(state));
  auto rooms = store.load_rooms();
  ASSERT_TRUE(rooms) << rooms.message();
  ASSERT_EQ(rooms->size(), 1u);
  EXPECT_EQ((*rooms)[0].gang, "ml/train");
  EXPECT_EQ((*rooms)[0].victims.at(0).from, "n1");
  ASSERT_TRUE(store.save_rooms({}));
  auto loaded = store.load();
  ASSERT_TRUE(loaded) << loaded.message();
  EXPECT_EQ(loaded->workload_moved_at.size(), 1u);
  EXPECT_TRUE(store.load_rooms()->empty());
}

TEST(StateStore, AJournalThatDoesNotParseIsAnErrorNamingIt) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  KubeLite api;
  ASSERT_EQ(api.error(), "");
  nlohmann::json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                       {"metadata", {{"name", "ds-state"}, {"namespace", "default"}}},
                       {"data", {{"rooms-in-progress.json", R"([{"gang":"ml/a","reservation":"x","victims":{}}])"}}}};
  ASSERT_TRUE(api.client().create(kube::resources::configmaps(), "default", cm));
  StateStore store(api.client(), {"default", "ds-state"});
  auto rooms = store.load_rooms();
  ASSERT_FALSE(rooms);
  EXPECT_EQ(rooms.message(), "state ConfigMap default/ds-state data.rooms-in-progress.json[0]: 'victims' is not a list");
}

}  // namespace
}  // namespace weft::descheduler
