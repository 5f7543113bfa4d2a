// Every upstream plugin's args, field by field, against the Kubernetes descheduler's own
// types.go / defaults.go / validation.go and their test tables (defaults_test.go,
// validation_test.go), as facts: what is accepted, what each absent field becomes, and what is
// refused with the path named.
#include <gtest/gtest.h>

#include "descheduler/core/plugins/HighNodeUtilization/high_node_utilization.h"
#include "descheduler/core/plugins/PodLifeTime/pod_lifetime.h"
#include "descheduler/core/plugins/RemoveDuplicates/remove_duplicates.h"
#include "descheduler/core/plugins/RemoveFailedPods/remove_failed_pods.h"
#include "descheduler/core/plugins/RemovePodsHavingTooManyRestarts/too_many_restarts.h"
#include "descheduler/core/plugins/RemovePodsViolatingInterPodAntiAffinity/inter_pod_anti_affinity.h"
#include "descheduler/core/plugins/RemovePodsViolatingNodeAffinity/node_affinity.h"
#include "descheduler/core/plugins/RemovePodsViolatingNodeTaints/node_taints.h"
#include "descheduler/core/plugins/RemovePodsViolatingTopologySpreadConstraint/topology_spread.h"
#include "descheduler/core/policy.h"
#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

// The refusal names `path` (under the plugin's "args") and is one line.
template <class R>
void expect_refused(const R& r, const std::string& path) {
  ASSERT_FALSE(r.ok()) << path << " was accepted";
  EXPECT_NE(r.message().find("policy.yaml: " + path), std::string::npos) << r.message();
  EXPECT_EQ(r.message().find('\n'), std::string::npos) << r.message();
}

// The refusal holds exactly these problems, one line each, in this order (upstream's
// aggregated validation errors).
template <class R>
void expect_problems(const R& r, const std::vector<std::string>& lines) {
  ASSERT_FALSE(r.ok()) << "accepted";
  std::string want;
  for (const auto& line : lines) want += (want.empty() ? "" : "\n") + ("policy.yaml: " + line);
  EXPECT_EQ(r.message(), want);
}

template <class Parse>
auto parse_with(Parse parse, const char* text) {
  return parse(ctx(), json::parse(text), "args");
}

// upstream's "invalid label selector args" row: a requirement without key, In without values.
constexpr const char* kBadSelector = R"({"labelSelector": {"matchExpressions": [{"operator": "In"}]}})";

// Both problems of that requirement, as labels.NewRequirement aggregates them.
template <class R>
void expect_bad_selector(const R& r) {
  expect_problems(r, {"args.labelSelector: selector.matchExpressions[0].key: '' is not a valid label key",
                      "args.labelSelector: selector.matchExpressions[0].values: In/NotIn need at least one value"});
}
constexpr const char* kBadValues = R"({"labelSelector": {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}})";
// metav1.LabelSelector is a mapping; its string form does not decode into it.
constexpr const char* kStringSelector = R"({"labelSelector": "app=web"})";

TEST(UpstreamArgs, RemoveFailedPodsLabelSelector) {
  namespace rfp = plugins::remove_failed_pods;
  expect_bad_selector(parse_with(rfp::parse_args, kBadSelector));
  expect_refused(parse_with(rfp::parse_args, kBadValues), "args.labelSelector");
  expect_refused(parse_with(rfp::parse_args, kStringSelector), "args.labelSelector");
  auto ok = parse_with(rfp::parse_args, R"({"labelSelector": {"matchLabels": {"app": "web"}}})");
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(ok->min_pod_lifetime_seconds, std::optional<int64_t>(3600));   // defaults_test.go
}

TEST(UpstreamArgs, TooManyRestartsRows) {
  namespace tmr = plugins::too_many_restarts;
  expect_refused(parse_with(tmr::parse_args, R"({"podRestartThreshold": -1})"), "args.podRestartThreshold");
  expect_bad_selector(
      parse_with(tmr::parse_args, R"({"podRestartThreshold": 1, "labelSelector": {"matchExpressions": [{"operator": "In"}]}})"));
  expect_refused(parse_with(tmr::parse_args, R"({"podRestartThreshold": 1, "states": ["Failed"]})"), "args.states[0]");
  EXPECT_TRUE(parse_with(tmr::parse_args, R"({"podRestartThreshold": 1, "states": ["CrashLoopBackOff"]})").ok());
  // "invalid PodRestartThreshold arg and invalid States arg": both, as upstream aggregates them.
  expect_problems(parse_with(tmr::parse_args, R"({"podRestartThreshold": 0, "states": ["Failed"]})"),
                  {"args.podRestartThreshold: must be at least 1 (upstream has no default)",
                   "args.states[0]: must be Running or CrashLoopBackOff"});
}

TEST(UpstreamArgs, NodeTaintsRows) {
  namespace nt = plugins::node_taints;
  EXPECT_TRUE(parse_with(nt::parse_args, R"({"includedTaints": ["key1=value1", "key2"]})").ok());
  expect_bad_selector(parse_with(nt::parse_args, kBadSelector));
  // Every problem of the args at once: unknown fields, both namespace lists, both taint lists.
  expect_problems(parse_with(nt::parse_args, R"({"includedTaints": ["a"], "excludedTaints": ["b"], "taints": [],
                                                 "namespace": "x", "namespaces": {"include": ["a"], "exclude": ["b"]}})"),
                  {"args.namespace: unknown field", "args.taints: unknown field",
                   "args.namespaces: set include or exclude, not both",
                   "args: set includedTaints or excludedTaints, not both"});
}

// LabelSelectorAsSelector refuses a key that is not a label key or a value that is not a label value.
TEST(UpstreamArgs, LabelSelectorKeysAndValuesAreLabels) {
  namespace rfp = plugins::remove_failed_pods;
  expect_refused(parse_with(rfp::parse_args, R"({"labelSelector": {"matchLabels": {"bad key": "x"}}})"),
                 "args.labelSelector: selector.matchLabels.bad key: 'bad key' is not a valid label key");
  expect_refused(parse_with(rfp::parse_args, R"({"labelSelector": {"matchExpressions": [{"key": "-x", "operator": "Exists"}]}})"),
                 "args.labelSelector: selector.matchExpressions[0].key: '-x' is not a valid label key");
  EXPECT_TRUE(parse_with(rfp::parse_args, R"({"labelSelector": {"matchLabels": {"example.com/app.name": "x"}}})").ok());
  // ... and a value that is not a label value.
  expect_refused(parse_with(rfp::parse_args, R"({"labelSelector": {"matchLabels": {"app": "web server"}}})"),
                 "args.labelSelector: selector.matchLabels.app: 'web server' (of app) is not a valid label value");
  expect_refused(parse_with(rfp::parse_args, R"({"labelSelector": {"matchExpressions": [{"key": "tier", "operator": "In",
                                                 "values": ["front", "-back"]}]}})"),
                 "args.labelSelector: selector.matchExpressions[0].values[1]: '-back' (of tier) is not a valid label value");
  EXPECT_TRUE(parse_with(rfp::parse_args, R"({"labelSelector": {"matchLabels": {"app": "", "tier": "a.b_c-d"}}})").ok());
}

// LabelSelectorAsSelector: requirement by requirement (matchLabels, then matchExpressions
// in order), the first with a problem is refused with every problem labels.NewRequirement
// finds in it (its key, its number of values, each value); later requirements are not read.
TEST(UpstreamArgs, LabelSelectorNamesEveryProblemOfItsFirstBadRequirement) {
  namespace rfp = plugins::remove_failed_pods;
  expect_problems(parse_with(rfp::parse_args, R"({"labelSelector": {"matchExpressions": [
                      {"key": "ok", "operator": "Exists"},
                      {"key": "-x", "operator": "NotIn", "values": ["fine", "-a", "b c"]},
                      {"key": "-y", "operator": "Exists"}]}})"),
                  {"args.labelSelector: selector.matchExpressions[1].key: '-x' is not a valid label key",
                   "args.labelSelector: selector.matchExpressions[1].values[1]: '-a' (of -x) is not a valid label value",
                   "args.labelSelector: selector.matchExpressions[1].values[2]: 'b c' (of -x) is not a valid label value"});
  expect_problems(parse_with(rfp::parse_args, R"({"labelSelector": {"matchExpressions": [
                      {"key": "-x", "operator": "Exists", "values": ["-v"]}]}})"),
                  {"args.labelSelector: selector.matchExpressions[0].key: '-x' is not a valid label key",
                   "args.labelSelector: selector.matchExpressions[0].values: Exists/DoesNotExist take no values",
                   "args.labelSelector: selector.matchExpressions[0].values[0]: '-v' (of -x) is not a valid label value"});
  // matchLabels come first: their requirement is the one refused.
  expect_problems(parse_with(rfp::parse_args, R"({"labelSelector": {"matchLabels": {"bad key": "web server"},
                                                  "matchExpressions": [{"key": "-y", "operator": "Exists"}]}})"),
                  {"args.labelSelector: selector.matchLabels.bad key: 'bad key' is not a valid label key",
                   "args.labelSelector: selector.matchLabels.bad key: 'web server' (of bad key) is not a valid label value"});
  // An operator LabelSelectorAsSelector does not know is refused alone, before its key is read.
  auto op = parse_with(rfp::parse_args, R"({"labelSelector": {"matchExpressions": [{"key": "-x", "operator": "Gt", "values": []}]}})");
  ASSERT_FALSE(op.ok());
  EXPECT_NE(op.message().find("selector.matchExpressions[0].operator"), std::string::npos) << op.message();
  EXPECT_EQ(op.message().find('\n'), std::string::npos) << op.message();
}

// The DefaultEvictor's selectors and the policy's nodeSelector string are checked alike.
TEST(UpstreamArgs, PolicySelectorsNameEveryProblemOfARequirement) {
  auto parsed = parse_policy_text(evictor_policy_text(
      R"({namespaceLabelSelector: {matchExpressions: [{key: "-x", operator: In, values: []}]}, nodeSelector: "-a=-b"})"),
      "policy.yaml");
  ASSERT_FALSE(parsed.ok());
  for (const char* line : {"namespaceLabelSelector: selector.matchExpressions[0].key: '-x' is not a valid label key",
                           "namespaceLabelSelector: selector.matchExpressions[0].values: In/NotIn need at least one value",
                           "nodeSelector: selector term '-a=-b': '-a' is not a valid label key",
                           "nodeSelector: selector term '-a=-b': '-b' (of -a) is not a valid label value"})
    EXPECT_NE(parsed.message().find(line), std::string::npos) << line << "\n" << parsed.message();
}

TEST(UpstreamArgs, TopologySpreadDefaults) {
  namespace ts = plugins::topology_spread;
  auto d = parse_with(ts::parse_args, "{}");
  ASSERT_TRUE(d.ok()) << d.message();
  EXPECT_TRUE(d->hard);
  EXPECT_FALSE(d->soft);
  EXPECT_TRUE(d->topology_balance_node_fit);
  auto both = parse_with(ts::parse_args, R"({"constraints": ["ScheduleAnyway"], "topologyBalanceNodeFit": false})");
  ASSERT_TRUE(both.ok()) << both.message();
  EXPECT_FALSE(both->hard);
  EXPECT_TRUE(both->soft);
  EXPECT_FALSE(both->topology_balance_node_fit);
  expect_refused(parse_with(ts::parse_args, R"({"constraints": ["Sometimes"]})"), "args.constraints[0]");
  expect_bad_selector(parse_with(ts::parse_args, kBadSelector));
}

TEST(UpstreamArgs, PodLifeTimeRows) {
  namespace plt = plugins::pod_lifetime;
  EXPECT_TRUE(parse_with(plt::parse_args, R"({"maxPodLifeTimeSeconds": 1, "states": ["Succeeded", "Failed"]})").ok());
  expect_refused(parse_with(plt::parse_args, R"({"maxPodLifeTimeSeconds": 1, "states": ["InvalidState"]})"),
                 "args.states[0]");
  expect_refused(parse_with(plt::parse_args, R"({"maxPodLifeTimeSeconds": -1})"), "args.maxPodLifeTimeSeconds");
  // "nil MaxPodLifeTimeSeconds arg and invalid pod state arg": a state given is a criterion,
  // so only the state is wrong.
  expect_problems(parse_with(plt::parse_args, R"({"states": ["InvalidState"]})"),
                  {"args.states[0]: 'InvalidState' is not a pod phase, pod status reason or container state reason "
                   "upstream knows"});
  expect_refused(parse_with(plt::parse_args, "{}"), "args: set at least one of");
  // A condition with nothing set is a problem of its own, beside the others.
  expect_problems(parse_with(plt::parse_args, R"({"conditions": [{}, {"type": "Ready"}, {}], "states": ["Bad"],
                                                  "namespaces": {"include": ["a"], "exclude": ["b"]}})"),
                  {"args.namespaces: set include or exclude, not both",
                   "args.states[0]: 'Bad' is not a pod phase, pod status reason or container state reason upstream knows",
                   "args.conditions[0]: set at least one of type, status, reason or minTimeSinceLastTransitionSeconds",
                   "args.conditions[2]: set at least one of type, status, reason or minTimeSinceLastTransitionSeconds"});
  expect_bad_selector(
      parse_with(plt::parse_args, R"({"maxPodLifeTimeSeconds": 1, "labelSelector": {"matchExpressions": [{"operator": "In"}]}})"));
}

TEST(UpstreamArgs, NodeAffinityAndAntiAffinityRows) {
  namespace na = plugins::node_affinity;
  namespace ipa = plugins::inter_pod_anti_affinity;
  expect_refused(parse_with(na::parse_args, R"({"nodeAffinityType": []})"), "args.nodeAffinityType");
  expect_refused(parse_with(na::parse_args,
                            R"({"nodeAffinityType": ["requiredDuringSchedulingIgnoredDuringExecution"],
                                "namespaces": {"include": ["a"], "exclude": ["b"]}})"),
                 "args.namespaces");
  // "nil NodeAffinityType args and invalid namespaces args": both, as upstream aggregates them.
  expect_problems(parse_with(na::parse_args, R"({"nodeAffinityType": [], "namespaces": {"include": ["default"],
                                                 "exclude": ["kube-system"]}})"),
                  {"args.namespaces: set include or exclude, not both",
                   "args.nodeAffinityType: is required (requiredDuringSchedulingIgnoredDuringExecution)"});
  expect_bad_selector(parse_with(ipa::parse_args, kBadSelector));
  expect_refused(parse_with(ipa::parse_args, kStringSelector), "args.labelSelector");
}

// Beside ValidateHighNodeUtilizationArgs' rows (policy_upstream_test.cc).
TEST(UpstreamArgs, HighNodeUtilizationNumberOfNodes) {
  namespace hnu = plugins::high_node_utilization;
  // numberOfNodes is a Go int with no validation: a negative one acts as 0 (no node count is at or below it).
  auto negative = parse_with(hnu::parse_args, R"({"thresholds": {"cpu": 20}, "numberOfNodes": -1})");
  ASSERT_TRUE(negative.ok()) << negative.message();
  EXPECT_EQ(negative->number_of_nodes, 0);
  // Every threshold out of range, an unknown mode and an include list, all at once.
  expect_problems(parse_with(hnu::parse_args, R"({"thresholds": {"cpu": -1, "memory": 101, "pods": 50},
                                                  "evictionModes": ["InvalidMode"], "evictableNamespaces": {"include": ["a"]}})"),
                  {"args.thresholds.cpu: must be a percentage 0..100", "args.thresholds.memory: must be a percentage 0..100",
                   "args.evictionModes[0]: 'InvalidMode' is not OnlyThresholdingResources",
                   "args.evictableNamespaces.include: HighNodeUtilization takes only exclude (as upstream)"});
}

// LowNodeUtilization's args are read by the policy (they drive the planner).
Result<Policy> low_node_utilization(const std::string& args) {
  return parse_policy_text("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
                           "  pluginConfig:\n  - name: LowNodeUtilization\n    args: " + args +
                           "\n  plugins: {balance: {enabled: [LowNodeUtilization]}}\n",
                           "policy.yaml");
}

// Beside ValidateLowNodeUtilizationArgs' rows (policy_upstream_test.cc, prometheus_utilization_test.cc).
TEST(UpstreamArgs, LowNodeUtilizationCounts) {
  const std::string at = "profiles[0].pluginConfig[0].args";
  // numberOfNodes is a Go int with no validation: a negative one acts as 0.
  auto negative = low_node_utilization(R"({thresholds: {cpu: 20}, targetThresholds: {cpu: 80}, numberOfNodes: -1})");
  ASSERT_TRUE(negative.ok()) << negative.message();
  EXPECT_EQ(negative->profiles[0].load_aware.number_of_nodes, 0);
  // evictionLimits.node is a *uint: 0 is a limit (no eviction per node), a negative one does not decode.
  auto zero = low_node_utilization(R"({thresholds: {cpu: 20}, targetThresholds: {cpu: 80}, evictionLimits: {node: 0}})");
  ASSERT_TRUE(zero.ok()) << zero.message();
  EXPECT_EQ(zero->profiles[0].load_aware.eviction_limit_node, std::optional<int>(0));
  EXPECT_FALSE(zero->max_per_node);   // the plugin's own count, not the policy's
  expect_refused(low_node_utilization(R"({thresholds: {cpu: 20}, targetThresholds: {cpu: 80}, evictionLimits: {node: -1}})"),
                 at + ".evictionLimits.node");
}

}  // namespace
}  // namespace weft::descheduler::test
