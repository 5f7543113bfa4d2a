#include <gtest/gtest.h>

#include "scheduler/core/config.h"

namespace weft::scheduler {
namespace {

TEST(SchedulerConfig, ParsesVolcanoFormat) {
  auto c = parse_config(R"(
actions: "enqueue, allocate, reclaim, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
    arguments: {predicate.NodeAffinityEnable: true, predicate.PodAffinityEnable: false, predicate.GPUSharingEnable: false,
                predicate.VolumeBindingEnable: "false"}
  - name: proportion
    arguments:
      tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]
      nodeSelector: {pool: gpu}
  - name: nodeorder
    arguments: {leastrequested.weight: 0, mostrequested.weight: 2, balancedresource.weight: 1}
  - name: binpack
    arguments: {binpack.weight: 10, binpack.cpu: 2, binpack.memory: 1, binpack.resources: "nvidia.com/gpu",
                binpack.resources.nvidia.com/gpu: 5}
  - name: network-topology-aware
    arguments: {weight: 10}
  - name: usage
    arguments: {usage.weight: 5, cpu.weight: 2, memory.weight: 1, thresholds: {cpu: 80, mem: 90}, usage.maxAge: 2m}
  - name: overcommit
    arguments: {overcommit-factor: 1.5}
)", "conf");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->actions, (std::vector<Action>{Action::Enqueue, Action::Allocate, Action::Reclaim, Action::Backfill}));
  EXPECT_TRUE(c->has("gang"));
  EXPECT_TRUE(c->has("usage"));
  ASSERT_NE(c->plugin("gang"), nullptr);
  EXPECT_FALSE(c->plugin("gang")->enabled(Switch::Preemptable));
  EXPECT_TRUE(c->plugin("gang")->enabled(Switch::JobReady));   // absent = on
  EXPECT_EQ(c->plugin("gang")->tier, 0);
  EXPECT_EQ(c->plugin("drf")->tier, 1);
  EXPECT_EQ(c->plugin("binpack")->arguments["binpack.weight"], 10);
  EXPECT_TRUE(c->has("ib-cluster"));   // weft's own, always on
  EXPECT_TRUE(c->warnings.empty());
}

struct BadConfig {
  const char* text;
  const char* names;
};

TEST(SchedulerConfig, UnknownNamesAreErrorsThatNameThem) {
  const BadConfig cases[] = {
      {"actions: \"enqueue, allocate, shuffle\"\ntiers: []", "action 'shuffle'"},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: gang\n  - name: tdm\n", "tiers[0].plugins[1] (tdm): plugin 'tdm'"},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: binpack\n    arguments: {binpack.speed: 3}\n",
       "(binpack): argument 'binpack.speed' is unknown"},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enableMagic: true\n", "option 'enableMagic'"},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: proportion\n    arguments: {weight: 2}\n",
       "(proportion): argument 'weight' is unknown"},
      {"actions: allocate\nfoo: 1\n", "key 'foo'"},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: nodeorder\n    arguments: {leastrequested.weight: abc}\n",
       "argument 'leastrequested.weight': \"abc\" is not a number"},
      {"actions: [allocate\n", "YAML error"},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: predicates\n    arguments: {predicate.MagicEnable: true}\n",
       "(predicates): argument 'predicate.MagicEnable' is unknown"},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: predicates\n    arguments: {predicate.GPUSharingEnable: true}\n",
       "argument 'predicate.GPUSharingEnable': weft does not implement this predicate"},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: predicates\n    arguments: {predicate.DynamicResourceAllocationEnable: true}\n",
       "argument 'predicate.DynamicResourceAllocationEnable': weft does not implement this predicate"},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: tdm\n", "plugin 'tdm' is a Volcano plugin weft does not implement"},
      {"actions: enqueue, shuffle\n", "action 'shuffle' is a Volcano action weft does not implement"},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: drf\n    enableHierarchy: true\n", "hierarchical DRF"},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: proportion\n  - name: capacity\n", "enable one of them"},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: gang\n    enableClusterOrder: true\n",
       "option 'enableClusterOrder' is unknown"},
      {"actions: allocate\ntiers:\n- plugins:\n  - name: nodeorder\n    arguments: {imagelocality.weight: 1}\n",
       "argument 'imagelocality.weight': weft does not score image locality"},
  };
  for (const auto& c : cases) {
    auto r = parse_config(c.text, "sched.conf");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.message().find(c.names), std::string::npos) << r.message();
    EXPECT_EQ(r.message().rfind("sched.conf", 0), 0u) << r.message();
  }
}

}  // namespace
}  // namespace weft::scheduler
