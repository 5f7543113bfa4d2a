// A policy with several mistakes is refused with all of them at once, as upstream
// aggregates its validation errors (validateDeschedulerConfiguration, each plugin's
// Validate*Args): one line per problem, each naming its place (top level, profile, plugin,
// field), in the order of the policy.
#include <gtest/gtest.h>

#include <sstream>

#include "descheduler/core/policy.h"

namespace weft::descheduler {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// A policy of one profile named p with this body (its pluginConfig and plugins, indented 2).
Result<Policy> one_profile(const std::string& body) {
  return parse_policy_text("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n" + body,
                           "policy.yaml");
}

constexpr const char* kSeveralMistakes = R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
nodeSelector: {pool: gpu}
maxNoOfPodsToEvictTotal: -1
dryRun: true
metricsProviders:
- source: KubernetesMetrics
- source: KubernetesMetrics
- source: Prometheus
  prometheus: {url: '', authToken: {secretReference: {name: token}}}
profiles:
- name: first
  pluginConfig:
  - name: DefaultEvictor
    args: {noEvictionPolicy: Sometimes, minPodAge: 300}
  - name: PodLifeTime
    args: {}
  - name: RemovePodsViolatingEverything
  plugins:
    deschedule:
      enabled: [PodLifeTime, RemovePodsHavingTooManyRestarts]
- name: second
  pluginConfig:
  - name: RemovePodsHavingTooManyRestarts
    args: {podRestartThreshold: 0, states: [Failed]}
  - name: RemovePodsHavingTooManyRestarts
    args: {podRestartThreshold: 3}
  - name: LowNodeUtilization
    args: {thresholds: {cpu: 20, memory: 120}, targetThresholds: {cpu: 80}}
  plugins:
    deschedule:
      enabled: [RemovePodsHavingTooManyRestarts]
    balance:
      enabled: [LowNodeUtilization]
)";

TEST(PolicyProblems, EveryMistakeIsNamedInOneError) {
  auto p = parse_policy_text(kSeveralMistakes, "policy.yaml");
  ASSERT_FALSE(p.ok());
  const std::vector<std::string> want = {
      // The top level.
      "policy.yaml: dryRun: unknown field",
      "policy.yaml: nodeSelector: must be a label selector string such as \"pool=gpu,zone in (a,b)\" (its Go type is a "
      "string)",
      "policy.yaml: maxNoOfPodsToEvictTotal: must be a non-negative integer",
      "policy.yaml: metricsProviders[1].source: 'KubernetesMetrics' is already configured (each source once)",
      "policy.yaml: metricsProviders[2].prometheus.url: is required",
      "policy.yaml: metricsProviders[2].prometheus.authToken.secretReference: must set both namespace and name",
      // The first profile: its pluginConfig, then each enabled plugin's args, then its evictor's.
      "policy.yaml: profiles[0].pluginConfig[2].name: plugin RemovePodsViolatingEverything is not implemented by "
      "weft-descheduler",
      "policy.yaml: profiles[0].pluginConfig[1].args: set at least one of maxPodLifeTimeSeconds, states, conditions or "
      "exitCodes",
      "policy.yaml: profiles[0].pluginConfig(RemovePodsHavingTooManyRestarts).podRestartThreshold: must be at least 1 "
      "(upstream has no default)",
      "policy.yaml: profiles[0].pluginConfig[0].args.minPodAge: must be a duration string",
      "policy.yaml: profiles[0].pluginConfig[0].args.noEvictionPolicy: 'Sometimes' is not Preferred or Mandatory",
      // The second profile.
      "policy.yaml: profiles[1].pluginConfig[1].name: RemovePodsHavingTooManyRestarts is configured twice in this "
      "profile (first at profiles[1].pluginConfig[0]); give each plugin one entry",
      "policy.yaml: profiles[1].pluginConfig[0].args.podRestartThreshold: must be at least 1 (upstream has no default)",
      "policy.yaml: profiles[1].pluginConfig[0].args.states[0]: must be Running or CrashLoopBackOff",
      "policy.yaml: profiles[1].pluginConfig[2].args.thresholds.memory: must be a percentage 0..100",
  };
  const std::vector<std::string> got = lines_of(p.message());
  ASSERT_EQ(got.size(), want.size()) << p.message();
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(got[i].rfind(want[i], 0), 0u) << "line " << i << ": " << got[i] << "\nwant: " << want[i];
}

TEST(PolicyProblems, OneMistakeIsOneLine) {
  auto p = one_profile("  pluginConfig:\n  - name: PodLifeTime\n    args: {maxPodLifeTimeSeconds: 60, states: [Gone]}\n"
                       "  plugins:\n    deschedule: {enabled: [PodLifeTime]}\n");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.message(), "policy.yaml: profiles[0].pluginConfig[0].args.states[0]: 'Gone' is not a pod phase, pod status "
                         "reason or container state reason upstream knows");
}

// Upstream runs the first pluginConfig entry of a name and ignores the rest; weft refuses
// the second so no args are silently dropped.
TEST(PolicyProblems, APluginConfiguredTwiceIsRefused) {
  auto p = one_profile("  pluginConfig:\n  - name: DefaultEvictor\n    args: {nodeFit: true}\n"
                       "  - name: DefaultEvictor\n    args: {nodeFit: false}\n"
                       "  plugins:\n    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}\n");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.message(), "policy.yaml: profiles[0].pluginConfig[1].name: DefaultEvictor is configured twice in this "
                         "profile (first at profiles[0].pluginConfig[0]); give each plugin one entry");
}

// As upstream, a pluginConfig entry's args are validated whether or not the plugin is
// enabled, and only plugins.<point>.enabled runs a plugin: LowNodeUtilization configured in
// a profile without plugins runs nothing.
TEST(PolicyProblems, BalanceArgsAreCheckedButRunOnlyWhenEnabled) {
  const std::string head = "  pluginConfig:\n  - name: LowNodeUtilization\n    args: ";
  auto bad = one_profile(head + "{thresholds: {cpu: 20}, targetThresholds: {cpu: 10}}\n"
                                "  - name: HighNodeUtilization\n    args: {thresholds: {cpu: 20}}\n"
                                "  plugins:\n    balance: {enabled: [HighNodeUtilization]}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("policy.yaml: profiles[0].pluginConfig[0].args.thresholds.cpu: is above targetThresholds.cpu"),
            std::string::npos)
      << bad.message();
  auto configured_only = one_profile(head + "{thresholds: {cpu: 20}, targetThresholds: {cpu: 80}}\n");
  ASSERT_TRUE(configured_only.ok()) << configured_only.message();
  EXPECT_FALSE(configured_only->profiles[0].load_aware_enabled);
  EXPECT_FALSE(configured_only->load_aware_enabled());
}

// A plugin at an extension point it does not implement is refused saying which it
// implements (upstream: "configures ... extension point of non-existing plugins").
TEST(PolicyProblems, PluginsAtTheWrongPointSayWhereTheyBelong) {
  auto p = one_profile("  plugins:\n    deschedule: {enabled: [LowNodeUtilization, DefaultEvictor]}\n"
                       "    filter: {enabled: [PodLifeTime]}\n    sort: {enabled: [Priority]}\n");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.message(),
            "policy.yaml: profiles[0].plugins.sort: weft-descheduler does not run this extension point (upstream's profile "
            "ignores it too): remove Priority\n"
            "policy.yaml: profiles[0].plugins.deschedule: plugin LowNodeUtilization is a Balance plugin, not a Deschedule one\n"
            "policy.yaml: profiles[0].plugins.deschedule: plugin DefaultEvictor is a Filter/PreEvictionFilter plugin, not a "
            "Deschedule one\n"
            "policy.yaml: profiles[0].plugins.filter: plugin PodLifeTime is a Deschedule plugin, not a Filter/PreEvictionFilter "
            "one");
}

// A profile's name is a string (its Go type); absent or empty, the profile is named by its place.
TEST(PolicyProblems, ProfileNameIsAString) {
  auto p = parse_policy_text("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: [a]\n"
                             "  plugins:\n    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}\n",
                             "policy.yaml");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.message(), "policy.yaml: profiles[0].name: must be a string");
  auto unnamed = parse_policy_text("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- plugins:\n"
                                   "    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}\n",
                                   "policy.yaml");
  ASSERT_TRUE(unnamed.ok()) << unnamed.message();
  EXPECT_EQ(unnamed->profiles[0].name, "profiles[0]");
}

}  // namespace
}  // namespace weft::descheduler
