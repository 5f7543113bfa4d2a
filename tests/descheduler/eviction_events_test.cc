// The Events a carried-out plan records, as the Kubernetes descheduler's PodEvictor words
// them (evictions.go): a Normal per eviction, a Warning per refusal with the notification.
#include <gtest/gtest.h>

#include "descheduler/app/eviction_events.h"

namespace weft::descheduler {
namespace {

Plan carried_out() {
  Plan plan;
  plan.evictions.push_back({.ns = "ml", .name = "a", .from = "n1", .to = "n2", .plugin = "RemoveDuplicates"});
  plan.evictions.push_back({.ns = "ml", .name = "b", .from = "n1"});
  plan.skipped = {{"ml", "c", "n1", "limit-per-node"},
                  {"ml", "d", "n3", "limit-total"},
                  {"ml", "e", "n3", "limit-per-namespace"},
                  {"ml", "f", "n4", "pdb: Cannot evict pod as it would violate the pod's disruption budget."},
                  {"ml", "g", "n4", "eviction-error: connection refused"},
                  {"ml", "h", "n4", "priority-threshold"},
                  {"ml", "i", "n4", "pdb"},
                  {"ml", "j", "n4", "eviction-aborted: the API failed three times in a row"},
                  {"ml", "k", "n4", "pod-gone"}};
  return plan;
}

TEST(EvictionEvents, ANormalEventPerEvictionNamedByItsPlugin) {
  Policy policy;
  auto events = eviction_events(carried_out(), policy);
  ASSERT_EQ(events.size(), 2u);   // no notification: refusals record nothing
  EXPECT_EQ(events[0].type, "Normal");
  EXPECT_EQ(events[0].reason, "RemoveDuplicates");
  EXPECT_EQ(events[0].message, "pod eviction from n1 node by weft-descheduler");
  EXPECT_EQ(events[1].reason, "NotSet");   // upstream's word for an eviction without a strategy
}

TEST(EvictionEvents, WithTheNotificationEachRefusedEvictionIsAWarning) {
  Policy policy;
  policy.eviction_failure_events = true;
  policy.max_per_node = 2;
  policy.max_total = 10;
  auto events = eviction_events(carried_out(), policy);
  std::vector<std::string> warnings;
  for (const auto& e : events)
    if (e.type == "Warning") {
      EXPECT_EQ(e.reason, "EvictionFailed");
      warnings.push_back(e.pod + ": " + e.message);
    }
  // Filtered pods (priority-threshold, the planned budget check) and the ones never tried
  // after three API errors were never refused: no Event.
  const std::string by = " node by weft-descheduler failed: ";
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "c: pod eviction from n1" + by + "node eviction limit exceeded (2)",
                          "d: pod eviction from n3" + by + "total eviction limit exceeded (10)",
                          "e: pod eviction from n3" + by + "namespace eviction limit exceeded (unset)",
                          "f: pod eviction from n4" + by + "Cannot evict pod as it would violate the pod's disruption budget.",
                          "g: pod eviction from n4" + by + "connection refused",
                          "k: pod eviction from n4" + by + "pod not found when evicting \"k\"",
                      }));
}

}  // namespace
}  // namespace weft::descheduler
