// `weft-scheduler global simulate` as a command: the JSON on stdout, errors on stderr
// naming the object, exit code 1.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/support/process.h"

namespace {

std::string binary() { return weft::testing::binary("scheduler/weft-scheduler"); }

TEST(GlobalCli, SimulatePrintsTheDecisions) {
  if (!std::filesystem::exists(binary())) GTEST_SKIP() << "weft-scheduler not built";
  auto [code, out] = weft::testing::run_command(
      {binary(), "global", "simulate", weft::testing::source_path("tests/global/scenarios/fragmented.yaml"), "--output", "json"});
  ASSERT_EQ(code, 0) << out;
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  EXPECT_EQ(j["bindings"][0]["name"], "ml/big-job");
  EXPECT_EQ(j["bindings"][0]["suspended"], true);
  EXPECT_EQ(j["bindings"][1]["clusters"][0]["name"], "m1");
}

TEST(GlobalCli, BadObjectIsNamed) {
  if (!std::filesystem::exists(binary())) GTEST_SKIP() << "weft-scheduler not built";
  weft::testing::TempDir dir("weft-global-cli");
  weft::testing::write_file(dir.file("bad.yaml"), R"(apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m1}
---
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata: {name: rb, namespace: ml}
spec:
  resource: {apiVersion: apps/v1, kind: Deployment, name: web}
  suspension: {scheduling: maybe}
)");
  auto [code, out] = weft::testing::run_command({binary(), "global", "simulate", dir.file("bad.yaml")});
  EXPECT_EQ(code, 1);
  EXPECT_NE(out.find("bad.yaml: document 2 (ResourceBinding ml/rb): spec.resource: Deployment ml/web not found"),
            std::string::npos) << out;
}

}  // namespace
