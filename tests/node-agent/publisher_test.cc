#include "node-agent/daemon/publisher.h"

#include <gtest/gtest.h>

#include "tests/node-agent/fakes.h"

namespace weft::agent {
namespace {

using namespace std::chrono_literals;
using testing::FakeNodeApi;
using testing::make_ib;
using testing::make_port;

nlohmann::json base_node() {
  return {{"metadata", {{"name", "n1"}, {"labels", {{"team", "a"}, {"weft.dev/ib-spine", "0xdead"}}}}}};
}

TEST(Publisher, PatchesOnceThenStaysQuiet) {
  FakeNodeApi api(base_node());
  Publisher pub(api, "n1", {});
  auto ib = desired_ib_metadata(make_ib("0xf", "0xa", "", {make_port("d", 1, "ACTIVE", 100, "0x1")}));
  auto t = Publisher::Clock::now();
  auto r = pub.publish(&ib, std::nullopt, {}, t);
  EXPECT_EQ(r.outcome, Publisher::Outcome::Patched) << r.detail;
  EXPECT_EQ(api.patches, 1);
  for (int i = 1; i <= 5; ++i) {
    EXPECT_EQ(pub.publish(&ib, std::nullopt, {}, t + i * 1s).outcome, Publisher::Outcome::NoChange);
  }
  EXPECT_EQ(api.patches, 1);
  EXPECT_EQ(api.gets, 1);   // the patch answer is the new copy; no re-read within resync
  auto node = api.snapshot();
  EXPECT_EQ(node["metadata"]["labels"]["team"], "a");
  EXPECT_FALSE(node["metadata"]["labels"].contains("weft.dev/ib-spine"));
}

TEST(Publisher, BacksOffOnServerErrorsAndConverges) {
  FakeNodeApi api(base_node());
  PublisherOptions o;
  o.backoff_min = 1s;
  o.backoff_max = 8s;
  Publisher pub(api, "n1", o);
  auto ib = desired_ib_metadata(make_ib("0xf", "0xa", "", {make_port("d", 1, "ACTIVE", 100, "0x1")}));
  api.fail_status = 500;
  auto t = Publisher::Clock::now();
  EXPECT_EQ(pub.publish(&ib, std::nullopt, {}, t).outcome, Publisher::Outcome::Failed);
  EXPECT_EQ(pub.publish(&ib, std::nullopt, {}, t + 500ms).outcome, Publisher::Outcome::Waiting);
  EXPECT_EQ(pub.publish(&ib, std::nullopt, {}, t + 1s).outcome, Publisher::Outcome::Failed);
  EXPECT_EQ(pub.next_attempt(), t + 1s + 2s);   // doubled
  auto later = t + 1s + 2s;
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(pub.publish(&ib, std::nullopt, {}, later).outcome, Publisher::Outcome::Failed);
    later = pub.next_attempt();
  }
  EXPECT_LE(pub.next_attempt() - later, 8s);    // capped
  api.fail_status = 0;
  EXPECT_EQ(pub.publish(&ib, std::nullopt, {}, later + 8s).outcome, Publisher::Outcome::Patched);
  EXPECT_EQ(api.snapshot()["metadata"]["labels"]["weft.dev/ib-leaf"], "0xa");
}

TEST(Publisher, ConflictRereadsAtOnce) {
  FakeNodeApi api(base_node());
  Publisher pub(api, "n1", {});
  auto ib = desired_ib_metadata(make_ib("0xf", "0xa", "", {}));
  api.patch_fail_status = 409;
  auto t = Publisher::Clock::now();
  EXPECT_EQ(pub.publish(&ib, std::nullopt, {}, t).outcome, Publisher::Outcome::Failed);
  EXPECT_EQ(pub.next_attempt(), t);
  api.patch_fail_status = 0;
  EXPECT_EQ(pub.publish(&ib, std::nullopt, {}, t).outcome, Publisher::Outcome::Patched);
  EXPECT_EQ(api.gets, 2);
}

TEST(Publisher, ResyncSeesOutOfBandRemoval) {
  FakeNodeApi api(base_node());
  PublisherOptions o;
  o.resync = 30s;
  Publisher pub(api, "n1", o);
  auto ib = desired_ib_metadata(make_ib("0xf", "0xa", "", {}));
  auto t = Publisher::Clock::now();
  ASSERT_EQ(pub.publish(&ib, std::nullopt, {}, t).outcome, Publisher::Outcome::Patched);
  {
    std::lock_guard lock(api.mu);
    api.node["metadata"]["labels"].erase("weft.dev/ib-leaf");   // someone removed it
  }
  EXPECT_EQ(pub.publish(&ib, std::nullopt, {}, t + 10s).outcome, Publisher::Outcome::NoChange);
  EXPECT_EQ(pub.publish(&ib, std::nullopt, {}, t + 31s).outcome, Publisher::Outcome::Patched);
  EXPECT_EQ(api.snapshot()["metadata"]["labels"]["weft.dev/ib-leaf"], "0xa");
}

TEST(Publisher, MissingNodeIsAnErrorNamingIt) {
  FakeNodeApi api(base_node());
  api.fail_status = 404;
  Publisher pub(api, "n1", {});
  auto ib = desired_ib_metadata(make_ib("", "", "", {}));
  auto r = pub.publish(&ib, std::nullopt, {});
  EXPECT_EQ(r.outcome, Publisher::Outcome::Failed);
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.detail.find("/api/v1/nodes/n1"), std::string::npos);
}

}  // namespace
}  // namespace weft::agent
