// The two search steps on their own: cheapest evictions per node, cheapest choice per domain.
#include <gtest/gtest.h>

#include "descheduler/core/defragment/domain_search.h"
#include "descheduler/core/defragment/node_room.h"

namespace weft::descheduler::defragment {
namespace {

// Dimensions: gpu, pods (as milli-pods like the capacity table).
Movable gpu_pod(int pod, int gpus, int priority = 0) {
  return {pod, {gpus, 1000}, Cost{1, priority, gpus / 8.0}};
}

TEST(NodeRoom, ExactFindsTheFewestPods) {
  // 8 GPUs, 1 free; pods of 1, 1, 1, 4, 1: one 8-GPU slot needs the 4 and two 1s... or all
  // five small ones? Free 1 + 4 + 1 + 1 = 7 < 8: it needs 4 + three 1s (4 pods).
  Request free{1, 100000};
  std::vector<Movable> mv{gpu_pod(0, 1), gpu_pod(1, 1), gpu_pod(2, 1), gpu_pod(3, 4), gpu_pod(4, 1)};
  auto opts = node_options(free, {8, 1000}, mv, 1, 32);
  ASSERT_EQ(opts.size(), 2u);
  EXPECT_EQ(opts[0].slots, 0);
  EXPECT_EQ(opts[1].slots, 1);
  EXPECT_EQ(opts[1].cost.pods, 4);
  EXPECT_EQ(std::count(opts[1].victims.begin(), opts[1].victims.end(), 3), 1);
}

TEST(NodeRoom, PrefersLowerPriorityAtEqualCount) {
  Request free{4, 100000};
  std::vector<Movable> mv{gpu_pod(0, 4, 100), gpu_pod(1, 4, 5), gpu_pod(2, 4, 50)};
  auto opts = node_options(free, {8, 1000}, mv, 1, 32);
  ASSERT_EQ(opts.size(), 2u);
  EXPECT_EQ(opts[1].victims, std::vector<int>{1});
}

TEST(NodeRoom, GreedyBeyondTheExactLimitStillFrees) {
  // 16 GPUs, 12 one-GPU pods, 4 free: two 8-GPU slots need 12 evictions, one needs 4.
  Request free{4, 100000};
  std::vector<Movable> mv;
  for (int i = 0; i < 12; ++i) mv.push_back(gpu_pod(i, 1, i));
  auto opts = node_options(free, {8, 1000}, mv, 2, 32);
  ASSERT_EQ(opts.size(), 3u);
  EXPECT_EQ(opts[1].cost.pods, 4);
  EXPECT_EQ(opts[2].cost.pods, 12);
  // The cheapest four by priority.
  EXPECT_EQ(opts[1].cost.priority, 0 + 1 + 2 + 3);
  // maxVictims caps what one node may give.
  auto capped = node_options(free, {8, 1000}, mv, 2, 5);
  EXPECT_EQ(capped.size(), 2u);
}

TEST(NodeRoom, MovesThatDoNotHelpAreNotMade) {
  Request free{0, 100000};
  std::vector<Movable> mv{{0, {0, 1000}, Cost{1, 0, 0}}};
  auto opts = node_options(free, {8, 1000}, mv, 1, 32);
  ASSERT_EQ(opts.size(), 1u);
  EXPECT_EQ(opts[0].slots, 0);
}

TEST(DomainSearch, TakesFreeRoomFirstThenTheCheapestNodes) {
  std::vector<std::vector<Option>> options(4);
  options[0] = {{1, Cost{}, {}}};                                          // already free
  options[1] = {{0, Cost{}, {}}, {1, Cost{2, 0, 0}, {10, 11}}};
  options[2] = {{0, Cost{}, {}}, {1, Cost{1, 0, 0}, {20}}};
  options[3] = {{0, Cost{}, {}}, {1, Cost{1, 7, 0}, {30}}, {2, Cost{3, 0, 0}, {30, 31, 32}}};
  DomainSearch search;
  OptionsOf of = [&](int n) -> const std::vector<Option>& { return options[static_cast<size_t>(n)]; };
  DomainPlan p = search.cheapest({0, 1, 2, 3}, of, 3);
  ASSERT_TRUE(p.found());
  EXPECT_EQ(p.cost.pods, 2);   // node 0 free, node 2 (1 pod), node 3 (1 pod)
  EXPECT_EQ(p.cost.priority, 7);
  std::vector<std::pair<int, int>> want{{0, 0}, {2, 1}, {3, 1}};
  EXPECT_EQ(p.picks, want);
  EXPECT_FALSE(search.cheapest({0, 1}, of, 3).found());
  EXPECT_EQ(search.cheapest({0}, of, 1).cost.pods, 0);
}

}  // namespace
}  // namespace weft::descheduler::defragment
