// DefaultEvictor args: the Kubernetes descheduler's defaults_test.go, validation_test.go and
// the args tables of defaultevictor_test.go (the effective pod protections, the protected
// storage classes) as facts. Args are written as a policy writes them; weft accepts what
// upstream accepts and refuses what it refuses, naming the field.
#include <gtest/gtest.h>

#include <set>

#include "tests/descheduler/plugins/plugin_fixtures.h"

namespace weft::descheduler::test {
namespace {

Result<Policy> parse_args(const std::string& args) { return parse_policy_text(evictor_policy_text(args), "policy.yaml"); }

// The protections in force, by upstream's names.
std::set<std::string> protections(const EvictorArgs& a) {
  std::set<std::string> out;
  if (!a.evict_local_storage_pods) out.insert("PodsWithLocalStorage");
  if (!a.evict_daemonset_pods) out.insert("DaemonSetPods");
  if (!a.evict_system_critical_pods) out.insert("SystemCriticalPods");
  if (!a.evict_failed_bare_pods) out.insert("FailedBarePods");
  if (a.ignore_pvc_pods) out.insert("PodsWithPVC");
  if (a.ignore_pods_without_pdb) out.insert("PodsWithoutPDB");
  if (a.protect_resource_claims) out.insert("PodsWithResourceClaims");
  return out;
}

TEST(DefaultEvictorArgsUpstream, Defaults) {
  auto empty = parse_args("{}");
  ASSERT_TRUE(empty.ok()) << empty.message();
  const EvictorArgs& e = empty->profiles[0].evictor;
  EXPECT_EQ(protections(e), (std::set<std::string>{"PodsWithLocalStorage", "DaemonSetPods", "SystemCriticalPods",
                                                   "FailedBarePods"}));
  EXPECT_FALSE(e.node_fit);
  EXPECT_FALSE(e.label_selector);
  EXPECT_FALSE(e.priority_threshold.value);   // unset: system-cluster-critical when resolved
  EXPECT_TRUE(e.priority_threshold.name.empty());
  EXPECT_FALSE(e.node_selector);
  auto set = parse_args("{nodeSelector: NodeSelector, evictLocalStoragePods: true, evictDaemonSetPods: true, "
                        "evictSystemCriticalPods: true, ignorePvcPods: true, evictFailedBarePods: true, "
                        "priorityThreshold: {value: 800}, nodeFit: true, ignorePodsWithoutPDB: true}");
  ASSERT_TRUE(set.ok()) << set.message();
  EXPECT_EQ(protections(set->profiles[0].evictor), (std::set<std::string>{"PodsWithPVC", "PodsWithoutPDB"}));
  EXPECT_EQ(set->profiles[0].evictor.priority_threshold.value, std::optional<int32_t>(800));
  EXPECT_TRUE(set->profiles[0].evictor.node_fit);
  EXPECT_TRUE(set->profiles[0].evictor.node_selector);
}

TEST(DefaultEvictorArgsUpstream, Validation) {
  struct Row {
    const char* intent;
    const char* args;
    const char* refused;   // nullptr: accepted; else a part of the error
  };
  const std::vector<Row> rows = {
      {"priorityThreshold value and name", "{priorityThreshold: {value: 1, name: priority-name}}",
       "priorityThreshold: set value or name, not both"},
      {"an unknown noEvictionPolicy", "{noEvictionPolicy: invalid-no-eviction-policy}",
       "noEvictionPolicy: 'invalid-no-eviction-policy' is not Preferred or Mandatory"},
      {"empty podProtections lists", "{podProtections: {defaultDisabled: [], extraEnabled: []}}", nullptr},
      {"defaultDisabled and extraEnabled together",
       "{podProtections: {defaultDisabled: [DaemonSetPods, PodsWithLocalStorage], extraEnabled: [PodsWithPVC]}}", nullptr},
      {"extraEnabled alone", "{podProtections: {extraEnabled: [PodsWithPVC]}}", nullptr},
      {"a deprecated field with defaultDisabled",
       "{evictLocalStoragePods: true, podProtections: {defaultDisabled: [DaemonSetPods]}}",
       "podProtections: cannot be used with the deprecated fields"},
      {"a deprecated field with extraEnabled", "{evictDaemonSetPods: true, podProtections: {extraEnabled: [PodsWithPVC]}}",
       "podProtections: cannot be used with the deprecated fields"},
      {"a deprecated field set false beside podProtections",
       "{evictDaemonSetPods: false, podProtections: {extraEnabled: [PodsWithPVC]}}", nullptr},
      {"minReplicas 1 is accepted (and checks nothing)", "{minReplicas: 1}", nullptr},
      // metav1.LabelSelector fields: the mapping decodes, the string form does not.
      {"labelSelector as a mapping", "{labelSelector: {matchLabels: {app: web}}}", nullptr},
      {"labelSelector as a string", "{labelSelector: 'app=web'}", "labelSelector: must be a LabelSelector mapping"},
      {"namespaceLabelSelector as a string", "{namespaceLabelSelector: 'team=a'}",
       "namespaceLabelSelector: must be a LabelSelector mapping"},
      {"an unknown extraEnabled protection", "{podProtections: {extraEnabled: [InvalidPolicy]}}",
       "extraEnabled[0]: 'InvalidPolicy' is not one of PodsWithPVC, PodsWithoutPDB, PodsWithResourceClaims"},
      {"a misspelled extraEnabled protection", "{podProtections: {extraEnabled: [PodsWithPVCC]}}",
       "extraEnabled[0]: 'PodsWithPVCC' is not one of"},
      {"a default protection under extraEnabled", "{podProtections: {extraEnabled: [DaemonSetPods]}}",
       "extraEnabled[0]: 'DaemonSetPods' is not one of"},
      {"an unknown defaultDisabled protection", "{podProtections: {defaultDisabled: [InvalidPolicy]}}",
       "defaultDisabled[0]: 'InvalidPolicy' is not one of PodsWithLocalStorage, SystemCriticalPods, FailedBarePods, "
       "DaemonSetPods"},
      {"a misspelled defaultDisabled protection", "{podProtections: {defaultDisabled: [PodsWithLocalStorag]}}",
       "defaultDisabled[0]: 'PodsWithLocalStorag' is not one of"},
      {"an extra protection under defaultDisabled", "{podProtections: {defaultDisabled: [PodsWithPVC]}}",
       "defaultDisabled[0]: 'PodsWithPVC' is not one of"},
      {"extraEnabled twice", "{podProtections: {extraEnabled: [PodsWithPVC, PodsWithPVC]}}",
       "extraEnabled[1]: 'PodsWithPVC' appears twice"},
      {"defaultDisabled twice", "{podProtections: {defaultDisabled: [PodsWithLocalStorage, PodsWithLocalStorage]}}",
       "defaultDisabled[1]: 'PodsWithLocalStorage' appears twice"},
      // Upstream gathers every error; weft reports the first it meets.
      {"several errors at once",
       "{noEvictionPolicy: invalid-no-eviction-policy, podProtections: {extraEnabled: [PodsWithPVC, PodsWithPVC], "
       "defaultDisabled: [PodsWithLocalStorage, PodsWithLocalStorage, PodsWithoutPDB]}}",
       "defaultDisabled[1]: 'PodsWithLocalStorage' appears twice"},
      {"protected storage classes without a name",
       "{podProtections: {extraEnabled: [PodsWithPVC], config: {PodsWithPVC: {protectedStorageClasses: [{name: ''}, "
       "{name: protected-storage-class-0}, {name: ''}, {name: protected-storage-class-1}]}}}}",
       "config.PodsWithPVC.protectedStorageClasses[0].name: is required"},
      // Upstream checks the names only with PodsWithPVC in extraEnabled.
      {"unnamed protected storage classes without PodsWithPVC",
       "{podProtections: {config: {PodsWithPVC: {protectedStorageClasses: [{name: ''}]}}}}", nullptr},
      {"priorityThreshold above system-cluster-critical", "{priorityThreshold: {value: 2000000001}}",
       "priorityThreshold.value: can't be greater than 2000000000"},
  };
  for (const Row& row : rows) {
    auto p = parse_args(row.args);
    if (!row.refused) {
      EXPECT_TRUE(p.ok()) << row.intent << ": " << p.message();
      continue;
    }
    ASSERT_FALSE(p.ok()) << row.intent << " was accepted";
    EXPECT_NE(p.message().find(row.refused), std::string::npos) << row.intent << ": " << p.message();
    EXPECT_NE(p.message().find("profiles[0].pluginConfig[0].args"), std::string::npos) << row.intent << ": " << p.message();
  }
}

// Upstream reports every problem of the args together (utilerrors.NewAggregate): so does
// weft, one line each, in the order of the args.
TEST(DefaultEvictorArgsUpstream, EveryProblemAtOnce) {
  const std::string at = "policy.yaml: profiles[0].pluginConfig[0].args.";
  auto several = parse_args("{noEvictionPolicy: invalid-no-eviction-policy, podProtections: {extraEnabled: [PodsWithPVC, "
                            "PodsWithPVC], defaultDisabled: [PodsWithLocalStorage, PodsWithLocalStorage, PodsWithoutPDB]}}");
  ASSERT_FALSE(several.ok());
  EXPECT_EQ(several.message(),
            at + "podProtections.defaultDisabled[1]: 'PodsWithLocalStorage' appears twice\n" + at +
                "podProtections.defaultDisabled[2]: 'PodsWithoutPDB' is not one of PodsWithLocalStorage, "
                "SystemCriticalPods, FailedBarePods, DaemonSetPods\n" +
                at + "podProtections.extraEnabled[1]: 'PodsWithPVC' appears twice\n" + at +
                "noEvictionPolicy: 'invalid-no-eviction-policy' is not Preferred or Mandatory");
  auto classes = parse_args("{podProtections: {extraEnabled: [PodsWithPVC], config: {PodsWithPVC: {protectedStorageClasses: "
                            "[{name: ''}, {name: protected-storage-class-0}, {name: ''}, {name: protected-storage-class-1}]}}}}");
  ASSERT_FALSE(classes.ok());
  EXPECT_EQ(classes.message(), at + "podProtections.config.PodsWithPVC.protectedStorageClasses[0].name: is required\n" + at +
                                   "podProtections.config.PodsWithPVC.protectedStorageClasses[2].name: is required");
  // Decoding problems too: an unknown field, a wrong type and a bad value, beside each other.
  auto mixed = parse_args("{nodeFitt: true, ignorePvcPods: yes please, minReplicas: -2, priorityThreshold: {value: 1, name: gold}}");
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.message(), at + "nodeFitt: unknown field\n" + at + "priorityThreshold: set value or name, not both\n" + at +
                                 "ignorePvcPods: must be true or false\n" + at + "minReplicas: must be a non-negative integer");
}

// Fields whose Go type weft used to read more loosely, now read as upstream decodes them.
TEST(DefaultEvictorArgsUpstream, FieldsAsTheirGoTypes) {
  // minPodAge is a *metav1.Duration: a Go duration string, negative allowed; a number does not decode.
  auto age = parse_args("{minPodAge: 5m}");
  ASSERT_TRUE(age.ok()) << age.message();
  EXPECT_EQ(age->profiles[0].evictor.min_pod_age->count(), 300);
  auto negative = parse_args("{minPodAge: -1h}");
  ASSERT_TRUE(negative.ok()) << negative.message();
  EXPECT_EQ(negative->profiles[0].evictor.min_pod_age->count(), -3600);
  auto number = parse_args("{minPodAge: 300}");
  ASSERT_FALSE(number.ok());
  EXPECT_NE(number.message().find("args.minPodAge: must be a duration string"), std::string::npos) << number.message();
  // nodeSelector is a string (labels.Parse); a mapping does not decode.
  auto mapping = parse_args("{nodeFit: true, nodeSelector: {datacenter: west}}");
  ASSERT_FALSE(mapping.ok());
  EXPECT_NE(mapping.message().find("args.nodeSelector: must be a label selector string"), std::string::npos)
      << mapping.message();
  auto text = parse_args("{nodeFit: true, nodeSelector: 'datacenter=west,zone in (a,b)'}");
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_TRUE(text->profiles[0].evictor.node_selector->matches(kube::Labels{{"datacenter", "west"}, {"zone", "a"}}));
  // DefaultEvictorArgs has no evictableNamespaces: refused, saying where it belongs.
  auto namespaces = parse_args("{evictableNamespaces: {exclude: [kube-system]}}");
  ASSERT_FALSE(namespaces.ok());
  EXPECT_NE(namespaces.message().find("args.evictableNamespaces: unknown field"), std::string::npos) << namespaces.message();
  EXPECT_NE(namespaces.message().find("LowNodeUtilization"), std::string::npos) << namespaces.message();
  // PriorityThreshold.Name is a string: an empty one is no name.
  auto empty_name = parse_args("{priorityThreshold: {name: ''}}");
  ASSERT_TRUE(empty_name.ok()) << empty_name.message();
  EXPECT_FALSE(empty_name->profiles[0].evictor.priority_threshold.value);
  EXPECT_TRUE(empty_name->profiles[0].evictor.priority_threshold.name.empty());
  auto value_and_empty_name = parse_args("{priorityThreshold: {value: 1, name: ''}}");
  ASSERT_TRUE(value_and_empty_name.ok()) << value_and_empty_name.message();
  EXPECT_EQ(value_and_empty_name->profiles[0].evictor.priority_threshold.value, std::optional<int32_t>(1));
  // minReplicas is a uint: any non-negative count decodes.
  auto replicas = parse_args("{minReplicas: 5000000000}");
  ASSERT_TRUE(replicas.ok()) << replicas.message();
  EXPECT_EQ(replicas->profiles[0].evictor.min_replicas, INT32_MAX);
}

// TestGetEffectivePodProtections_TableDriven.
TEST(DefaultEvictorArgsUpstream, EffectivePodProtections) {
  const std::set<std::string> defaults = {"PodsWithLocalStorage", "DaemonSetPods", "SystemCriticalPods", "FailedBarePods"};
  auto plus = [&](std::initializer_list<const char*> extra) {
    std::set<std::string> s = defaults;
    s.insert(extra.begin(), extra.end());
    return s;
  };
  struct Row {
    const char* intent;
    const char* args;
    std::set<std::string> want;
  };
  const std::vector<Row> rows = {
      {"empty lists: the defaults", "{podProtections: {defaultDisabled: [], extraEnabled: []}}", defaults},
      {"one default disabled", "{podProtections: {defaultDisabled: [PodsWithLocalStorage]}}",
       {"DaemonSetPods", "SystemCriticalPods", "FailedBarePods"}},
      {"two defaults disabled", "{podProtections: {defaultDisabled: [DaemonSetPods, SystemCriticalPods]}}",
       {"PodsWithLocalStorage", "FailedBarePods"}},
      {"one extra enabled", "{podProtections: {extraEnabled: [PodsWithPVC]}}", plus({"PodsWithPVC"})},
      {"two extras enabled", "{podProtections: {extraEnabled: [PodsWithPVC, PodsWithoutPDB]}}",
       plus({"PodsWithPVC", "PodsWithoutPDB"})},
      {"disabled and enabled", "{podProtections: {defaultDisabled: [FailedBarePods, DaemonSetPods], extraEnabled: [PodsWithPVC]}}",
       {"PodsWithLocalStorage", "SystemCriticalPods", "PodsWithPVC"}},
      {"PodsWithResourceClaims enabled", "{podProtections: {extraEnabled: [PodsWithResourceClaims]}}",
       plus({"PodsWithResourceClaims"})},
      {"disabled and two enabled",
       "{podProtections: {defaultDisabled: [FailedBarePods, DaemonSetPods], extraEnabled: [PodsWithPVC, PodsWithResourceClaims]}}",
       {"PodsWithLocalStorage", "SystemCriticalPods", "PodsWithPVC", "PodsWithResourceClaims"}},
  };
  for (const Row& row : rows) {
    auto p = parse_args(row.args);
    ASSERT_TRUE(p.ok()) << row.intent << ": " << p.message();
    EXPECT_EQ(protections(p->profiles[0].evictor), row.want) << row.intent;
  }
}

// Test_protectedPVCStorageClasses.
TEST(DefaultEvictorArgsUpstream, ProtectedStorageClasses) {
  auto none = parse_args("{}");
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_TRUE(none->profiles[0].evictor.protected_storage_classes.empty());
  auto no_pvc_config = parse_args("{podProtections: {config: {}}}");
  ASSERT_TRUE(no_pvc_config.ok()) << no_pvc_config.message();
  EXPECT_TRUE(no_pvc_config->profiles[0].evictor.protected_storage_classes.empty());
  auto listed = parse_args("{podProtections: {config: {PodsWithPVC: {protectedStorageClasses: [{name: sc1}, {name: sc2}]}}}}");
  ASSERT_TRUE(listed.ok()) << listed.message();
  EXPECT_EQ(listed->profiles[0].evictor.protected_storage_classes, (std::vector<std::string>{"sc1", "sc2"}));
}

}  // namespace
}  // namespace weft::descheduler::test
