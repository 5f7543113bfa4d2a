// DeschedulerPolicy parsing: the seed's policy, Volcano's policy as it ships, and errors
// that name the offending field.
#include <gtest/gtest.h>

#include "descheduler/core/policy.h"
#include "tests/support/process.h"

namespace weft::descheduler {
namespace {

Result<Policy> parse(const std::string& yaml) { return parse_policy_text(yaml, "policy.yaml"); }

std::string with_args(const std::string& load_aware_args, const std::string& evictor_args = "{}",
                      const std::string& top = "") {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n" + top +
         "profiles:\n- name: p\n  pluginConfig:\n  - name: DefaultEvictor\n    args: " + evictor_args +
         "\n  - name: LoadAware\n    args: " + load_aware_args + "\n  plugins:\n    balance:\n      enabled: [LoadAware]\n";
}

const std::string kArgs = "{thresholds: {cpu: 30, memory: 30}, targetThresholds: {cpu: 80, memory: 85}}";

TEST(Policy, SeedPolicyFile) {
  auto p = parse(testing::read_file(WEFT_SOURCE_DIR "/tests/descheduler/testdata/seed-policy.yaml"));
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->profiles[0].load_aware.thresholds.at("cpu"), 30);
  EXPECT_EQ(p->profiles[0].load_aware.thresholds.at("memory"), 30);
  EXPECT_EQ(p->profiles[0].load_aware.target_thresholds.at("cpu"), 80);
  EXPECT_EQ(p->profiles[0].load_aware.target_thresholds.at("memory"), 85);
  EXPECT_EQ(p->profiles[0].evictor.priority_threshold.value, 10000);
  EXPECT_TRUE(p->profiles[0].node_fit());
  EXPECT_TRUE(p->profiles[0].evictor.ignore_pvc_pods);
  EXPECT_EQ(p->profiles[0].load_aware.metrics.type, MetricsType::Prometheus);
  EXPECT_EQ(p->profiles[0].load_aware.metrics.address, "http://prometheus.monitoring:9090");
  EXPECT_EQ(p->profiles[0].load_aware.metrics.window.count(), 60);
}

TEST(Policy, DeployedDefaultPolicyParses) {
  std::string cm = testing::read_file(WEFT_SOURCE_DIR "/deploy/descheduler/common/policy-configmap.yaml");
  auto at = cm.find("policy.yaml: |");
  ASSERT_NE(at, std::string::npos);
  std::string body;
  std::istringstream lines(cm.substr(cm.find('\n', at) + 1));
  for (std::string line; std::getline(lines, line);) body += (line.size() >= 4 ? line.substr(4) : "") + "\n";
  auto p = parse(body);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->profiles[0].load_aware.target_thresholds.at("cpu"), 80);
}

TEST(Policy, VolcanoPolicyCarriesOver) {
  // Volcano's descheduler ConfigMap as shipped (null metrics fields, lower-case type).
  auto p = parse(R"(apiVersion: "descheduler/v1alpha2"
kind: "DeschedulerPolicy"
profiles:
- name: default
  pluginConfig:
  - args:
      ignorePvcPods: true
      nodeFit: true
      priorityThreshold:
        value: 10000
    name: DefaultEvictor
  - args:
      evictableNamespaces:
        exclude:
        - kube-system
      metrics:
        address: null
        type: null
      targetThresholds:
        cpu: 80
        memory: 85
      thresholds:
        cpu: 30
        memory: 30
    name: LoadAware
  plugins:
    balance:
      enabled:
      - LoadAware
)");
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->profiles[0].load_aware.exclude_namespaces, std::vector<std::string>{"kube-system"});
  auto q = parse(with_args("{thresholds: {cpu: 30}, targetThresholds: {cpu: 80}, duration: 2m, "
                           "metrics: {type: prometheus, address: 'http://p:9090'}}"));
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_EQ(q->profiles[0].load_aware.metrics.window.count(), 120);
}

TEST(Policy, FullShape) {
  auto p = parse(with_args(
      "{thresholds: {cpu: 20, memory: 25, pods: 10}, targetThresholds: {cpu: 70, memory: 75, pods: 90},"
      " nodeSelector: 'pool=gpu', evictableNamespaces: {include: [batch, ml]},"
      " metrics: {type: Annotations, window: 90s, nodeLabel: instance_node,"
      " cpuQuery: 'avg_over_time(x[{window}])', memoryFreshnessQuery: 'max by ({label}) (timestamp(mem))'}}",
      "{priorityThreshold: {name: gold}, evictLocalStoragePods: true, evictSystemCriticalPods: true}",
      "maxNoOfPodsToEvictPerNode: 3\nmaxNoOfPodsToEvictPerNamespace: 4\nmaxNoOfPodsToEvictTotal: 5\n"));
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->profiles[0].load_aware.thresholds.at("pods"), 10);
  EXPECT_TRUE(p->profiles[0].load_aware.node_selector->matches(kube::Labels{{"pool", "gpu"}}));
  EXPECT_FALSE(p->profiles[0].load_aware.node_selector->matches(kube::Labels{{"pool", "cpu"}}));
  EXPECT_EQ(p->profiles[0].load_aware.include_namespaces, (std::vector<std::string>{"batch", "ml"}));
  EXPECT_EQ(p->profiles[0].load_aware.metrics.type, MetricsType::Annotations);
  EXPECT_EQ(p->profiles[0].load_aware.metrics.window.count(), 90);
  EXPECT_EQ(p->profiles[0].load_aware.metrics.node_label, "instance_node");
  const auto& res = p->profiles[0].load_aware.metrics.resources;
  EXPECT_EQ(res.at("cpu").query, "avg_over_time(x[{window}])");
  EXPECT_EQ(res.at("memory").freshness_query, "max by ({label}) (timestamp(mem))");
  EXPECT_EQ(res.at("cpu").freshness_query, MetricsArgs{}.resources.at("cpu").freshness_query);
  EXPECT_NE(MetricsArgs{}.resources.at("memory").freshness_query.find("weft_node_memory_used_ratio"), std::string::npos);
  EXPECT_EQ(p->profiles[0].evictor.priority_threshold.name, "gold");
  EXPECT_TRUE(p->profiles[0].evictor.evict_local_storage_pods);
  EXPECT_TRUE(p->profiles[0].evictor.evict_system_critical_pods);
  EXPECT_EQ(p->max_per_node, 3);
  EXPECT_EQ(p->max_per_namespace, 4);
  EXPECT_EQ(p->max_total, 5);
}

// The first v1alpha2 releases enabled the evictor under plugins.evict; upstream dropped that
// extension point in 0.27 and its decoder skips the key, so such a policy still runs there.
TEST(Policy, TheEarlyEvictExtensionPointEnablingDefaultEvictorIsAccepted) {
  const std::string head = "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
                           "  pluginConfig:\n  - name: DefaultEvictor\n    args: {nodeFit: true}\n"
                           "  - name: PodLifeTime\n    args: {maxPodLifeTimeSeconds: 3600}\n"
                           "  plugins:\n    deschedule:\n      enabled: [PodLifeTime]\n";
  auto early = parse(head + "    evict:\n      enabled: [DefaultEvictor]\n");
  ASSERT_TRUE(early.ok()) << early.message();
  EXPECT_TRUE(early->profiles[0].node_fit());
  ASSERT_EQ(early->profiles[0].strategies.size(), 1u);
  auto other = parse(head + "    evict:\n      enabled: [MyEvictor]\n");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.message().find("policy.yaml: profiles[0].plugins.evict: the Evict extension point is gone"),
            std::string::npos)
      << other.message();
}

// Found by fuzz/descheduler_policy_fuzz.cc: "apiVersion:" with no value threw.
TEST(Policy, NullApiVersionOrKindIsAnError) {
  auto api = parse("apiVersion:  # nothing\nkind: DeschedulerPolicy\n");
  ASSERT_FALSE(api.ok());
  EXPECT_NE(api.message().find("apiVersion: null is not descheduler/v1alpha2"), std::string::npos) << api.message();
  auto kind = parse("apiVersion: descheduler/v1alpha2\nkind: [1]\n");
  ASSERT_FALSE(kind.ok());
  EXPECT_NE(kind.message().find("kind: [1] is not DeschedulerPolicy"), std::string::npos) << kind.message();
}

// Found by fuzz/descheduler_policy_fuzz.cc: a balance plugin's pluginConfig without args
// was read with a const operator[] on the missing key (an assertion, undefined otherwise).
// Policies with several profiles that upstream accepts (each profile its own DefaultEvictor
// and plugins) are accepted: different DefaultEvictor args, a profile without args beside
// one with, two profiles each with a balance plugin, GangDefragment beside another
// profile's balance plugin.
TEST(Policy, SeveralProfilesAreAcceptedAsUpstream) {
  const std::string head = "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n";
  const std::string lnu = "- name: balance\n  pluginConfig:\n"
                          "  - {name: DefaultEvictor, args: {nodeFit: true, priorityThreshold: {value: 1000}}}\n"
                          "  - {name: LowNodeUtilization, args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}}\n"
                          "  plugins: {balance: {enabled: [LowNodeUtilization]}}\n";
  for (const char* other : {
           "- name: restarts\n  pluginConfig:\n  - {name: DefaultEvictor, args: {evictLocalStoragePods: true}}\n"
           "  - {name: RemovePodsHavingTooManyRestarts, args: {podRestartThreshold: 5}}\n"
           "  plugins: {deschedule: {enabled: [RemovePodsHavingTooManyRestarts]}}\n",
           "- name: lifetime\n  pluginConfig:\n  - {name: PodLifeTime, args: {maxPodLifeTimeSeconds: 3600}}\n"
           "  plugins: {deschedule: {enabled: [PodLifeTime]}}\n",
           "- name: high\n  pluginConfig:\n  - {name: HighNodeUtilization, args: {thresholds: {cpu: 20}}}\n"
           "  plugins: {balance: {enabled: [HighNodeUtilization]}}\n",
           "- name: memory\n  pluginConfig:\n"
           "  - {name: LowNodeUtilization, args: {thresholds: {memory: 20}, targetThresholds: {memory: 50}}}\n"
           "  plugins: {balance: {enabled: [LowNodeUtilization]}}\n",
           "- name: gangs\n  plugins: {balance: {enabled: [GangDefragment]}}\n"}) {
    auto p = parse_policy_text(head + lnu + other, "policy.yaml");
    EXPECT_TRUE(p.ok()) << other << p.message();
  }
}

TEST(Policy, BalancePluginConfigWithoutArgsIsAnError) {
  auto r = parse(
      "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n"
      "  - name: LowNodeUtilization\n  plugins:\n    balance:\n      enabled: [LowNodeUtilization]\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("LowNodeUtilization is enabled but has no args"), std::string::npos) << r.message();
}

TEST(Policy, UnknownFieldsAreErrorsNamingThem) {
  struct Case {
    std::string yaml, field;
  };
  std::vector<Case> cases = {
      {with_args(kArgs, "{}", "maxNoOfPodsToEvictPerNod: 1\n"), "maxNoOfPodsToEvictPerNod"},
      {with_args("{thresholds: {cpu: 30}, targetThresholds: {cpu: 80}, metrics: {tpye: Prometheus}}"), "metrics.tpye"},
      {with_args(kArgs, "{priorityThresold: {value: 1}}"), "priorityThresold"},
      {with_args("{thresholds: {cpu: 30}, targetThresholds: {cpu: 80}, thresold: 1}"), "thresold"},
      {with_args("{thresholds: {nvidia.com/gpu: 30}, targetThresholds: {nvidia.com/gpu: 80}, "
                 "metrics: {resources: {nvidia.com/gpu: {qurey: x}}}}"),
       "metrics.resources.nvidia.com/gpu.qurey"},
      {with_args(kArgs, "{priorityThreshold: {value: 1, nam: x}}"), "priorityThreshold.nam"},
      {with_args("{thresholds: {cpu: 30}, targetThresholds: {cpu: 80}, evictableNamespaces: {inclde: [a]}}"),
       "evictableNamespaces.inclde"},
  };
  for (const auto& c : cases) {
    auto p = parse(c.yaml);
    ASSERT_FALSE(p.ok()) << c.field;
    EXPECT_NE(p.message().find(c.field), std::string::npos) << p.message();
    EXPECT_NE(p.message().find("policy.yaml"), std::string::npos) << p.message();
  }
}

TEST(Policy, PluginsAndFieldsItDoesNotImplementAreRefusedNotIgnored) {
  const std::string base = with_args(kArgs);
  struct Case {
    std::string yaml, names;
  };
  std::vector<Case> cases = {
      {base + "    deschedule:\n      enabled: [MyDeschedulePlugin]\n", "MyDeschedulePlugin"},
      {base + "    filter:\n      enabled: [DefaultEvictor, MyFilter]\n", "MyFilter"},
      // A pluginConfig entry for a plugin weft lacks.
      {"apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n"
       "  - name: MyBalancePlugin\n    args: {}\n  - name: LoadAware\n    args: " + kArgs +
           "\n  plugins:\n    balance:\n      enabled: [LoadAware]\n",
       "MyBalancePlugin"},
      {with_args(kArgs, "{}", "metricsProviders: [{source: Prometheus}]\n"), "metricsProviders"},
  };
  for (const auto& c : cases) {
    auto p = parse(c.yaml);
    ASSERT_FALSE(p.ok()) << c.names << " was accepted";
    EXPECT_NE(p.message().find(c.names), std::string::npos) << p.message();
  }
  // What upstream policies carry and weft does implement stays accepted.
  auto ok = parse(base + "    filter:\n      enabled: [DefaultEvictor]\n    preEvictionFilter:\n      enabled: [DefaultEvictor]\n");
  EXPECT_TRUE(ok.ok()) << ok.message();
}

TEST(Policy, InvalidValuesAreErrors) {
  for (const std::string& bad : {
           with_args("{thresholds: {cpu: 90}, targetThresholds: {cpu: 80}}"),             // low above target
           with_args("{thresholds: {cpu: 30}, targetThresholds: {cpu: 180}}"),            // not a percentage
           with_args("{thresholds: {cpu: 30}, targetThresholds: {memory: 80}}"),          // resources differ
           with_args("{targetThresholds: {cpu: 80}}"),                                    // thresholds missing
           with_args(kArgs, "{priorityThreshold: {value: 1, name: x}}"),                  // both
           with_args("{thresholds: {cpu: 30}, targetThresholds: {cpu: 80}, evictableNamespaces: {include: [a], exclude: [b]}}"),
           with_args("{thresholds: {cpu: 30}, targetThresholds: {cpu: 80}, metrics: {type: Graphite}}"),
           with_args("{thresholds: {cpu: 30}, targetThresholds: {cpu: 80}, metrics: {window: 5 minutes}}"),
           with_args(kArgs, "{nodeFit: yes please}"),
           with_args(kArgs, "{}", "maxNoOfPodsToEvictTotal: -1\n"),
           std::string("apiVersion: descheduler/v1alpha1\nkind: DeschedulerPolicy\nprofiles: []\n"),
           std::string("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
                       "  pluginConfig: []\n  plugins: {balance: {enabled: [LowNodeUtilization]}}\n"),
           std::string("not: [valid"),
       }) {
    auto p = parse(bad);
    EXPECT_FALSE(p.ok()) << bad;
    if (!p.ok()) {
      EXPECT_EQ(p.message().find('\n'), std::string::npos) << p.message();
    }
  }
}

}  // namespace
}  // namespace weft::descheduler

namespace weft::descheduler {
namespace {

TEST(Policy, UpstreamThresholdShapes) {
  // Deviation spans (a low span wider than the high one is allowed there) and extended resources.
  auto p = parse(with_args("{thresholds: {cpu: 20, nvidia.com/gpu: 10}, targetThresholds: {cpu: 10, nvidia.com/gpu: 10}, "
                           "useDeviationThresholds: true}",
                           "{ignorePodsWithoutPDB: true}"));
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_TRUE(p->profiles[0].load_aware.use_deviation_thresholds);
  EXPECT_EQ(p->profiles[0].load_aware.thresholds.at("nvidia.com/gpu"), 10);
  EXPECT_TRUE(p->profiles[0].evictor.ignore_pods_without_pdb);
  auto q = parse(with_args("{thresholds: {cpu: 20}, targetThresholds: {cpu: 10}}"));
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.message().find("thresholds.cpu: is above targetThresholds.cpu"), std::string::npos) << q.message();
}

TEST(Policy, PerResourceQueriesPodUsageAndAuth) {
  auto p = parse(with_args(
      "{thresholds: {cpu: 30, memory: 30, example.com/fpga: 20}, targetThresholds: {cpu: 80, memory: 85, example.com/fpga: 70}, "
      "metrics: {window: 5m, resources: {cpu: {query: 'avg by ({label}) (rate(c[{window}]))', window: 1m, maxAge: 90s}, "
      "example.com/fpga: {query: 'f', freshnessQuery: 'max by ({label}) (timestamp(f))', maxAge: 2m}}, "
      "podUsage: {enabled: false, maxAge: 3m}, "
      "auth: {bearerTokenFile: /var/run/secrets/prom/token, caFile: /etc/prom/ca.crt}}}"));
  ASSERT_TRUE(p.ok()) << p.message();
  const MetricsArgs& m = p->profiles[0].load_aware.metrics;
  EXPECT_EQ(m.resources.at("cpu").query, "avg by ({label}) (rate(c[{window}]))");
  EXPECT_EQ(m.window_of(m.resources.at("cpu")).count(), 60);
  EXPECT_EQ(m.resources.at("cpu").max_age->count(), 90);
  EXPECT_EQ(m.window_of(m.resources.at("memory")).count(), 300);   // defaults stay for memory
  EXPECT_EQ(m.resources.at("example.com/fpga").max_age->count(), 120);
  EXPECT_FALSE(m.pod_usage.enabled);
  EXPECT_EQ(m.pod_usage.max_age->count(), 180);
  EXPECT_NE(MetricsArgs{}.pod_usage.cpu_query.find("weft_pod_cpu_usage_cores"), std::string::npos);
  EXPECT_NE(MetricsArgs{}.pod_usage.memory_query.find("weft_pod_memory_usage_bytes"), std::string::npos);
  EXPECT_EQ(m.auth.bearer_token_file, "/var/run/secrets/prom/token");
  EXPECT_EQ(m.auth.ca_file, "/etc/prom/ca.crt");
  for (const std::string& bad : {
           // an extended resource needs both queries
           with_args("{thresholds: {x.io/y: 1}, targetThresholds: {x.io/y: 2}, metrics: {resources: {x.io/y: {query: q}}}}"),
           // a query without a threshold would be read and ignored
           with_args(kArgs.substr(0, kArgs.size() - 1) + ", metrics: {resources: {x.io/y: {query: q, freshnessQuery: f}}}}"),
           // the flat and the per-resource form for the same resource
           with_args("{thresholds: {cpu: 30}, targetThresholds: {cpu: 80}, metrics: {cpuQuery: a, resources: {cpu: {query: b}}}}"),
           with_args(kArgs.substr(0, kArgs.size() - 1) + ", metrics: {auth: {username: u}}}"),
           with_args(kArgs, "{namespaceLabelSelector: {matchExpressions: [{key: a, operator: In}]}}"),
       }) {
    auto r = parse(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.message().find("policy.yaml: "), std::string::npos) << r.message();
  }
}

}  // namespace
}  // namespace weft::descheduler
