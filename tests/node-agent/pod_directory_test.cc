// Naming the pods the load collector found: by uid (kubelet's groups) or by the demo
// runtime's "<namespace>-<name>", from pod objects as the informer delivers them.
#include "node-agent/daemon/pod_directory.h"

#include <gtest/gtest.h>

namespace weft::agent {
namespace {

nlohmann::json pod(const std::string& ns, const std::string& name, const std::string& uid) {
  return {{"metadata", {{"namespace", ns}, {"name", name}, {"uid", uid}}}};
}

PodLoad found(const std::string& uid, const std::string& runtime_name, double cpu) {
  PodLoad p;
  p.uid = uid;
  p.runtime_name = runtime_name;
  p.cpu_cores = cpu;
  return p;
}

TEST(PodIndex, NamesByUidAndByRuntimeNameAndForgetsDeletedPods) {
  PodIndex index;
  index.upsert(pod("default", "trainer-0", "u-1"));
  index.upsert(pod("team-a", "web", "u-2"));
  EXPECT_EQ(index.size(), 2u);
  auto a = index.by_uid("u-1");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->ns, "default");
  EXPECT_EQ(a->name, "trainer-0");
  auto b = index.by_runtime_name("team-a-web");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->name, "web");
  EXPECT_FALSE(index.by_uid("u-3"));
  index.remove(pod("default", "trainer-0", "u-1"));
  EXPECT_FALSE(index.by_uid("u-1"));
  EXPECT_FALSE(index.by_runtime_name("default-trainer-0"));
  // The same name again with a new uid (a StatefulSet's pod recreated).
  index.upsert(pod("team-a", "web", "u-9"));
  EXPECT_EQ(index.by_uid("u-9")->name, "web");
  index.upsert({{"metadata", {{"namespace", "x"}}}});  // no name: ignored
  EXPECT_EQ(index.size(), 1u);
}

TEST(NamePods, KeepsOnlyPodsTheDirectoryKnows) {
  PodIndex index;
  index.upsert(pod("default", "burner", "u-1"));
  index.upsert(pod("default", "idle", "u-2"));
  std::vector<PodLoad> pods = {found("u-1", "", 0.9), found("u-unknown", "", 0.5), found("", "default-idle", 0.1),
                               found("", "default-gone", 0.2)};
  name_pods(&index, pods);
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0].ns, "default");
  EXPECT_EQ(pods[0].name, "burner");
  EXPECT_DOUBLE_EQ(pods[0].cpu_cores, 0.9);
  EXPECT_EQ(pods[1].name, "idle");
  std::vector<PodLoad> unnamed = {found("u-1", "", 0.9)};
  name_pods(nullptr, unnamed);
  EXPECT_TRUE(unnamed.empty());
}

}  // namespace
}  // namespace weft::agent
