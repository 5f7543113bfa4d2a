// A pod's eviction facts are read in the scheduler's one pass over its text: every fact
// a plugin reads, a section met twice read from its last copy (as a tree keeps it), and
// text only a tree accepts read all the same.
#include "descheduler/core/pod_facts.h"

#include <gtest/gtest.h>

#include "tests/descheduler/fixtures.h"

namespace weft::descheduler {
namespace {

using nlohmann::json;

json rich_pod() {
  json p = test::pod("p", "n1");
  p["metadata"]["creationTimestamp"] = "2026-11-20T10:00:00Z";
  p["metadata"]["annotations"] = {{"kubernetes.io/config.source", "file"},
                                  {kEvictAnnotation, ""},
                                  {"scheduling.volcano.sh/group-name", "g"}};
  p["metadata"]["ownerReferences"] = json::array({{{"kind", "Job"}, {"name", "j"}, {"uid", "u-j"}},
                                                  {{"kind", "DaemonSet"}, {"name", "ds"}, {"uid", "u-ds"}, {"controller", true}}});
  p["spec"]["containers"].push_back({{"name", "b"}, {"image", "a-first"}});
  p["spec"]["containers"][0]["resources"]["limits"] = {{"cpu", "1"}, {"memory", "2Gi"}};
  p["spec"]["containers"][1]["resources"]["limits"] = {{"cpu", "1"}};
  p["spec"]["affinity"] = {{"nodeAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution",
                                              {{"nodeSelectorTerms", json::array({{{"matchExpressions", json::array()}}})}}}}}};
  p["spec"]["volumes"] = json::array({{{"name", "d"}, {"emptyDir", json::object()}}});
  p["status"] = {{"phase", "Running"},
                 {"reason", "NodeLost"},
                 {"startTime", "2026-11-20T10:01:00Z"},
                 {"containerStatuses", json::array({{{"name", "c"}, {"restartCount", 7},
                                                     {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}}}})},
                 {"initContainerStatuses",
                  json::array({{{"name", "i"}, {"state", {{"terminated", {{"reason", "Error"}, {"exitCode", 3}}}}}}})},
                 {"conditions", json::array({{{"type", "Ready"}, {"status", "False"}, {"reason", "Crash"},
                                              {"lastTransitionTime", "2026-11-20T10:02:00Z"}}})}};
  return p;
}

const PodInfo& only_pod(const Cluster& c) {
  EXPECT_EQ(c.pods.size(), 1u);
  return c.pods.at(0);
}

TEST(PodFacts, EveryFactFromOnePassOverTheText) {
  ClusterBuilder b;
  ASSERT_TRUE(b.add(test::node("n1"), "test").ok());
  ASSERT_TRUE(b.added_as_pod(rich_pod().dump(), "test", false));
  Cluster c = b.finish();
  const PodInfo& p = only_pod(c);
  EXPECT_EQ(p.key(), "default/p");
  EXPECT_EQ(p.owner_kind, "DaemonSet");   // the controller, not the first reference
  EXPECT_EQ(p.owner_uid, "u-ds");
  EXPECT_EQ(p.owner_count, 2);
  EXPECT_TRUE(p.daemonset);
  EXPECT_EQ(p.group, "g");
  EXPECT_TRUE(p.mirror);   // config.source is not "api"
  EXPECT_TRUE(p.evict_annotation);
  EXPECT_FALSE(p.prefer_no_eviction);
  EXPECT_TRUE(p.has_local_storage);
  EXPECT_FALSE(p.has_pvc);
  EXPECT_EQ(p.qos, QosClass::Burstable);   // the second container limits cpu only
  EXPECT_EQ(format_rfc3339(*p.started), "2026-11-20T10:01:00Z");
  EXPECT_EQ(format_rfc3339(*p.detail.created), "2026-11-20T10:00:00Z");
  EXPECT_EQ(p.detail.reason, "NodeLost");
  ASSERT_EQ(p.detail.containers.size(), 2u);
  EXPECT_EQ(p.detail.containers[0].restarts, 7);
  EXPECT_EQ(p.detail.containers[0].waiting_reason, "CrashLoopBackOff");
  EXPECT_EQ(p.detail.containers[1].kind, ContainerState::Kind::Init);
  EXPECT_EQ(p.detail.containers[1].terminated_reason, "Error");
  EXPECT_EQ(p.detail.containers[1].exit_code, 3);
  ASSERT_EQ(p.detail.conditions.size(), 1u);
  EXPECT_EQ(p.detail.conditions[0].reason, "Crash");
  EXPECT_EQ(format_rfc3339(*p.detail.conditions[0].last_transition), "2026-11-20T10:02:00Z");
  ASSERT_EQ(p.detail.owners.size(), 2u);
  EXPECT_EQ(p.detail.owners[0].kind, "Job");
  EXPECT_EQ(p.detail.images, (std::vector<SharedString>{SharedString("a-first"), SharedString("x")}));   // sorted
  EXPECT_TRUE(p.detail.requires_node_affinity);
  // The scheduler's record of the same pass.
  EXPECT_EQ(p.requests().at("cpu"), 2000);   // a limit stands in for a missing request
  EXPECT_FALSE(p.affinity().empty());
}

// A terminated state's exitCode is a Go int32 upstream: absent or null, it is 0 (so
// exitCodes: [0] matches it); a waiting state has none.
TEST(PodFacts, ATerminatedStateWithoutExitCodeExitedZero) {
  json p = rich_pod();
  p["status"]["initContainerStatuses"] =
      json::array({{{"name", "i"}, {"state", {{"terminated", {{"reason", "Completed"}}}}}},
                   {{"name", "j"}, {"state", {{"terminated", {{"exitCode", nullptr}}}}}}});
  ClusterBuilder b;
  ASSERT_TRUE(b.add(test::node("n1"), "test").ok());
  ASSERT_TRUE(b.added_as_pod(p.dump(), "test", false));
  Cluster c = b.finish();
  const PodInfo& pod = only_pod(c);
  ASSERT_EQ(pod.detail.containers.size(), 3u);
  EXPECT_FALSE(pod.detail.containers[0].exit_code.has_value());   // waiting
  EXPECT_EQ(pod.detail.containers[1].exit_code, 0);
  EXPECT_EQ(pod.detail.containers[2].exit_code, 0);
}

TEST(PodFacts, ASectionMetTwiceIsReadFromItsLastCopy) {
  json p = test::pod("p", "n1");
  std::string text = p.dump();
  // A first status with a restart count, then the one that stands.
  text.insert(text.size() - 1, R"(,"status":{"phase":"Running","containerStatuses":[{"name":"c","restartCount":2}]})");
  text.insert(1, R"("status":{"phase":"Failed","reason":"Evicted","containerStatuses":[{"name":"c","restartCount":99}]},)");
  ClusterBuilder b;
  ASSERT_TRUE(b.add(test::node("n1"), "test").ok());
  ASSERT_TRUE(b.added_as_pod(text, "test", false));
  Cluster c = b.finish();
  const PodInfo& pod = only_pod(c);
  EXPECT_EQ(pod.phase, "Running");
  EXPECT_EQ(pod.detail.reason, "");
  ASSERT_EQ(pod.detail.containers.size(), 1u);
  EXPECT_EQ(pod.detail.containers[0].restarts, 2);
}

TEST(PodFacts, APodItemWithoutKindIsAPodOnlyWhereTheListSaysSo) {
  json p = test::pod("p", "n1");
  p.erase("kind");
  ClusterBuilder b;
  ASSERT_TRUE(b.add(test::node("n1"), "test").ok());
  EXPECT_FALSE(b.added_as_pod(p.dump(), "test", false));
  EXPECT_TRUE(b.added_as_pod(p.dump(), "test", true));
  EXPECT_EQ(b.finish().pods.size(), 1u);
}

TEST(PodFacts, BadFactsAreRefusedNamingTheField) {
  json p = rich_pod();
  p["status"]["containerStatuses"][0]["restartCount"] = -1;
  ClusterBuilder b;
  ASSERT_TRUE(b.add(test::node("n1"), "test").ok());
  EXPECT_FALSE(b.added_as_pod(p.dump(), "test", false));
  auto s = b.add(p, "pods.json");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("status.containerStatuses[0].restartCount: must be a non-negative integer"), std::string::npos)
      << s.message();
  p = rich_pod();
  p["status"]["qosClass"] = "Gold";
  EXPECT_FALSE(b.add(p, "pods.json").ok());
  EXPECT_EQ(b.finish().pods.size(), 0u);
}

}  // namespace
}  // namespace weft::descheduler
