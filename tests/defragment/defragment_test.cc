// GangDefragment on scenarios: one cycle frees a domain and the scheduler then places the
// gang there and every victim elsewhere; victims keep their own constraints; a gang that
// cannot be helped costs nothing; two gangs never share room; reservations expire.
#include <gtest/gtest.h>

#include <set>

#include "kube/objects.h"
#include "kube/reservation.h"
#include "tests/defragment/fixtures.h"

namespace weft::defrag_test {
namespace {

namespace dd = descheduler::defragment;

dd::Outcome plan(const std::vector<json>& objects, dd::Args args = {}, kube::TimePoint now = test_now(),
                 const descheduler::DeschedulerState& state = {}) {
  auto w = world(objects, now);
  auto out = dd::plan_defragment(w, descheduler::default_policy(), args, state, {.now = now});
  if (!out) throw std::runtime_error(out.message());
  return std::move(*out);
}

// Plans and checks that nothing moves and the one gang is not helped for `reason`.
void expect_unhelped(const std::vector<json>& objects, const std::string& reason, dd::Args args = {}) {
  dd::Outcome out = plan(objects, args);
  EXPECT_TRUE(out.rooms.empty());
  ASSERT_EQ(out.unhelped.size(), 1u);
  EXPECT_EQ(out.unhelped[0].reason, reason) << out.unhelped[0].detail;
}

// The fragmented fabric with gang ml/train (4 x 8 GPUs, one leaf), after one cycle carried
// out: the victims pending again, the reservation on the PodGroup. `out` gets the outcome.
std::vector<json> train_after_one_cycle(dd::Outcome& out) {
  auto objects = fragmented_fabric();
  add_gang(objects, "train", 4, 8, 1);
  out = plan(objects);
  EXPECT_EQ(out.rooms.size(), 1u);
  return after_evictions(objects, out);
}

std::string leaf_of(const std::string& node) { return node.substr(0, node.rfind('-')); }

TEST(Defragment, GangRunsAfterOneCycle) {
  auto objects = fragmented_fabric();
  add_gang(objects, "train", 4, 8, 1);
  // Before: the gang is pending, no leaf has four free nodes.
  auto before = simulate_placements(objects, test_now());
  EXPECT_EQ(before["ml/train-0"], "");

  dd::Outcome out = plan(objects);
  ASSERT_EQ(out.rooms.size(), 1u);
  const dd::GangRoom& room = out.rooms[0];
  EXPECT_EQ(room.gang, "ml/train");
  EXPECT_EQ(room.reservation.domain, "leaf-a-l1");
  EXPECT_EQ(room.reservation.nodes, (std::vector<std::string>{"a-l1-n1", "a-l1-n2", "a-l1-n3", "a-l1-n4"}));
  EXPECT_EQ(room.reservation.expires, test_now() + std::chrono::minutes(10));
  ASSERT_EQ(room.evictions.size(), 4u);   // one filler per a-l1 node, the fewest possible
  for (const auto& e : room.evictions) {
    EXPECT_EQ(leaf_of(e.from), "a-l1") << e.pod();
    EXPECT_EQ(e.to.substr(0, 2), "b-") << e.pod();
    EXPECT_EQ(e.reason, "defragment: gang ml/train into leaf-a-l1");
  }

  auto after = simulate_placements(after_evictions(objects, out), test_now());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(leaf_of(after["ml/train-" + std::to_string(i)]), "a-l1");
  for (const auto& e : room.evictions) {
    EXPECT_NE(after[e.pod()], "") << e.pod() << " was not placed again";
    EXPECT_NE(leaf_of(after[e.pod()]), "a-l1") << e.pod() << " came back into the room";
  }
}

// A gang member's required anti-affinity toward a pod that cannot move makes that node's
// room no room: the cheaper leaf holding such a pod is passed over for one the scheduler
// can place the whole gang in.
TEST(Defragment, RoomAGangMembersAntiAffinityForbidsIsNotCounted) {
  auto objects = fragmented_fabric();
  objects.push_back(pod({.ns = "kube-system", .name = "monitor", .node = "a-l1-n2", .gpus = 0, .cpu = 1,
                         .owner_kind = "DaemonSet", .owner_name = "monitor", .labels = {{"app", "monitor"}}}));
  add_gang(objects, "train", 4, 8, 1);
  for (json& o : objects) {
    if (kube::kind_of(o) == "Node") o["metadata"]["labels"]["kubernetes.io/hostname"] = kube::name_of(o);
    if (kube::kind_of(o) == "Pod" && kube::namespace_of(o) == "ml")
      o["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = json::array(
          {{{"labelSelector", {{"matchLabels", {{"app", "monitor"}}}}},
            {"namespaces", {"kube-system"}},
            {"topologyKey", "kubernetes.io/hostname"}}});
  }
  dd::Outcome out = plan(objects);
  ASSERT_EQ(out.rooms.size(), 1u);
  EXPECT_EQ(out.rooms[0].reservation.domain, "leaf-a-l2");
  auto after = simulate_placements(after_evictions(objects, out), test_now());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(leaf_of(after["ml/train-" + std::to_string(i)]), "a-l2");
}

// A gang whose pods repel each other per hostname needs one node per pod: room for two of
// its pods on one node is room for one. Every fabric-a node has 2 GPUs free; a-l1-n1's
// one 6-GPU filler would free room for both 4-GPU pods by resources alone, but the
// scheduler places one pod per node, so two nodes must each give 4 GPUs. (The gang asks
// for fabric a: fabric b has room for it.)
TEST(Defragment, RoomForTwoPodsOfAGangThatRepelsItselfPerNodeIsRoomForOne) {
  std::vector<json> objects;
  for (json& o : fragmented_fabric()) {
    const std::string name = kube::name_of(o);
    if (name == "fill-a-l1-n1-1") o = pod({.name = name, .node = "a-l1-n1", .gpus = 6});
    objects.push_back(o);
  }
  for (const char* node : {"a-l1-n2", "a-l1-n3", "a-l1-n4", "a-l2-n1", "a-l2-n2", "a-l2-n3", "a-l2-n4"})
    for (int k = 3; k <= (std::string(node).rfind("a-l1", 0) == 0 ? 4 : 3); ++k)
      objects.push_back(pod({.name = "fill-" + std::string(node) + "-" + std::to_string(k), .node = node, .gpus = 2}));
  add_gang(objects, "apart", 2, 4, 1);
  for (json& o : objects) {
    if (kube::kind_of(o) == "Node") o["metadata"]["labels"]["kubernetes.io/hostname"] = kube::name_of(o);
    if (kube::kind_of(o) == "Pod" && kube::namespace_of(o) == "ml") {
      o["metadata"]["labels"]["app"] = "apart";
      o["spec"]["nodeSelector"]["weft.dev/ib-fabric"] = "fab-a";   // fabric b has room for both
      o["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = json::array(
          {{{"labelSelector", {{"matchLabels", {{"app", "apart"}}}}}, {"topologyKey", "kubernetes.io/hostname"}}});
    }
  }
  EXPECT_EQ(simulate_placements(objects, test_now())["ml/apart-0"], "");
  dd::Outcome out = plan(objects);
  ASSERT_EQ(out.rooms.size(), 1u);
  EXPECT_EQ(out.rooms[0].evictions.size(), 2u);
  EXPECT_EQ(out.rooms[0].reservation.nodes.size(), 2u);
  auto after = simulate_placements(after_evictions(objects, out), test_now());
  EXPECT_NE(after["ml/apart-0"], "");
  EXPECT_NE(after["ml/apart-1"], "");
  EXPECT_NE(after["ml/apart-0"], after["ml/apart-1"]);
}

TEST(Defragment, IbClusterGangGetsAWholeFabric) {
  // Same fabric, any tier: six 8-GPU pods need six nodes of fabric a cleared; the fillers
  // go to fabric b (they are not RDMA pods, so they may leave fabric a).
  auto objects = fragmented_fabric();
  add_gang(objects, "wide", 6, 8, 0, 1000, true);
  dd::Outcome out = plan(objects);
  ASSERT_EQ(out.rooms.size(), 1u);
  EXPECT_EQ(out.rooms[0].reservation.domain, "weft.dev/ib-fabric=fab-a");
  EXPECT_EQ(out.rooms[0].evictions.size(), 8u);   // four a-l1 nodes (1 each) + two a-l2 nodes (2 each)
  auto after = simulate_placements(after_evictions(objects, out), test_now());
  const auto& held = out.rooms[0].reservation.nodes;
  for (int i = 0; i < 6; ++i) EXPECT_EQ(after["ml/wide-" + std::to_string(i)].substr(0, 2), "a-");
  for (const auto& e : out.rooms[0].evictions) {
    EXPECT_EQ(e.to.substr(0, 2), "b-") << e.pod();
    EXPECT_NE(after[e.pod()], "") << e.pod();
    EXPECT_EQ(std::count(held.begin(), held.end(), after[e.pod()]), 0) << e.pod() << " came back into the room";
  }
}

TEST(Defragment, VictimsKeepTheirOwnConstraints) {
  auto objects = fragmented_fabric();
  // On a-l1: n1's filler is an RDMA pod of an IB-cluster gang (3 running, minMember 2: one
  // may go, but only within fabric a); n2's filler sits at its gang's minMember; n3's is
  // behind a budget that allows no disruption; n4's has cooled down too recently.
  std::vector<json> o;
  for (auto& x : objects) {
    std::string name = kube::name_of(x);
    if (name == "fill-a-l1-n1-1") x = pod({.name = name, .node = "a-l1-n1", .gpus = 2, .owner_kind = "Job",
                                            .owner_name = "ring", .group = "ring", .rdma = true});
    if (name == "fill-a-l1-n2-1") x = pod({.name = name, .node = "a-l1-n2", .gpus = 2, .owner_kind = "Job",
                                            .owner_name = "pair", .group = "pair"});
    if (name == "fill-a-l1-n3-1")
      x = pod({.name = name, .node = "a-l1-n3", .gpus = 2, .labels = {{"app", "db"}}});
    if (name == "fill-a-l1-n4-1")
      x = pod({.name = name, .node = "a-l1-n4", .gpus = 2, .owner_name = "hot"});
    o.push_back(x);
  }
  o.push_back(podgroup({.ns = "batch", .name = "ring", .min_member = 2, .same_ib_cluster = true}));
  o.push_back(pod({.name = "ring-2", .node = "a-l2-n1", .gpus = 0, .owner_kind = "Job", .owner_name = "ring",
                   .group = "ring", .rdma = true}));
  o.push_back(pod({.name = "ring-3", .node = "a-l2-n2", .gpus = 0, .owner_kind = "Job", .owner_name = "ring",
                   .group = "ring", .rdma = true}));
  o.push_back(podgroup({.ns = "batch", .name = "pair", .min_member = 1}));
  o.push_back(pdb("batch", "db", "db", 0));
  add_gang(o, "train", 4, 8, 1);
  descheduler::DeschedulerState state;
  state.workload_moved_at["ReplicaSet/batch/hot"] = test_now() - std::chrono::minutes(1);

  // a-l1 can no longer be cleared: n2, n3 and n4 hold pods that must stay. a-l2 can: eight
  // plain fillers. The ring pod is never touched (a-l1 is not chosen).
  dd::Outcome out = plan(o, {}, test_now(), state);
  ASSERT_EQ(out.rooms.size(), 1u);
  EXPECT_EQ(out.rooms[0].reservation.domain, "leaf-a-l2");
  EXPECT_EQ(out.rooms[0].evictions.size(), 8u);
  for (const auto& e : out.rooms[0].evictions) {
    EXPECT_EQ(leaf_of(e.from), "a-l2");
    EXPECT_NE(leaf_of(e.to), "a-l2");
  }

  // With a-l2 full of pods no one may move, a-l1 is the only way: the ring pod is moved
  // inside fabric a (never to fabric b), and the others stay put, so nothing is possible.
  std::vector<json> o2;
  for (auto& x : o) {
    std::string name = kube::name_of(x);
    if (kube::kind_of(x) == "Pod" && name.rfind("fill-a-l2", 0) == 0) x["metadata"]["ownerReferences"] = json::array();
    o2.push_back(x);
  }
  dd::Outcome none = plan(o2, {}, test_now(), state);
  EXPECT_TRUE(none.rooms.empty());
  ASSERT_EQ(none.unhelped.size(), 1u);
  EXPECT_EQ(none.unhelped[0].reason, "no-movable-room");

  // Lift the budget, the cooldown and the minMember block: a-l1 clears, and the RDMA ring
  // pod lands inside fabric a, outside a-l1.
  std::vector<json> o3;
  for (auto& x : o2) {
    if (kube::kind_of(x) == "PodDisruptionBudget") x["status"]["disruptionsAllowed"] = 1;
    if (kube::kind_of(x) == "Pod" && kube::name_of(x) == "fill-a-l1-n2-1") x["metadata"]["annotations"] = json::object();
    o3.push_back(x);
  }
  dd::Outcome some = plan(o3);
  ASSERT_EQ(some.rooms.size(), 1u);
  EXPECT_EQ(some.rooms[0].reservation.domain, "leaf-a-l1");
  for (const auto& e : some.rooms[0].evictions) {
    EXPECT_NE(leaf_of(e.to), "a-l1");
    if (e.name == "fill-a-l1-n1-1") {
      EXPECT_EQ(e.to.substr(0, 2), "a-") << "an IB-cluster pod left its fabric";
    }
  }
}

// The Eviction API refuses a pod that two PodDisruptionBudgets cover, however many
// disruptions each allows: such a pod is never a victim (the evictor's rule, shared with
// LoadAware), so the room goes to the leaf whose pods can move.
TEST(Defragment, PodUnderTwoBudgetsIsNeverAVictim) {
  std::vector<json> o;
  for (auto& x : fragmented_fabric()) {
    if (kube::name_of(x) == "fill-a-l1-n1-1") x["metadata"]["labels"]["app"] = "db";
    o.push_back(x);
  }
  o.push_back(pdb("batch", "db-one", "db", 5));
  o.push_back(pdb("batch", "db-two", "db", 5));
  add_gang(o, "train", 4, 8, 1);
  dd::Outcome out = plan(o);
  ASSERT_EQ(out.rooms.size(), 1u);
  EXPECT_EQ(out.rooms[0].reservation.domain, "leaf-a-l2");
  for (const auto& e : out.rooms[0].evictions) EXPECT_NE(e.name, "fill-a-l1-n1-1");
}

TEST(Defragment, GangThatCannotBeHelpedEvictsNothing) {
  {
    // Five 8-GPU pods in one leaf of four nodes: impossible whatever moves.
    auto objects = fragmented_fabric();
    add_gang(objects, "big", 5, 8, 1);
    expect_unhelped(objects, "no-movable-room");
  }
  {
    // The fillers outrank the gang.
    auto objects = fragmented_fabric();
    add_gang(objects, "low", 4, 8, 1, -5);
    expect_unhelped(objects, "no-movable-room");
  }
  {
    // Nowhere for the victims to go: fabric b is gone and a-l2 is full.
    std::vector<json> objects;
    for (auto& x : fragmented_fabric())
      if (kube::name_of(x).find("b-n") == std::string::npos) objects.push_back(x);
    for (int i = 1; i <= 4; ++i)
      objects.push_back(pod({.ns = "kube-system", .name = "agent-a-l2-n" + std::to_string(i),
                             .node = "a-l2-n" + std::to_string(i), .gpus = 4, .owner_kind = "DaemonSet",
                             .owner_name = "agent"}));
    add_gang(objects, "train", 4, 8, 1);
    expect_unhelped(objects, "victims-cannot-move");
  }
  {
    // More moves than maxEvictionsPerGang allows.
    auto objects = fragmented_fabric();
    add_gang(objects, "train", 4, 8, 1);
    dd::Args args;
    args.max_evictions_per_gang = 3;
    expect_unhelped(objects, "too-many-evictions", args);
  }
  {
    // A gang that fits already needs nothing.
    auto objects = fragmented_fabric();
    add_gang(objects, "small", 2, 4, 1);
    expect_unhelped(objects, "fits");
  }
}

TEST(Defragment, TwoGangsNeverGetTheSameRoom) {
  auto objects = fragmented_fabric();
  add_gang(objects, "first", 4, 8, 1, 2000);
  add_gang(objects, "second", 4, 8, 1, 1000);
  dd::Outcome out = plan(objects);
  ASSERT_EQ(out.rooms.size(), 2u);
  EXPECT_EQ(out.rooms[0].gang, "ml/first");     // higher priority first, cheapest leaf
  EXPECT_EQ(out.rooms[0].reservation.domain, "leaf-a-l1");
  EXPECT_EQ(out.rooms[1].reservation.domain, "leaf-a-l2");
  std::set<std::string> nodes, victims;
  for (const auto& r : out.rooms) {
    for (const auto& n : r.reservation.nodes) EXPECT_TRUE(nodes.insert(n).second) << n << " reserved twice";
    for (const auto& e : r.evictions) EXPECT_TRUE(victims.insert(e.pod()).second);
  }
  auto after = simulate_placements(after_evictions(objects, out), test_now());
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(leaf_of(after["ml/first-" + std::to_string(i)]), "a-l1");
    EXPECT_EQ(leaf_of(after["ml/second-" + std::to_string(i)]), "a-l2");
  }
  for (const auto& v : victims) EXPECT_NE(after[v], "") << v;

  // Room for one only (fabric b takes 12 victims: the first gang's 4, not also the
  // second's 8): the second gang is not helped and evicts nothing.
  std::vector<json> tight;
  for (auto& x : objects)
    if (kube::name_of(x) != "b-n4" && kube::name_of(x) != "b-n3") tight.push_back(x);
  dd::Outcome one = plan(tight);
  ASSERT_EQ(one.rooms.size(), 1u);
  EXPECT_EQ(one.rooms[0].gang, "ml/first");
  ASSERT_EQ(one.unhelped.size(), 1u);
  EXPECT_EQ(one.unhelped[0].gang, "ml/second");
}

TEST(Defragment, ReservationHoldsThenExpires) {
  dd::Outcome out;
  // The evictions happened but the scheduler has not placed the gang yet (victims still
  // pending too): while the reservation lives, the next cycle leaves the gang alone.
  auto pending = train_after_one_cycle(out);
  ASSERT_EQ(out.rooms.size(), 1u);
  dd::Outcome next = plan(pending, {}, test_now() + std::chrono::minutes(5));
  EXPECT_TRUE(next.rooms.empty());
  ASSERT_EQ(next.unhelped.size(), 1u);
  EXPECT_EQ(next.unhelped[0].reason, "reserved");
  // After it expires, the gang is looked at again (here: it fits in the freed room).
  dd::Outcome later = plan(pending, {}, test_now() + std::chrono::minutes(11));
  ASSERT_EQ(later.unhelped.size(), 1u);
  EXPECT_EQ(later.unhelped[0].reason, "fits");

  // The scheduler's view: the room is closed to others before expiry, open after, and
  // open as soon as the gang has minMember bound.
  const kube::Reservation& r = out.rooms[0].reservation;
  kube::ReservedRooms live, expired, done;
  live.add("ml/train", r, false, test_now() + std::chrono::minutes(9));
  expired.add("ml/train", r, false, test_now() + std::chrono::minutes(10));
  done.add("ml/train", r, true, test_now());
  EXPECT_TRUE(live.blocks("a-l1-n1", "batch/other"));
  EXPECT_TRUE(live.blocks("a-l1-n1", ""));
  EXPECT_FALSE(live.blocks("a-l1-n1", "ml/train"));
  EXPECT_FALSE(live.blocks("a-l2-n1", ""));
  EXPECT_FALSE(expired.blocks("a-l1-n1", ""));
  EXPECT_FALSE(done.blocks("a-l1-n1", ""));
}

TEST(Defragment, SchedulerKeepsOthersOutOfTheRoomUntilItExpires) {
  dd::Outcome out;
  auto after = train_after_one_cycle(out);
  // A plain 8-GPU pod that outranks the gang arrives: only the freed a-l1 nodes have room.
  after.push_back(pod({.ns = "web", .name = "intruder", .gpus = 8, .cpu = 8, .priority = 5000}));
  auto placed = simulate_placements(after, test_now() + std::chrono::minutes(1));
  EXPECT_EQ(placed["web/intruder"], "") << "the reserved room went to another pod";
  for (int i = 0; i < 4; ++i) EXPECT_EQ(leaf_of(placed["ml/train-" + std::to_string(i)]), "a-l1");
  // Once the reservation has expired, the room is anyone's again: the intruder goes first.
  placed = simulate_placements(after, test_now() + std::chrono::minutes(11));
  EXPECT_EQ(leaf_of(placed["web/intruder"]), "a-l1");
}

TEST(Defragment, RoomReservedForAnotherGangIsNotReused) {
  // ml/first holds a-l1 from an earlier cycle; ml/second must clear a-l2 instead.
  auto objects = fragmented_fabric();
  add_gang(objects, "first", 4, 8, 1, 2000);
  add_gang(objects, "second", 4, 8, 1, 1000);
  kube::Reservation r{"leaf-a-l1", {"a-l1-n1", "a-l1-n2", "a-l1-n3", "a-l1-n4"}, test_now() + std::chrono::minutes(3)};
  for (auto& x : objects)
    if (kube::kind_of(x) == "PodGroup" && kube::name_of(x) == "first")
      x["metadata"]["annotations"][kube::kReservationAnnotation] = kube::format_reservation(r);
  dd::Outcome out = plan(objects);
  ASSERT_EQ(out.rooms.size(), 1u);
  EXPECT_EQ(out.rooms[0].gang, "ml/second");
  EXPECT_EQ(out.rooms[0].reservation.domain, "leaf-a-l2");
  for (const auto& e : out.rooms[0].evictions) EXPECT_NE(leaf_of(e.to), "a-l1");
}

TEST(Defragment, PlanListsMovesAndReasons) {
  auto objects = fragmented_fabric();
  add_gang(objects, "train", 4, 8, 1);
  add_gang(objects, "big", 5, 8, 1, 500);
  dd::Outcome out = plan(objects);
  descheduler::Plan p;
  dd::add_to_plan(out, p);
  EXPECT_EQ(p.evictions.size(), 4u);
  ASSERT_EQ(p.notes.size(), 2u);
  EXPECT_NE(p.notes[0].find("gang ml/train gets room in leaf-a-l1"), std::string::npos) << p.notes[0];
  EXPECT_NE(p.notes[1].find("gang ml/big not helped (no-movable-room)"), std::string::npos) << p.notes[1];
  json patch = dd::reservation_patch(out.rooms[0]);
  auto back = kube::parse_reservation(patch["metadata"]["annotations"][kube::kReservationAnnotation], "patch");
  ASSERT_TRUE(back) << back.message();
  EXPECT_EQ(back->nodes, out.rooms[0].reservation.nodes);
}

TEST(DefragmentArgs, ParsesAndRefuses) {
  const descheduler::args::Ctx p{"p"};
  auto ok = dd::parse_args(p, json{{"reservationTTL", "5m"}, {"maxEvictionsPerGang", 8},
                                   {"evictableNamespaces", {{"exclude", {"kube-system"}}}}},
                           "args");
  ASSERT_TRUE(ok) << ok.message();
  EXPECT_EQ(ok->reservation_ttl.count(), 300);
  EXPECT_EQ(ok->max_evictions_per_gang, 8);
  EXPECT_EQ(ok->exclude_namespaces, std::vector<std::string>{"kube-system"});
  auto bad = dd::parse_args(p, json{{"reservationTtl", "5m"}}, "args");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.message(), "p: args.reservationTtl: unknown field");
  bad = dd::parse_args(p, json{{"evictableNamespaces", {{"include", {"a"}}, {"exclude", {"b"}}}}}, "args");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.message(), "p: args.evictableNamespaces: set include or exclude, not both");
  bad = dd::parse_args(p, json{{"maxEvictionsPerGang", 0}}, "args");
  ASSERT_FALSE(bad);
  EXPECT_FALSE(dd::parse_args(p, json::array(), "args"));
}

// Every problem of the args at once, one a line in the order of the fields, as the
// upstream plugins' args are told.
TEST(DefragmentArgs, NamesEveryProblemAtOnce) {
  auto bad = dd::parse_args(descheduler::args::Ctx{"p"},
                            json{{"reservationTtl", "5m"},
                                 {"evictableNamespaces", {{"include", {"a"}}, {"exclude", {"b"}}, {"only", {"c"}}}},
                                 {"reservationTTL", 5},
                                 {"maxEvictionsPerGang", 0}},
                            "args");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.message(),
            "p: args.reservationTtl: unknown field\n"
            "p: args.evictableNamespaces.only: unknown field\n"
            "p: args.evictableNamespaces: set include or exclude, not both\n"
            "p: args.reservationTTL: must be a duration such as 10m\n"
            "p: args.maxEvictionsPerGang: must be an integer from 1 to 100000");
  bad = dd::parse_args(descheduler::args::Ctx{"p"}, json{{"evictableNamespaces", {{"exclude", {"a", "", ""}}}}}, "args");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.message(),
            "p: args.evictableNamespaces.exclude[1]: must be a namespace name\n"
            "p: args.evictableNamespaces.exclude[2]: must be a namespace name");
}

TEST(DefragmentArgs, NamespaceFilterKeepsPodsInPlace) {
  auto objects = fragmented_fabric();
  add_gang(objects, "train", 4, 8, 1);
  dd::Args args;
  args.exclude_namespaces = {"batch"};
  dd::Outcome out = plan(objects, args);
  EXPECT_TRUE(out.rooms.empty());
}

}  // namespace
}  // namespace weft::defrag_test
