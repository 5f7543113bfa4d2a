// The reservation annotation both sides read: format, parse, errors, expiry.
#include <gtest/gtest.h>

#include "descheduler/core/defragment/world.h"
#include "kube/reservation.h"

namespace weft::kube {
namespace {

TEST(Reservation, RoundTrips) {
  Reservation r{"leaf-a", {"n1", "n2"}, *parse_rfc3339("2026-11-24T19:10:00Z")};
  std::string text = format_reservation(r);
  EXPECT_EQ(text, R"({"domain":"leaf-a","expires":"2026-11-24T19:10:00Z","nodes":["n1","n2"]})");
  auto back = parse_reservation(text, "PodGroup ml/a");
  ASSERT_TRUE(back) << back.message();
  EXPECT_EQ(back->domain, "leaf-a");
  EXPECT_EQ(back->nodes, r.nodes);
  EXPECT_EQ(back->expires, r.expires);
  EXPECT_TRUE(back->live(r.expires - std::chrono::seconds(1)));
  EXPECT_FALSE(back->live(r.expires));
}

TEST(Reservation, ErrorsNameTheField) {
  auto e = parse_reservation("nope", "PodGroup ml/a");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.message(), "PodGroup ml/a: annotation weft.dev/reserved-room: 'nope' is not a JSON object");
  e = parse_reservation(R"({"domain":"d","nodes":["n"],"expires":"tomorrow"})", "PodGroup ml/a");
  ASSERT_FALSE(e);
  EXPECT_NE(e.message().find("PodGroup ml/a: annotation weft.dev/reserved-room: expires: "), std::string::npos)
      << e.message();
  e = parse_reservation(R"({"domain":"d","nodes":[],"expires":"2026-11-24T19:10:00Z"})", "x");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.message(), "x: annotation weft.dev/reserved-room: nodes: must be a non-empty list of node names");
  e = parse_reservation(R"({"domain":"d","nodes":["n"],"expires":"2026-11-24T19:10:00Z","x":1})", "x");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.message(), "x: annotation weft.dev/reserved-room: x: unknown field");
}

TEST(Reservation, FirstGangKeepsANodeTwoAnnotationsClaim) {
  auto now = *parse_rfc3339("2026-11-24T19:00:00Z");
  ReservedRooms rooms;
  rooms.add("ml/a", {"d", {"n1"}, now + std::chrono::minutes(1)}, false, now);
  rooms.add("ml/b", {"d", {"n1", "n2"}, now + std::chrono::minutes(1)}, false, now);
  EXPECT_EQ(*rooms.holder("n1"), "ml/a");
  EXPECT_EQ(*rooms.holder("n2"), "ml/b");
  EXPECT_EQ(rooms.holder("n3"), nullptr);
}

}  // namespace
}  // namespace weft::kube

namespace weft::descheduler::defragment {
namespace {

TEST(Reservation, ABadAnnotationIsAnErrorNamingThePodGroup) {
  nlohmann::json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                       {"kind", "PodGroup"},
                       {"metadata", {{"name", "train"}, {"namespace", "ml"},
                                     {"annotations", {{"weft.dev/reserved-room", R"({"domain":"d"})"}}}}},
                       {"spec", {{"minMember", 2}}}};
  auto w = world_from_objects({{pg, "s.yaml", 3}}, kube::TimePoint{});
  ASSERT_FALSE(w);
  EXPECT_EQ(w.message(),
            "s.yaml: document 3 (PodGroup ml/train): annotation weft.dev/reserved-room: nodes: must be a non-empty "
            "list of node names");
}

}  // namespace
}  // namespace weft::descheduler::defragment
