// `weft-agent run` on an ibsim fabric (real OpenSM, umad2sim) killed with SIGKILL right
// after its k-th write to its Node (the first publish, then load heartbeats), then started
// again. From the restart on, its weft.dev/ labels are those it had published before the
// kill at every look (every 100 ms for 6 s): a restart neither withdraws nor rewrites them.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "kube/client/resource.h"
#include "tests/crash/harness.h"
#include "tests/support/ibsim.h"
#include "tests/support/kube_lite.h"
#include "tests/support/process.h"

namespace weft::testing::crash {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

// One leaf switch: the agent's host and the subnet manager's.
const char* kNet = R"(switchguid=0x0000000000000c01
Switch 4 "leaf"
[1] "n1"[1]
[2] "sm"[1]
caguid=0x0000000000002001
Hca 1 "n1"
[1] "leaf"[1]
caguid=0x0000000000002f00
Hca 1 "sm"
[1] "leaf"[2]
)";

std::string agent_binary() { return daemon_binary("WEFT_CRASH_AGENT", "node-agent/weft-agent"); }

json weft_labels(kube::Client& client) {
  json out = json::object();
  auto node = client.get(kube::resources::nodes(), "", "n1");
  if (!node) return out;
  const json labels = (*node)["metadata"].value("labels", json::object());
  for (const auto& [k, v] : labels.items())
    if (k.rfind("weft.dev/", 0) == 0) out[k] = v;
  return out;
}

std::unique_ptr<Process> start_agent(const IbSim& fabric, const KubeLite& api) {
  std::vector<std::string> argv = {agent_binary(), "run", "--node-name", "n1", "--kubeconfig", api.kubeconfig(),
                                   "--listen", "127.0.0.1:0", "--ib-interval", "1s", "--load-interval", "1s",
                                   "--load-backend", "procfs", "--heartbeat", "1s", "--no-pod-metrics"};
  return std::make_unique<Process>(Process::Options{.argv = argv, .env = fabric.env_for("n1"), .keep_stdin_open = false});
}

// "" when the labels after a crash at write k and a restart stay those before it.
std::string crash_and_restart(const IbSim& fabric, int k, const TempDir& dir) {
  std::filesystem::remove(dir.file("pid"));
  KubeLite api({.state = dir.file("cluster.json"),
                .extra_args = {"--kill-after-writes", std::to_string(k), "--kill-pid-file", dir.file("pid"),
                               "--kill-writes-matching", ".*/nodes/n1"}});
  if (!api.error().empty()) return "kube-lite: " + api.error();
  auto client = api.new_client();
  {
    auto first = start_agent(fabric, api);
    write_file(dir.file("pid"), std::to_string(first->pid()));
    if (first->wait(seconds(30)) != 128 + SIGKILL) return "not killed at write " + std::to_string(k) + ": " + first->output();
  }
  const json before = weft_labels(*client);
  if (before.value("weft.dev/rdma", "") != "ib" || before.value("weft.dev/ib-leaf", "").empty())
    return "the first publish did not place the node: " + before.dump();
  std::printf("killed after write %d; labels then: %s\n", k, before.dump().c_str());
  auto second = start_agent(fabric, api);
  for (int look = 0; look < 60; ++look) {
    std::this_thread::sleep_for(milliseconds(100));
    if (const json now = weft_labels(*client); now != before)
      return "look " + std::to_string(look) + " after the restart: " + now.dump() + " instead of " + before.dump() +
             "\n" + second->output();
  }
  if (!second->running()) return "the restarted agent exited: " + second->output();
  return "";
}

TEST(AgentCrash, KilledAfterTheKthNodeWriteTheRestartedAgentKeepsItsLabels) {
  WEFT_SKIP_UNLESS(need_binaries(agent_binary()));
  WEFT_SKIP_UNLESS(need_ibsim());
  TempDir dir("crash-agent");
  write_file(dir.file("fabric.net"), kNet);
  std::string error;
  auto fabric = IbSim::start(dir.file("fabric.net"), &error);
  ASSERT_TRUE(fabric) << error;
  fabric->start_sm({.host = "sm"});
  ASSERT_TRUE(fabric->wait_subnet_up(seconds(30)));
  const json node = {{"apiVersion", "v1"}, {"kind", "Node"},
                     {"metadata", {{"name", "n1"}, {"labels", {{"kubernetes.io/hostname", "n1"}, {"team", "infra"}}}}}};
  write_file(dir.file("cluster.json"), json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", {node}}}.dump());
  for (int k : crash_points(1, 4, 2, 1)) EXPECT_EQ(crash_and_restart(*fabric, k, dir), "") << "killed after write " << k;
}

}  // namespace
}  // namespace weft::testing::crash
