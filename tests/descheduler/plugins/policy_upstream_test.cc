// Policies as the Kubernetes descheduler's README and plugin docs give them: accepted, with
// each field doing what upstream documents, or refused naming the field and why.
#include <gtest/gtest.h>

#include "descheduler/core/framework/default_evictor.h"
#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/policy.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler {
namespace {

Result<Policy> parse(const std::string& yaml) { return parse_policy_text(yaml, "policy.yaml"); }

void expect_refused(const std::string& yaml, const std::string& names) {
  auto p = parse(yaml);
  ASSERT_FALSE(p.ok()) << names << " was accepted";
  EXPECT_NE(p.message().find(names), std::string::npos) << p.message();
  EXPECT_EQ(p.message().find('\n'), std::string::npos) << p.message();
}

TEST(PolicyUpstream, V1alpha1IsRefusedAsAnUnservedVersion) {
  auto p = parse(R"(apiVersion: "descheduler/v1alpha1"
kind: "DeschedulerPolicy"
strategies:
  "RemoveDuplicates":
     enabled: true
)");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find("policy.yaml: apiVersion: descheduler/v1alpha1 is not served"), std::string::npos)
      << p.message();
  EXPECT_NE(p.message().find("descheduler/v1alpha2"), std::string::npos) << p.message();
  EXPECT_EQ(p.message().find("unknown field"), std::string::npos) << p.message();
}

// The README's "Example policy" with its deschedule/balance placeholders filled in.
const char* kReadmeExample = R"(apiVersion: "descheduler/v1alpha2"
kind: "DeschedulerPolicy"
nodeSelector: "node=node1"
maxNoOfPodsToEvictPerNode: 5000
maxNoOfPodsToEvictPerNamespace: 5000
maxNoOfPodsToEvictTotal: 5000
gracePeriodSeconds: 60
metricsProviders:
- source: Prometheus
  prometheus:
    url: http://prometheus-kube-prometheus-prometheus.prom.svc.cluster.local
    authToken:
      secretReference:
        namespace: "kube-system"
        name: "authtoken"
profiles:
  - name: ProfileName
    pluginConfig:
    - name: "DefaultEvictor"
      args:
        podProtections:
          defaultDisabled:
          extraEnabled:
          config: {}
        nodeFit: true
        minReplicas: 2
    - name: "RemovePodsHavingTooManyRestarts"
      args:
        podRestartThreshold: 100
        includingInitContainers: true
    plugins:
      deschedule:
        enabled:
          - "RemovePodsHavingTooManyRestarts"
      balance:
        enabled:
          - "RemoveDuplicates"
)";

TEST(PolicyUpstream, ReadmeExamplePolicyIsAccepted) {
  auto p = parse(kReadmeExample);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->max_per_node, 5000);
  EXPECT_EQ(p->max_per_namespace, 5000);
  EXPECT_EQ(p->max_total, 5000);
  EXPECT_EQ(p->grace_period_seconds, 60);
  ASSERT_TRUE(p->prometheus);
  EXPECT_EQ(p->prometheus->url, "http://prometheus-kube-prometheus-prometheus.prom.svc.cluster.local");
  ASSERT_TRUE(p->prometheus->auth_token_secret);
  EXPECT_EQ(p->prometheus->auth_token_secret->ns, "kube-system");
  EXPECT_EQ(p->prometheus->auth_token_secret->name, "authtoken");
  ASSERT_EQ(p->profiles[0].strategies.size(), 2u);
  EXPECT_EQ(p->profiles[0].strategies[0].name, "RemovePodsHavingTooManyRestarts");
  EXPECT_FALSE(p->profiles[0].strategies[0].balance);
  EXPECT_NE(dynamic_cast<framework::DeschedulePlugin*>(p->profiles[0].strategies[0].plugin.get()), nullptr);
  EXPECT_EQ(p->profiles[0].strategies[1].name, "RemoveDuplicates");
  EXPECT_TRUE(p->profiles[0].strategies[1].balance);
  EXPECT_NE(dynamic_cast<framework::BalancePlugin*>(p->profiles[0].strategies[1].plugin.get()), nullptr);
  EXPECT_FALSE(p->profiles[0].load_aware_enabled);
  EXPECT_TRUE(p->profiles[0].evictor.node_fit);
  EXPECT_EQ(p->profiles[0].evictor.min_replicas, 2);
  ASSERT_TRUE(p->node_selector);
}

TEST(PolicyUpstream, DefaultEvictorPodProtections) {
  auto p = parse(R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: p
  pluginConfig:
  - name: DefaultEvictor
    args:
      podProtections:
        defaultDisabled: [PodsWithLocalStorage, DaemonSetPods]
        extraEnabled: [PodsWithPVC, PodsWithoutPDB]
      nodeFit: true
      minReplicas: 2
  plugins:
    deschedule:
      enabled: [RemovePodsViolatingNodeTaints]
)");
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_TRUE(p->profiles[0].evictor.evict_local_storage_pods);
  EXPECT_TRUE(p->profiles[0].evictor.evict_daemonset_pods);
  EXPECT_FALSE(p->profiles[0].evictor.evict_system_critical_pods);
  EXPECT_TRUE(p->profiles[0].evictor.ignore_pvc_pods);
  EXPECT_TRUE(p->profiles[0].evictor.ignore_pods_without_pdb);
  EXPECT_TRUE(p->profiles[0].evictor.node_fit);
  EXPECT_EQ(p->profiles[0].evictor.min_replicas, 2);
}

std::string evictor_policy(const std::string& evictor_args) { return test::evictor_policy_text(evictor_args); }

TEST(PolicyUpstream, PodProtectionsAndTheirRefusals) {
  auto claims = parse(evictor_policy("{podProtections: {extraEnabled: [PodsWithResourceClaims]}}"));
  ASSERT_TRUE(claims.ok()) << claims.message();
  EXPECT_TRUE(claims->profiles[0].evictor.protect_resource_claims);
  auto classes = parse(evictor_policy("{podProtections: {extraEnabled: [PodsWithPVC], config: {PodsWithPVC: "
                                      "{protectedStorageClasses: [{name: fast}, {name: local}]}}}}"));
  ASSERT_TRUE(classes.ok()) << classes.message();
  EXPECT_EQ(classes->profiles[0].evictor.protected_storage_classes, (std::vector<std::string>{"fast", "local"}));
  expect_refused(evictor_policy("{podProtections: {extraEnabled: [PodsWithPVC], config: {PodsWithPVC: "
                                "{protectedStorageClasses: [{}]}}}}"),
                 "protectedStorageClasses[0].name: is required");
  auto mandatory = parse(evictor_policy("{noEvictionPolicy: Mandatory}"));
  ASSERT_TRUE(mandatory.ok()) << mandatory.message();
  EXPECT_TRUE(mandatory->profiles[0].evictor.no_eviction_mandatory);
  auto ns = parse(evictor_policy("{namespaceLabelSelector: {matchLabels: {team: a}}}"));
  ASSERT_TRUE(ns.ok()) << ns.message();
  EXPECT_TRUE(ns->profiles[0].evictor.namespace_label_selector.has_value());
  expect_refused(evictor_policy("{ignorePvcPods: true, podProtections: {extraEnabled: [PodsWithPVC]}}"),
                 "podProtections: cannot be used with the deprecated fields");
  expect_refused(evictor_policy("{podProtections: {defaultDisabled: [DaemonSetPods, DaemonSetPods]}}"),
                 "appears twice");
  expect_refused(evictor_policy("{podProtections: {defaultDisabled: [PodsWithPVC]}}"), "defaultDisabled[0]");
  expect_refused(evictor_policy("{noEvictionPolicy: Sometimes}"), "noEvictionPolicy");
  EXPECT_TRUE(parse(evictor_policy("{noEvictionPolicy: Preferred}")).ok());
}

std::string with_top(const std::string& top) {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n" + top +
         "profiles:\n- name: p\n  plugins:\n    deschedule:\n      enabled: [RemovePodsViolatingNodeTaints]\n";
}

TEST(PolicyUpstream, TopLevelFields) {
  auto p = parse(with_top("evictionFailureEventNotification: true\ngracePeriodSeconds: 0\n"));
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_TRUE(p->eviction_failure_events);
  EXPECT_EQ(p->grace_period_seconds, 0);   // delete at once, as upstream
  auto defaults = parse(with_top(""));
  ASSERT_TRUE(defaults.ok()) << defaults.message();
  EXPECT_FALSE(defaults->eviction_failure_events);
  EXPECT_FALSE(defaults->grace_period_seconds);   // each pod's own grace period
  EXPECT_FALSE(defaults->prometheus);
  // v1alpha2 has no top-level prometheus (upstream's decoder drops it unread, so its
  // Prometheus is never used): refused as every unknown field, saying where it belongs.
  expect_refused(with_top("prometheus:\n  url: https://prom:9090\n"), "prometheus: unknown field");
  expect_refused(with_top("prometheus:\n  url: https://prom:9090\n"), "metricsProviders");
  // gracePeriodSeconds is a Go *int64 upstream does not check: a negative one is accepted;
  // upstream sends it and the API server reads it as 1 s, so weft sends 1.
  auto negative = parse(with_top("gracePeriodSeconds: -1\n"));
  ASSERT_TRUE(negative.ok()) << negative.message();
  EXPECT_EQ(negative->grace_period_seconds, 1);
  // The maxNoOfPodsToEvict* limits are Go *uint: any non-negative count decodes.
  auto large = parse(with_top("maxNoOfPodsToEvictTotal: 5000000000\nmaxNoOfPodsToEvictPerNode: 1000000001\n"));
  ASSERT_TRUE(large.ok()) << large.message();
  EXPECT_EQ(large->max_total, std::optional<int>(INT32_MAX));
  EXPECT_EQ(large->max_per_node, std::optional<int>(1000000001));
  // metricsCollector disabled says nothing.
  EXPECT_TRUE(parse(with_top("metricsCollector:\n  enabled: false\n")).ok());
}

TEST(PolicyUpstream, TopLevelRefusalsNameTheField) {
  expect_refused(with_top("gracePeriodSeconds: soon\n"), "gracePeriodSeconds: must be an integer");
  expect_refused(with_top("maxNoOfPodsToEvictPerNamespace: -1\n"), "maxNoOfPodsToEvictPerNamespace: must be a non-negative integer");
  // nodeSelector is a Go *string: the label selector's string form; a mapping does not decode.
  expect_refused(with_top("nodeSelector: {pool: gpu}\n"), "nodeSelector: must be a label selector string");
  expect_refused(with_top("nodeSelector: 'bad key!=x'\n"), "nodeSelector: selector term 'bad key!=x': invalid key 'bad key'");
  expect_refused(with_top("evictionFailureEventNotification: yes please\n"), "evictionFailureEventNotification");
  expect_refused(with_top("metricsProviders:\n- source: KubernetesMetrics\n  prometheus: {url: 'http://p'}\n"),
                 "metricsProviders[0].prometheus: is not allowed with source KubernetesMetrics");
  expect_refused(with_top("metricsProviders:\n- source: Prometheus\n"), "metricsProviders[0].prometheus: is required");
  expect_refused(with_top("metricsProviders:\n- source: Prometheus\n  prometheus: {}\n"),
                 "metricsProviders[0].prometheus.url: is required");
  expect_refused(with_top("metricsProviders:\n- source: Prometheus\n  prometheus: {url: 'prom:9090'}\n"),
                 "is not an http(s) URL");
  expect_refused(with_top("metricsProviders:\n- source: Prometheus\n  prometheus: {url: 'http://p', authToken: {}}\n"),
                 "authToken.secretReference: is required");
  expect_refused(with_top("metricsProviders:\n- source: Prometheus\n  prometheus: {url: 'http://p', authToken: "
                          "{secretReference: {name: t}}}\n"),
                 "must set both namespace and name");
  expect_refused(with_top("metricsProviders:\n- source: Prometheus\n  prometheus: {url: 'http://p'}\n"
                          "- source: Prometheus\n  prometheus: {url: 'http://q'}\n"),
                 "metricsProviders[1].source: 'Prometheus' is already configured");
  expect_refused(with_top("metricsProviders:\n- source: Graphite\n"), "metricsProviders[0].source");
  expect_refused(with_top("metricsProviders:\n- source: Prometheus\n  prometheus: {url: 'http://p', tls: {}}\n"),
                 "metricsProviders[0].prometheus.tls: unknown field");
}

TEST(PolicyUpstream, TopLevelPrometheusFeedsLoadAware) {
  auto p = parse(R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
metricsProviders:
- source: Prometheus
  prometheus:
    url: http://prom.monitoring:9090
    authToken: {secretReference: {namespace: kube-system, name: prom-token}}
profiles:
- name: p
  pluginConfig:
  - name: LoadAware
    args: {thresholds: {cpu: 30, memory: 30}, targetThresholds: {cpu: 80, memory: 85}}
  plugins:
    balance:
      enabled: [LoadAware]
)");
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->profiles[0].load_aware.metrics.address, "http://prom.monitoring:9090");
  ASSERT_TRUE(p->profiles[0].load_aware.metrics.auth.token_secret);
  EXPECT_EQ(p->profiles[0].load_aware.metrics.auth.token_secret->name, "prom-token");
}

std::string lnu(const std::string& metrics_utilization) {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n"
         "  - name: LowNodeUtilization\n    args:\n      thresholds: {cpu: 20, memory: 20, pods: 20}\n"
         "      targetThresholds: {cpu: 50, memory: 50, pods: 50}\n      metricsUtilization: " +
         metrics_utilization + "\n  plugins:\n    balance:\n      enabled: [LowNodeUtilization]\n";
}

TEST(PolicyUpstream, MetricsUtilizationIsValidatedAsUpstream) {
  const std::string at = "profiles[0].pluginConfig[0].args.metricsUtilization";
  // A Prometheus query measures MetricResource alone (prometheus_utilization_test.cc).
  expect_refused(lnu("{source: Prometheus, prometheus: {query: 'instance:node_cpu:rate:sum'}}"),
                 "profiles[0].pluginConfig[0].args.thresholds: must name the single resource MetricResource");
  expect_refused(lnu("{source: Prometheus}"), at + ".prometheus.query: is required");
  expect_refused(lnu("{source: KubernetesMetrics, metricsServer: true}"), at + ": set source KubernetesMetrics or metricsServer");
  expect_refused(lnu("{source: KubernetesMetrics, prometheus: {query: q}}"), at + ".prometheus: is not allowed");
  expect_refused(lnu("{metricsServer: true}"), at + ": reads metrics.k8s.io, which the policy does not enable");
  expect_refused(lnu("{source: Other}"), at + ".source");
  expect_refused(lnu("{sorce: Prometheus}"), at + ".sorce: unknown field");
}

// One balance plugin with these args (flow style), enabled in a profile.
std::string balance_with(const std::string& plugin, const std::string& args) {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n  - name: " +
         plugin + "\n    args: " + args + "\n  plugins:\n    balance:\n      enabled: [" + plugin + "]\n";
}

// nodeutilization's validation_test.go (ValidateLowNodeUtilizationArgs), row by row.
TEST(PolicyUpstream, LowNodeUtilizationValidation) {
  auto lnu_args = [](const std::string& thresholds, const std::string& targets) {
    return balance_with("LowNodeUtilization", "{thresholds: " + thresholds + ", targetThresholds: " + targets + "}");
  };
  const std::string at = "profiles[0].pluginConfig[0].args.";
  expect_refused(lnu_args("{cpu: 20, memory: 120}", "{cpu: 80, memory: 80}"), at + "thresholds.memory");
  // upstream's "configured different resources": one problem naming each difference.
  expect_refused(lnu_args("{cpu: 20, memory: 20}", "{cpu: 80, memory: 80, pods: 80}"),
                 at + "targetThresholds: names other resources than thresholds (has pods, which thresholds lacks)");
  expect_refused(lnu_args("{cpu: 20, memory: 20}", "{cpu: 80, pods: 80}"),
                 at + "targetThresholds: names other resources than thresholds (has no memory; has pods, which thresholds lacks)");
  expect_refused(lnu_args("{cpu: 90, memory: 20}", "{cpu: 80, memory: 80}"), at + "thresholds.cpu: is above");
  expect_refused(lnu_args("{cpu: 20, memory: 20, example.com/foo: 20}", "{cpu: 80, memory: 80}"),
                 at + "targetThresholds: names other resources than thresholds (has no example.com/foo)");
  expect_refused(lnu_args("{cpu: 20, memory: 20}", "{cpu: 80, memory: 80, example.com/foo: 80}"),
                 at + "targetThresholds: names other resources than thresholds (has example.com/foo, which thresholds lacks)");
  expect_refused(lnu_args("{cpu: 20, memory: 20, example.com/foo: 20}", "{cpu: 80, memory: 80, example.com/bar: 80}"),
                 at + "targetThresholds: names other resources than thresholds (has no example.com/foo; has "
                      "example.com/bar, which thresholds lacks)");
  expect_refused(lnu_args("{cpu: 20, memory: 20, example.com/foo: 90}", "{cpu: 80, memory: 80, example.com/foo: 20}"),
                 at + "thresholds.example.com/foo: is above");
  EXPECT_TRUE(parse(lnu_args("{cpu: 20, memory: 20}", "{cpu: 80, memory: 80}")).ok());
  auto extended = parse(lnu_args("{cpu: 20, memory: 20, example.com/foo: 20}", "{cpu: 80, memory: 80, example.com/foo: 80}"));
  EXPECT_TRUE(extended.ok()) << extended.message();
  // With useDeviationThresholds a low span above the high one is allowed.
  EXPECT_TRUE(parse(balance_with("LowNodeUtilization",
                                 "{useDeviationThresholds: true, thresholds: {cpu: 30}, targetThresholds: {cpu: 10}}"))
                  .ok());
  expect_refused(balance_with("LowNodeUtilization", "{thresholds: {cpu: 20}, targetThresholds: {cpu: 80}, "
                                                    "evictableNamespaces: {include: [a]}}"),
                 at + "evictableNamespaces.include");
  EXPECT_TRUE(parse(balance_with("LowNodeUtilization", "{thresholds: {cpu: 20}, targetThresholds: {cpu: 80}, "
                                                       "evictableNamespaces: {exclude: [a]}, evictionLimits: {node: 3}}"))
                  .ok());
}

// ValidateHighNodeUtilizationArgs, row by row.
TEST(PolicyUpstream, HighNodeUtilizationValidation) {
  auto hnu = [](const std::string& args) { return balance_with("HighNodeUtilization", args); };
  const std::string at = "profiles[0].pluginConfig[0].args.";
  EXPECT_TRUE(parse(hnu("{thresholds: {cpu: 80, memory: 90}, evictionModes: [OnlyThresholdingResources]}")).ok());
  auto extended = parse(hnu("{thresholds: {cpu: 85, example.com/foo: 95}, evictionModes: [OnlyThresholdingResources]}"));
  EXPECT_TRUE(extended.ok()) << extended.message();
  EXPECT_FALSE(parse(hnu("{thresholds: {}}")).ok());
  expect_refused(hnu("{thresholds: {cpu: -1}}"), at + "thresholds.cpu");
  expect_refused(hnu("{thresholds: {memory: 101}}"), at + "thresholds.memory");
  expect_refused(hnu("{thresholds: {cpu: 50, memory: 150}}"), at + "thresholds.memory");
  EXPECT_TRUE(parse(hnu("{thresholds: {cpu: 80}, evictableNamespaces: {exclude: [ns1, ns2]}}")).ok());
  EXPECT_FALSE(parse(hnu("{thresholds: {cpu: 80}, evictableNamespaces: {include: [ns1]}}")).ok());
  expect_refused(hnu("{thresholds: {cpu: 80}, evictionModes: [InvalidMode]}"), at + "evictionModes");
  EXPECT_TRUE(parse(hnu("{thresholds: {cpu: 80}, evictionModes: []}")).ok());
  EXPECT_TRUE(parse(hnu("{thresholds: {cpu: 80}}")).ok());
}

// A policy with these top-level lines and one profile whose DefaultEvictor has `evictor`
// (block style, indented 8) and that enables RemovePodsHavingTooManyRestarts.
std::string with_evictor(const std::string& top, const std::string& evictor) {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n" + top +
         "profiles:\n  - name: ProfileName\n    pluginConfig:\n    - name: DefaultEvictor\n      args:\n" + evictor +
         "    - name: RemovePodsHavingTooManyRestarts\n      args:\n        podRestartThreshold: 3\n"
         "    plugins:\n      deschedule:\n        enabled: [RemovePodsHavingTooManyRestarts]\n";
}

// policyconfig_test.go (TestV1alpha1ToV1alpha2 / TestValidateDeschedulerConfiguration): the
// policy-level refusals, each row as a fact.
TEST(PolicyUpstream, PolicyConfigValidation) {
  EXPECT_FALSE(parse(with_evictor("", "        priorityThreshold:\n          value: 2000000001\n")).ok());
  EXPECT_TRUE(parse(with_evictor("", "        priorityThreshold:\n          value: 2000000000\n")).ok());
  const std::string prom = "metricsProviders:\n- source: Prometheus\n  prometheus:\n";
  EXPECT_FALSE(parse(with_evictor("metricsProviders:\n- source: KubernetesMetrics\n- source: KubernetesMetrics\n", "        nodeFit: true\n")).ok());
  EXPECT_FALSE(parse(with_evictor("metricsCollector:\n  enabled: true\nmetricsProviders:\n- source: KubernetesMetrics\n",
                                  "        nodeFit: true\n"))
                   .ok());
  EXPECT_FALSE(parse(with_evictor(prom + "    url: ''\n", "        nodeFit: true\n")).ok());
  EXPECT_FALSE(parse(with_evictor(prom + "    url: http://example.com:-80\n", "        nodeFit: true\n")).ok());
  EXPECT_FALSE(parse(with_evictor(prom + "    url: https://example.com:80\n    authToken: {}\n", "        nodeFit: true\n")).ok());
  for (const char* ref : {"{}", "{name: s}", "{namespace: ns}"})
    EXPECT_FALSE(parse(with_evictor(prom + "    url: https://example.com:80\n    authToken:\n      secretReference: " + ref + "\n",
                                    "        nodeFit: true\n"))
                     .ok())
        << ref;
  auto valid = parse(with_evictor(prom + "    url: https://example.com:80\n    authToken:\n      secretReference: "
                                         "{namespace: ns, name: s}\n",
                                  "        nodeFit: true\n"));
  EXPECT_TRUE(valid.ok()) << valid.message();
  // A threshold named by a class above system-cluster-critical is refused when resolved.
  Cluster none;
  DeschedulerState state;
  Plan plan;
  EvictorArgs node_critical;
  node_critical.priority_threshold.name = "system-node-critical";
  auto refused = framework::DefaultEvictor::create(node_critical, none, state, {}, plan);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("can't be greater than 2000000000"), std::string::npos) << refused.message();
  EvictorArgs cluster_critical;
  cluster_critical.priority_threshold.name = "system-cluster-critical";
  EXPECT_TRUE(framework::DefaultEvictor::create(cluster_critical, none, state, {}, plan).ok());
  // The extension point under upstream's JSON tag, and under its documented spelling.
  for (const char* point : {"preevictionfilter", "preEvictionFilter"}) {
    auto p = parse(with_evictor("", "        nodeFit: true\n") + "      " + point + ":\n        enabled: [DefaultEvictor]\n");
    EXPECT_TRUE(p.ok()) << point << ": " << p.message();
  }
  // Deprecated evictor flags beside podProtections, and protections in the wrong list.
  EXPECT_FALSE(parse(with_evictor("", "        evictSystemCriticalPods: true\n        podProtections:\n          "
                                      "extraEnabled: [PodsWithPVC]\n"))
                   .ok());
  EXPECT_FALSE(parse(with_evictor("", "        podProtections:\n          defaultDisabled: [InvalidProtection]\n")).ok());
  EXPECT_FALSE(parse(with_evictor("", "        podProtections:\n          extraEnabled: [InvalidProtection]\n")).ok());
  EXPECT_FALSE(parse(with_evictor("", "        podProtections:\n          defaultDisabled: [PodsWithPVC]\n")).ok());
  EXPECT_FALSE(parse(with_evictor("", "        podProtections:\n          extraEnabled: [DaemonSetPods]\n")).ok());
}

// A profile enabling only the evictor (filter and preEvictionFilter) with these
// DefaultEvictor args (block style, indented 8).
std::string evictor_only(const std::string& evictor) {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n  - name: ProfileName\n"
         "    pluginConfig:\n    - name: DefaultEvictor\n      args:\n" + evictor +
         "    plugins:\n      filter:\n        enabled: [DefaultEvictor]\n      preEvictionFilter:\n"
         "        enabled: [DefaultEvictor]\n";
}

// policyconfig_test.go TestDecodeVersionedPolicy and TestDecodeDefaults, row by row.
TEST(PolicyUpstream, PolicyConfigDecode) {
  const std::string flags = "        evictSystemCriticalPods: true\n        evictFailedBarePods: true\n"
                            "        evictLocalStoragePods: true\n        evictDaemonSetPods: true\n        nodeFit: true\n";
  // v1alpha2 to internal: the evictor's flags and the enabled plugin with its args.
  auto v1alpha2 = parse(with_evictor("", flags));
  ASSERT_TRUE(v1alpha2.ok()) << v1alpha2.message();
  EXPECT_TRUE(v1alpha2->profiles[0].evictor.evict_system_critical_pods && v1alpha2->profiles[0].evictor.evict_failed_bare_pods &&
              v1alpha2->profiles[0].evictor.evict_local_storage_pods && v1alpha2->profiles[0].evictor.evict_daemonset_pods &&
              v1alpha2->profiles[0].evictor.node_fit);
  ASSERT_EQ(v1alpha2->profiles[0].strategies.size(), 1u);
  EXPECT_EQ(v1alpha2->profiles[0].strategies[0].name, "RemovePodsHavingTooManyRestarts");
  // A plugin configured but not enabled is accepted (its args checked) and runs nowhere.
  auto configured = parse(with_evictor("", flags + "    - name: RemoveFailedPods\n"));
  ASSERT_TRUE(configured.ok()) << configured.message();
  EXPECT_EQ(configured->profiles[0].strategies.size(), 1u);
  // Profiles that enable only the evictor are valid: their args are read and checked.
  auto disabled = parse(evictor_only("        podProtections:\n          defaultDisabled: [PodsWithLocalStorage, "
                                     "DaemonSetPods]\n        priorityThreshold:\n          value: 2000000000\n"
                                     "        nodeFit: true\n"));
  ASSERT_TRUE(disabled.ok()) << disabled.message();
  auto extra = parse(evictor_only("        podProtections:\n          extraEnabled: [PodsWithPVC, PodsWithoutPDB]\n"));
  ASSERT_TRUE(extra.ok()) << extra.message();
  auto both = parse(evictor_only("        podProtections:\n          extraEnabled: [PodsWithPVC, PodsWithoutPDB]\n"
                                 "          defaultDisabled: [PodsWithLocalStorage, DaemonSetPods]\n"));
  ASSERT_TRUE(both.ok()) << both.message();
  const std::string at = "profiles[0].pluginConfig[0].args.podProtections";
  expect_refused(evictor_only("        evictSystemCriticalPods: true\n        podProtections:\n          extraEnabled: "
                              "[PodsWithPVC]\n          defaultDisabled: [DaemonSetPods]\n"),
                 at + ": cannot be used with the deprecated fields");
  expect_refused(evictor_only("        podProtections:\n          defaultDisabled: [InvalidProtection]\n"),
                 at + ".defaultDisabled[0]: 'InvalidProtection' is not one of");
  expect_refused(evictor_only("        podProtections:\n          extraEnabled: [InvalidProtection]\n"),
                 at + ".extraEnabled[0]: 'InvalidProtection' is not one of");
  expect_refused(evictor_only("        podProtections:\n          defaultDisabled: [PodsWithPVC]\n"),
                 at + ".defaultDisabled[0]: 'PodsWithPVC' is not one of");
  expect_refused(evictor_only("        podProtections:\n          extraEnabled: [DaemonSetPods]\n"),
                 at + ".extraEnabled[0]: 'DaemonSetPods' is not one of");
}

// Upstream runs a policy without profiles (absent or empty): nothing is evicted. A
// `profiles` that is not a list is refused.
TEST(PolicyUpstream, NoProfilesIsAValidPolicyThatEvictsNothing) {
  for (const std::string& profiles : {std::string(""), std::string("profiles: []\n"), std::string("profiles: null\n")}) {
    auto p = parse("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nmaxNoOfPodsToEvictTotal: 5\n" + profiles);
    ASSERT_TRUE(p.ok()) << profiles << p.message();
    EXPECT_TRUE(p->profiles.empty());
    EXPECT_EQ(p->max_total, 5);
    ASSERT_EQ(p->warnings.size(), 1u);
    EXPECT_NE(p->warnings[0].find("nothing is evicted"), std::string::npos) << p->warnings[0];
  }
  expect_refused("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles: {name: p}\n",
                 "profiles: must be a list");
}

// TestValidateDeschedulerConfiguration "multiple errors": each profile's args are checked
// (weft reports the first).
// policyconfig_test.go's row: both profiles' problems are reported together, in order.
TEST(PolicyUpstream, EveryProfilesArgsAreValidated) {
  auto p = parse(R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: RemoveFailedPods
  pluginConfig:
  - name: RemoveFailedPods
    args: {namespaces: {include: [test1], exclude: [test1]}}
  plugins:
    deschedule: {enabled: [RemoveFailedPods]}
- name: RemovePodsViolatingTopologySpreadConstraint
  pluginConfig:
  - name: RemovePodsViolatingTopologySpreadConstraint
    args: {namespaces: {include: [test1], exclude: [test1]}}
  plugins:
    balance: {enabled: [RemovePodsViolatingTopologySpreadConstraint]}
)");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.message(), "policy.yaml: profiles[0].pluginConfig[0].args.namespaces: set include or exclude, not both\n"
                         "policy.yaml: profiles[1].pluginConfig[0].args.namespaces: set include or exclude, not both");
}

// As upstream, each profile has its own DefaultEvictor: profiles whose args differ (or one
// without args beside one with) are accepted, each keeping its own.
TEST(PolicyUpstream, EachProfileKeepsItsOwnEvictorArgs) {
  auto p = parse(R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: a
  pluginConfig:
  - {name: DefaultEvictor, args: {nodeFit: true, priorityThreshold: {value: 100}}}
  - {name: LowNodeUtilization, args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}}
  plugins:
    balance: {enabled: [LowNodeUtilization]}
- name: b
  plugins:
    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}
)");
  ASSERT_TRUE(p.ok()) << p.message();
  ASSERT_EQ(p->profiles.size(), 2u);
  EXPECT_EQ(p->profiles[0].name, "a");
  EXPECT_TRUE(p->profiles[0].evictor.node_fit);
  EXPECT_EQ(p->profiles[0].evictor.priority_threshold.value, std::optional<int32_t>(100));
  EXPECT_TRUE(p->profiles[0].load_aware_enabled);
  EXPECT_EQ(p->profiles[1].name, "b");
  EXPECT_FALSE(p->profiles[1].evictor.node_fit);   // upstream's default
  EXPECT_FALSE(p->profiles[1].evictor.priority_threshold.value);
  EXPECT_FALSE(p->profiles[1].load_aware_enabled);
  ASSERT_EQ(p->profiles[1].strategies.size(), 1u);
  EXPECT_EQ(p->profiles[1].strategies[0].name, "RemovePodsViolatingNodeTaints");
}

TEST(PolicyUpstream, StrategyPluginsAtTheirExtensionPoints) {
  auto p = parse(R"(apiVersion: "descheduler/v1alpha2"
kind: "DeschedulerPolicy"
profiles:
  - name: ProfileName
    pluginConfig:
    - name: "RemoveDuplicates"
      args:
        excludeOwnerKinds:
          - "ReplicaSet"
    plugins:
      balance:
        enabled:
          - "RemoveDuplicates"
)");
  ASSERT_TRUE(p.ok()) << p.message();
  ASSERT_EQ(p->profiles[0].strategies.size(), 1u);
  EXPECT_EQ(p->profiles[0].name, "ProfileName");
  EXPECT_EQ(p->profiles[0].strategies[0].name, "RemoveDuplicates");
  // A Balance plugin under deschedule (and the reverse) is refused.
  expect_refused(with_top("").replace(with_top("").find("RemovePodsViolatingNodeTaints"), 29, "RemoveDuplicates"),
                 "plugin RemoveDuplicates is a Balance plugin, not a Deschedule one");
  // An unknown plugin is refused, naming it.
  expect_refused(with_top("").replace(with_top("").find("RemovePodsViolatingNodeTaints"), 29, "MyPlugin"),
                 "plugin MyPlugin is not implemented");
  // Args are validated when the plugin is enabled without pluginConfig (upstream's defaults).
  expect_refused(with_top("").replace(with_top("").find("RemovePodsViolatingNodeTaints"), 29,
                                      "RemovePodsHavingTooManyRestarts"),
                 "podRestartThreshold: must be at least 1");
}

}  // namespace
}  // namespace weft::descheduler
