// On small random fragmented clusters, GangDefragment evicts at most 1.2x the fewest
// pods that brute force finds (every subset of movable pods, smallest first), never
// evicts when brute force finds no way, and always finds one when brute force does.
#include <gtest/gtest.h>

#include <random>

#include "kube/objects.h"
#include "tests/defragment/fixtures.h"

namespace weft::defrag_test {
namespace {

namespace dd = descheduler::defragment;

struct Filler {
  int node, gpus;
  bool movable = true;   // else it outranks the gang
};

struct Cluster {
  int leaves = 0, per_leaf = 0, gpus = 8;
  std::vector<Filler> fillers;     // movable pods on fabric a
  int gang_pods = 0, gang_gpus = 0;
};

std::string node_name(int n) { return "a-n" + std::to_string(n); }

std::vector<json> objects_of(const Cluster& c) {
  std::vector<json> o;
  for (int n = 0; n < c.leaves * c.per_leaf; ++n)
    o.push_back(gpu_node(node_name(n), "fab-a", "a-s", "a-l" + std::to_string(n / c.per_leaf), c.gpus));
  for (size_t i = 0; i < c.fillers.size(); ++i)
    o.push_back(pod({.name = "f" + std::to_string(i), .node = node_name(c.fillers[i].node),
                     .gpus = c.fillers[i].gpus, .cpu = 1, .priority = c.fillers[i].movable ? 0 : 200}));
  // Fabric b: room for every victim; the gang asks for fabric a.
  for (int n = 0; n < 8; ++n) o.push_back(gpu_node("b-n" + std::to_string(n), "fab-b", "b-s", "b-l", 16));
  o.push_back(podgroup({.name = "g", .min_member = c.gang_pods, .hard_tier = 1}));
  for (int i = 0; i < c.gang_pods; ++i)
    o.push_back(pod({.ns = "ml", .name = "g-" + std::to_string(i), .gpus = c.gang_gpus, .cpu = 1, .priority = 100,
                     .owner_kind = "Job", .owner_name = "g", .group = "g",
                     .node_selector = {{"weft.dev/ib-fabric", "fab-a"}}}));
  return o;
}

// Does the gang fit in some leaf once `evicted` (a bitmask over fillers) are gone?
bool fits_after(const Cluster& c, uint32_t evicted) {
  std::vector<int> used(static_cast<size_t>(c.leaves * c.per_leaf), 0);
  for (size_t i = 0; i < c.fillers.size(); ++i)
    if (!(evicted & (1u << i))) used[static_cast<size_t>(c.fillers[i].node)] += c.fillers[i].gpus;
  for (int l = 0; l < c.leaves; ++l) {
    int slots = 0;
    for (int n = l * c.per_leaf; n < (l + 1) * c.per_leaf; ++n) slots += (c.gpus - used[static_cast<size_t>(n)]) / c.gang_gpus;
    if (slots >= c.gang_pods) return true;
  }
  return false;
}

int brute_force_minimum(const Cluster& c) {
  const int m = static_cast<int>(c.fillers.size());
  int best = -1;
  uint32_t fixed = 0;
  for (int i = 0; i < m; ++i)
    if (!c.fillers[static_cast<size_t>(i)].movable) fixed |= 1u << i;
  for (uint32_t mask = 0; mask < (1u << m); ++mask) {
    if (mask & fixed) continue;
    int k = __builtin_popcount(mask);
    if (best >= 0 && k >= best) continue;
    if (fits_after(c, mask)) best = k;
  }
  return best;
}

Cluster random_cluster(std::mt19937& rng) {
  Cluster c;
  c.leaves = std::uniform_int_distribution<int>(1, 3)(rng);
  c.per_leaf = std::uniform_int_distribution<int>(2, 3)(rng);
  c.gpus = 8;
  int nodes = c.leaves * c.per_leaf;
  std::vector<int> free(static_cast<size_t>(nodes), c.gpus);
  int count = std::uniform_int_distribution<int>(4, 16)(rng);
  for (int i = 0; i < count; ++i) {
    int n = std::uniform_int_distribution<int>(0, nodes - 1)(rng);
    int g = std::uniform_int_distribution<int>(1, 4)(rng);
    if (free[static_cast<size_t>(n)] < g) continue;
    free[static_cast<size_t>(n)] -= g;
    c.fillers.push_back({n, g, std::uniform_int_distribution<int>(0, 3)(rng) != 0});
  }
  c.gang_gpus = std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? 8 : 4;
  c.gang_pods = std::uniform_int_distribution<int>(1, c.per_leaf * (c.gang_gpus == 8 ? 1 : 2))(rng);
  return c;
}

TEST(DefragmentProperty, WithinOnePointTwoOfBruteForce) {
  std::mt19937 rng(20261124);
  int helped = 0, unhelpable = 0, already = 0;
  for (int round = 0; round < 300; ++round) {
    Cluster c = random_cluster(rng);
    int minimum = brute_force_minimum(c);
    auto w = world(objects_of(c), test_now());
    auto out = dd::plan_defragment(w, descheduler::default_policy(), {}, {}, {.now = test_now()});
    ASSERT_TRUE(out) << out.message();
    size_t evicted = out->rooms.empty() ? 0 : out->rooms[0].evictions.size();
    SCOPED_TRACE("round " + std::to_string(round) + ": " + std::to_string(c.leaves) + "x" +
                 std::to_string(c.per_leaf) + " nodes, " + std::to_string(c.fillers.size()) + " fillers, gang " +
                 std::to_string(c.gang_pods) + "x" + std::to_string(c.gang_gpus) + " GPUs, minimum " +
                 std::to_string(minimum));
    if (minimum < 0) {
      EXPECT_EQ(evicted, 0u);
      ++unhelpable;
    } else if (minimum == 0) {
      EXPECT_EQ(evicted, 0u);
      ++already;
    } else {
      ASSERT_EQ(out->rooms.size(), 1u);
      EXPECT_LE(static_cast<double>(evicted), 1.2 * minimum);
      EXPECT_GE(static_cast<int>(evicted), minimum);
      ++helped;
    }
  }
  // The generator covers all three cases.
  EXPECT_GT(helped, 50);
  EXPECT_GT(unhelpable, 5);
  EXPECT_GT(already, 5);
}

// Many small pods per node: past the exact search's limit, the greedy one still stays
// within 1.2x of brute force.
TEST(DefragmentProperty, GreedyNodesWithinOnePointTwo) {
  std::mt19937 rng(7);
  int helped = 0;
  for (int round = 0; round < 40; ++round) {
    Cluster c;
    c.leaves = 1;
    c.per_leaf = 2;
    c.gpus = 16;
    for (int n = 0; n < 2; ++n) {
      int used = 0, k = n == 0 ? std::uniform_int_distribution<int>(11, 12)(rng) : std::uniform_int_distribution<int>(2, 4)(rng);
      for (int i = 0; i < k && used < 15; ++i) {
        int g = std::uniform_int_distribution<int>(0, 3)(rng) == 0 ? 2 : (n == 0 ? 1 : 3);
        if (used + g > 16) break;
        used += g;
        c.fillers.push_back({n, g});
      }
    }
    c.gang_gpus = 8;
    c.gang_pods = std::uniform_int_distribution<int>(1, 3)(rng);
    int minimum = brute_force_minimum(c);
    auto w = world(objects_of(c), test_now());
    auto out = dd::plan_defragment(w, descheduler::default_policy(), {}, {}, {.now = test_now()});
    ASSERT_TRUE(out) << out.message();
    size_t evicted = out->rooms.empty() ? 0 : out->rooms[0].evictions.size();
    SCOPED_TRACE("round " + std::to_string(round) + ", minimum " + std::to_string(minimum));
    if (minimum <= 0) {
      EXPECT_EQ(evicted, 0u);
      continue;
    }
    ASSERT_EQ(out->rooms.size(), 1u);
    EXPECT_LE(static_cast<double>(evicted), 1.2 * minimum);
    ++helped;
  }
  EXPECT_GT(helped, 20);
}

}  // namespace
}  // namespace weft::defrag_test
