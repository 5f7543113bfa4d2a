#include "kube/objects.h"

#include <gtest/gtest.h>

namespace weft::kube {
namespace {

using nlohmann::json;

TEST(Objects, PodRequestsSumMaxAndOverhead) {
  auto pod = json::parse(R"({"spec":{
    "containers":[{"resources":{"requests":{"cpu":"500m","memory":"1Gi"}}},
                  {"resources":{"limits":{"cpu":"1","nvidia.com/gpu":"2"}}}],
    "initContainers":[{"resources":{"requests":{"cpu":"4"}}}],
    "overhead":{"cpu":"100m"}}})");
  auto r = pod_requests(pod);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->at("cpu"), 4100);             // max(0.5+1, 4) + 0.1
  EXPECT_EQ(r->at("memory"), 1024LL * 1024 * 1024 * 1000);
  EXPECT_EQ(r->at("nvidia.com/gpu"), 2000);  // limit stands in for the missing request
  auto bad = pod_requests(json::parse(R"({"spec":{"containers":[{},{"resources":{"requests":{"cpu":"x"}}}]}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("spec.containers[1].resources.requests"), std::string::npos) << bad.message();
}

// Native sidecars (init containers with restartPolicy Always), as Kubernetes' resource
// helpers and Volcano's GetPodResourceRequest count them: a sidecar adds to the running
// sum and to every init container after it.
TEST(Objects, PodRequestsCountSidecarsBesideTheContainersAndLaterInitContainers) {
  auto pod = json::parse(R"({"spec":{
    "initContainers":[{"resources":{"requests":{"cpu":"1"}}},
                      {"restartPolicy":"Always","resources":{"requests":{"cpu":"2","memory":"1Gi"}}},
                      {"resources":{"requests":{"cpu":"3"}}},
                      {"restartPolicy":"Always","resources":{"limits":{"cpu":"500m"}}}],
    "containers":[{"resources":{"requests":{"cpu":"1"}}}]}})");
  auto r = pod_requests(pod);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->at("cpu"), 5000);   // init peak: 3 + the 2 started before it; running: 1 + 2 + 0.5
  EXPECT_EQ(r->at("memory"), 1024LL * 1024 * 1024 * 1000);

  pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "4";
  EXPECT_EQ(pod_requests(pod)->at("cpu"), 6500);   // running: 4 + 2 + 0.5 beats the init peak

  pod["spec"]["initContainers"][1]["restartPolicy"] = 7;
  auto bad = pod_requests(pod);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("spec.initContainers[1].restartPolicy: 7 is not a string"), std::string::npos)
      << bad.message();
}

TEST(Objects, NodeFields) {
  auto node = json::parse(R"({"metadata":{"name":"n1","labels":{"weft.dev/ib-leaf":"0x1"}},
    "spec":{"unschedulable":true},
    "status":{"allocatable":{"cpu":"64"},"capacity":{"cpu":"72"},
              "conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"False"}]}})");
  EXPECT_EQ(node_allocatable(node)->at("cpu"), 64000);
  EXPECT_FALSE(node_ready(node));
  EXPECT_TRUE(node_unschedulable(node));
  EXPECT_EQ(name_of(node), "n1");
  EXPECT_EQ(key_of(node), "n1");
  EXPECT_EQ(label(node, "weft.dev/ib-leaf"), "0x1");
  EXPECT_EQ(label(node, "missing", "dflt"), "dflt");
  EXPECT_TRUE(node_ready(json::parse(R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})")));
  EXPECT_TRUE(node_ready(json::object()));
  EXPECT_EQ(node_allocatable(json::parse(R"({"status":{"capacity":{"cpu":"8"}}})"))->at("cpu"), 8000);
}

TEST(Objects, PodFields) {
  auto pod = json::parse(R"({"metadata":{"name":"p","namespace":"team",
     "annotations":{"kubernetes.io/config.mirror":"abc"},
     "ownerReferences":[{"kind":"ReplicaSet","controller":false},{"kind":"DaemonSet","controller":true}]},
     "spec":{"priority":1000},"status":{"phase":"Succeeded"}})");
  EXPECT_EQ(key_of(pod), "team/p");
  EXPECT_EQ(pod_priority(pod), 1000);
  EXPECT_TRUE(pod_terminal(pod));
  EXPECT_EQ(controller_kind(pod), "DaemonSet");
  EXPECT_EQ(controller_kind(json::object()), "");
  EXPECT_EQ(pod_priority(json::object()), 0);
}

// Upstream's IsMirrorPod (the annotation present, whatever its value) or IsStaticPod (a
// config source other than "api").
TEST(Objects, MirrorOrStaticPodAsUpstreamTellsThem) {
  const std::string empty, hash = "abc", api = "api", file = "file", http = "http";
  EXPECT_TRUE(pod_is_mirror_or_static(&hash, nullptr));
  EXPECT_TRUE(pod_is_mirror_or_static(&empty, nullptr));
  EXPECT_TRUE(pod_is_mirror_or_static(&hash, &api));
  EXPECT_TRUE(pod_is_mirror_or_static(nullptr, &file));
  EXPECT_TRUE(pod_is_mirror_or_static(nullptr, &http));
  EXPECT_TRUE(pod_is_mirror_or_static(nullptr, &empty));   // a source, and not "api"
  EXPECT_FALSE(pod_is_mirror_or_static(nullptr, &api));
  EXPECT_FALSE(pod_is_mirror_or_static(nullptr, nullptr));
}

}  // namespace
}  // namespace weft::kube
