// `weft-scheduler run` with Kubernetes' own gang API against kube-lite: it watches
// scheduling.k8s.io PodGroups, binds what `simulate` places, and writes kube-scheduler's
// PodGroupInitiallyScheduled condition to podgroups/status of that API group.
#include <gtest/gtest.h>

#include <filesystem>

#include "kube/client/resource.h"
#include "scheduler/app/run_cache.h"
#include "kube/objects.h"
#include "tests/support/kube_lite.h"
#include "tests/support/process.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;
using std::chrono::seconds;
using weft::testing::KubeLite;

std::string binary() { return weft::testing::binary("scheduler/weft-scheduler"); }

json condition(const json& pg) {
  for (const auto& c : pg.value("status", json::object()).value("conditions", json::array()))
    if (c.value("type", "") == "PodGroupInitiallyScheduled") return c;
  return json::object();
}

TEST(NativeGangRun, BindsWhatSimulatePlacesAndWritesTheCondition) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  std::error_code ec;
  if (!std::filesystem::exists(binary(), ec)) GTEST_SKIP() << "weft-scheduler not built";
  const std::string path = weft::testing::source_path("tests/scheduler-run/scenarios/native_gang.yaml");
  auto [scode, sout] = weft::testing::run_command({binary(), "simulate", path, "--output", "json"});
  ASSERT_EQ(scode, 0) << sout;
  json report = json::parse(sout);
  KubeLite api({.state = path});
  ASSERT_EQ(api.error(), "");
  auto [code, out] = weft::testing::run_command(
      {binary(), "run", "--kubeconfig", api.kubeconfig(), "--period", "150ms", "--cycles", "4"}, seconds(60));
  ASSERT_EQ(code, 0) << out;
  auto pods = api.client().list(kube::resources::pods(), "");
  ASSERT_TRUE(pods) << pods.message();
  std::map<std::string, std::string> got, want;
  for (const auto& p : pods->items) got[kube::key_of(p)] = p["spec"].value("nodeName", "");
  for (const auto& p : report["pods"]) want[p["pod"]] = p["node"].is_string() ? p["node"].get<std::string>() : "";
  EXPECT_EQ(got, want) << out;
  EXPECT_EQ(got["default/pair-0"].substr(0, 2), "b-");
  EXPECT_EQ(got["default/quad-0"], "");
  EXPECT_EQ(got["default/orphan"], "");
  auto pair = api.client().get(kube::resources::native_podgroups(), "default", "pair");
  auto quad = api.client().get(kube::resources::native_podgroups(), "default", "quad");
  ASSERT_TRUE(pair && quad);
  EXPECT_EQ(condition(*pair).value("status", ""), "True") << pair->dump();
  EXPECT_EQ(condition(*quad).value("status", ""), "False") << quad->dump();
  EXPECT_EQ(condition(*quad).value("reason", ""), "Unschedulable");
}

// A status this process wrote is shown in snapshots until the watch brings it, for both
// API groups' PodGroups: visiting Volcano's PodGroups must not forget what was written to
// Kubernetes' (else every pipelined cycle writes each gang's condition again).
TEST(NativeGangRun, AssumedStatusOfEitherPodGroupSurvivesTheOtherKindsVisit) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  KubeLite api;
  ASSERT_EQ(api.error(), "");
  auto& client = api.client();
  ASSERT_TRUE(client.create(kube::resources::native_podgroups(), "default",
                            {{"apiVersion", "scheduling.k8s.io/v1beta1"}, {"kind", "PodGroup"},
                             {"metadata", {{"name", "native"}, {"namespace", "default"}}},
                             {"spec", {{"schedulingPolicy", {{"gang", {{"minCount", 1}}}}}}}}));
  ASSERT_TRUE(client.create(kube::resources::podgroups(), "default",
                            {{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "PodGroup"},
                             {"metadata", {{"name", "volcano"}, {"namespace", "default"}}},
                             {"spec", {{"minMember", 1}}}}));
  ClusterCache cache(client);
  ASSERT_TRUE(cache.start());
  ASSERT_TRUE(cache.wait_for_sync(std::chrono::seconds(20)));
  std::map<std::string, json> seen;
  auto visit = [&] {
    seen.clear();
    cache.visit([&](json& o) { if (kube::kind_of(o) == "PodGroup") seen[kube::name_of(o)] = o; },
                [](const DecodedPtr&, const ClusterCache::PodOverlay&) {});
  };
  visit();
  ASSERT_EQ(seen.size(), 2u);
  const json written = {{"conditions", json::array({{{"type", "PodGroupInitiallyScheduled"}, {"status", "True"}}})}};
  cache.assume_status("podgroups.scheduling.k8s.io/default/native", written,
                      kube::metadata_string(seen["native"], "resourceVersion"));
  cache.assume_status("default/volcano", {{"phase", "Running"}}, kube::metadata_string(seen["volcano"], "resourceVersion"));
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    visit();
    EXPECT_EQ(seen["native"].value("status", json::object()), written);
    EXPECT_EQ(seen["volcano"].value("status", json::object()).value("phase", ""), "Running");
  }
  cache.stop();
}

}  // namespace
}  // namespace weft::scheduler
