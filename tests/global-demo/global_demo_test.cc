// The multi-cluster demo (tools/global-demo/run-global-demo) end to end: it must finish,
// and what it wrote must hold the claims it printed: gangs whole on one member each,
// the fragmented ones suspended with that reason, GPUs held by the queues as their
// weights, nothing left running.
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/process.h"

namespace {

using nlohmann::json;
using weft::testing::binary;
using weft::testing::read_file;

std::string missing_binary() {
  for (const char* b : {"tools/kube-lite/kube-lite", "scheduler/weft-scheduler"})
    if (!std::filesystem::exists(binary(b))) return std::string("not built: ") + b;
  return "";
}

// How many processes still carry the run's marker in their environment.
int left_running(const std::string& marker) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (read_file(entry.path().string() + "/environ").find(marker) != std::string::npos) ++n;
  }
  return n;
}

TEST(GlobalDemo, RunsEndToEndAndItsClaimsHold) {
  WEFT_SKIP_UNLESS(weft::testing::need_tools({"kubectl", "jq", "column"}));
  WEFT_SKIP_UNLESS(missing_binary());
  weft::testing::TempDir out("weft-global-demo-test");
  weft::testing::Process demo({.argv = {weft::testing::source_path("tools/global-demo/run-global-demo"), "--out",
                                        out.path(), "--build-dir", WEFT_BINARY_DIR},
                               .keep_stdin_open = false,
                               .log_file = out.file("demo-output.log")});
  auto code = demo.wait(std::chrono::seconds(150));
  const std::string output = demo.output();
  ASSERT_TRUE(code.has_value()) << "the global demo did not finish in 150 s:\n" << output;
  ASSERT_EQ(*code, 0) << output;
  EXPECT_NE(output.find("global demo finished"), std::string::npos) << output;

  int left = 0;
  for (int i = 0; i < 20 && (left = left_running("WEFT_DEMO_RUN=" + out.path() + "/run")) > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(left, 0) << "processes of the demo left running";

  auto summary = json::parse(read_file(out.file("summary.json")), nullptr, false);
  ASSERT_FALSE(summary.is_discarded()) << "summary.json is not JSON";
  ASSERT_EQ(summary["steps"].size(), 6u) << summary.dump(2);
  for (const auto& s : summary["steps"]) EXPECT_TRUE(s["ok"].get<bool>()) << s.dump();

  std::map<std::string, int> gpus_by_queue;
  std::map<std::string, int> gangs_by_member;
  int waiting = 0;
  for (const auto& b : summary["bindings"]) {
    if (b["suspended"].get<bool>()) {
      ++waiting;
      EXPECT_EQ(b["clusters"], json::array()) << b.dump();
      EXPECT_EQ(b["reason"], "NoClusterFit") << b.dump();
      continue;
    }
    ASSERT_EQ(b["clusters"].size(), 1u) << "a gang split over members: " << b.dump();
    EXPECT_EQ(b["clusters"][0]["replicas"], 2) << b.dump();
    EXPECT_EQ(b["reason"], "Dispatched") << b.dump();
    ++gangs_by_member[b["clusters"][0]["name"].get<std::string>()];
    gpus_by_queue[b["queue"].get<std::string>()] += 16;
  }
  EXPECT_GT(waiting, 0);
  // west's 16 free GPUs are in pieces of 4: no 8-GPU pod ever went there.
  EXPECT_EQ(gangs_by_member.count("west"), 0u) << summary.dump(2);
  // After the NotReady step one prod job finished and another took its place on south.
  EXPECT_EQ(gangs_by_member["south"], 2);
  EXPECT_EQ(gpus_by_queue["prod"], 48);
  EXPECT_EQ(gpus_by_queue["research"], 16);
}

}  // namespace
