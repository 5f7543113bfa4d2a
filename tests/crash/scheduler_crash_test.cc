// `weft-scheduler run` killed with SIGKILL right after its k-th API write (kube-lite
// --kill-after-writes: a binding, eviction or status write that took effect and whose
// answer never came back), then started again. Four gangs of 4 with `weft.dev/ib-cluster:
// same` fill two fabrics exactly; two small gangs of 2 that fit nowhere wait behind them.
// A crash half-way through the bindings leaves a gang short with room for its missing
// members in its fabric; after the restart the small gangs (drf: a smaller share first)
// would fill that room and strand it. Every other run, while the scheduler is down, other
// pods take the room in the short gang's fabric (another scheduler's), so it can only be
// taken back. The test plays the pods' controllers (an evicted pod comes back pending)
// and checks tests/crash/invariants.h from the API within a bound.
//
// Seeded (tests/crash/harness.h): the short form (three values of k) runs with every test
// run; the long form, every k from 1 to 20: WEFT_CRASH_LONG=1.
#include <gtest/gtest.h>

#include <csignal>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "kube/client/resource.h"
#include "kube/objects.h"
#include "tests/crash/harness.h"
#include "tests/crash/invariants.h"
#include "tests/support/kube_lite.h"
#include "tests/support/process.h"

namespace weft::testing::crash {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kNodeCpu = 16, kPodCpu = 4;
const char* const kWrites = ".*/(binding|eviction|status)";

json node(const std::string& name, const std::string& fabric, int cpu) {
  json res = {{"cpu", std::to_string(cpu)}, {"memory", "64Gi"}, {"pods", "110"}};
  return {{"apiVersion", "v1"}, {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"weft.dev/rdma", "ib"}, {"weft.dev/ib-fabric", fabric},
                                                    {"weft.dev/ib-leaf", fabric + "1"}}}}},
          {"status", {{"allocatable", res}, {"capacity", res},
                      {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json pod(const std::string& name, const std::string& group, int cpu, const std::string& scheduler = "weft") {
  json p = {{"apiVersion", "v1"}, {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec", {{"schedulerName", scheduler},
                      {"containers", json::array({{{"name", "c"}, {"image", "x"},
                                                   {"resources", {{"requests", {{"cpu", std::to_string(cpu)}}}}}}})}}}};
  if (!group.empty()) p["metadata"]["annotations"] = {{"scheduling.k8s.io/group-name", group}};
  return p;
}

json podgroup(const std::string& name, int min_member, bool same_fabric) {
  json g = {{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "PodGroup"},
            {"metadata", {{"name", name}, {"namespace", "default"}}}, {"spec", {{"minMember", min_member}}}};
  if (same_fabric) g["metadata"]["annotations"] = {{"weft.dev/ib-cluster", "same"}};
  return g;
}

// The pods the controllers keep alive (re-created pending when gone), by name.
struct Scenario {
  json list;
  std::map<std::string, json> pods;
};

Scenario scenario() {
  Scenario s;
  json items = json::array();
  for (const char* f : {"a", "b"})
    for (int n = 0; n < 2; ++n) items.push_back(node(std::string(f) + std::to_string(n), std::string("0x") + f, kNodeCpu));
  // A running pod under a budget that allows no disruption, on a fabric of its own.
  items.push_back(node("c0", "0xc", kPodCpu));
  json bg = pod("bg-0", "", kPodCpu, "default-scheduler");
  bg["metadata"]["labels"] = {{"app", "bg"}};
  bg["spec"]["nodeName"] = "c0";
  bg["status"] = {{"phase", "Running"}, {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}};
  items.push_back(bg);
  items.push_back({{"apiVersion", "policy/v1"}, {"kind", "PodDisruptionBudget"},
                   {"metadata", {{"name", "bg"}, {"namespace", "default"}}},
                   {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", "bg"}}}}}}}});
  auto gang = [&](const std::string& name, int size, bool same_fabric) {
    items.push_back(podgroup(name, size, same_fabric));
    for (int m = 0; m < size; ++m) {
      json p = pod(name + "-" + std::to_string(m), name, kPodCpu);
      s.pods[kube::name_of(p)] = p;
      items.push_back(p);
    }
  };
  for (int g = 1; g <= 4; ++g) gang("g" + std::to_string(g), 4, true);
  for (int g = 1; g <= 2; ++g) gang("x" + std::to_string(g), 2, false);
  s.list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
  return s;
}

// WEFT_CRASH_SCHEDULER: another binary (say, an older build) run with its own defaults.
std::string scheduler_binary() { return daemon_binary("WEFT_CRASH_SCHEDULER", "scheduler/weft-scheduler"); }

// Three bindings in flight together: what is in flight when the kill comes still lands,
// and three at a time straddle the gangs of four.
std::unique_ptr<Process> start_scheduler(const KubeLite& api) {
  std::vector<std::string> argv = {scheduler_binary(), "run", "--kubeconfig", api.kubeconfig(), "--period", "200ms",
                                   "--bind-concurrency", "3"};
  if (!std::getenv("WEFT_CRASH_SCHEDULER")) argv.insert(argv.end(), {"--gang-repair-timeout", "3s"});
  return std::make_unique<Process>(Process::Options{.argv = argv, .keep_stdin_open = false});
}

// While the scheduler is down: other pods (another scheduler's) take every free cpu on
// the nodes of the first short same-fabric gang's fabric. Returns that gang, or "".
std::string fill_room_of_a_short_gang(kube::Client& client) {
  const ClusterView v = ClusterView::read(client);
  const auto bound = v.bound_by_group();
  std::string fabric, gang;
  for (const auto& [g, n] : bound) {
    if (g.rfind("default/g", 0) != 0 || n == 0 || n >= 4) continue;
    for (const auto& p : v.pods)
      if (group_of(p) == g && !p["spec"].value("nodeName", "").empty()) {
        const std::string node = p["spec"]["nodeName"];
        fabric = node.substr(0, 1);
      }
    gang = g;
    break;
  }
  if (gang.empty()) return "";
  for (const auto& n : v.nodes) {
    const std::string name = kube::name_of(n);
    if (name.substr(0, 1) != fabric) continue;
    int used = 0;
    for (const auto& p : v.pods)
      if (p["spec"].value("nodeName", "") == name) used += kPodCpu;
    if (used >= kNodeCpu) continue;
    json intruder = pod("other-" + name, "", kNodeCpu - used, "other-scheduler");
    intruder["spec"]["nodeName"] = name;
    EXPECT_TRUE(client.create(kube::resources::pods(), "default", intruder));
  }
  return gang;
}

struct RunResult {
  std::string violations;
  std::string story;
};

// One crash after the k-th write; `intrude`: take the short gang's room while down.
RunResult crash_and_restart(const Scenario& s, int k, bool intrude, const TempDir& dir) {
  RunResult result;
  const std::string pid_file = dir.file("scheduler.pid");
  write_file(dir.file("cluster.json"), s.list.dump());
  std::filesystem::remove(pid_file);
  KubeLite api({.state = dir.file("cluster.json"), .latency_ms = 30,
                .extra_args = {"--kill-after-writes", std::to_string(k), "--kill-pid-file", pid_file,
                               "--kill-writes-matching", kWrites}});
  if (!api.error().empty()) return {"kube-lite: " + api.error(), ""};
  auto client = api.new_client();
  {
    auto first = start_scheduler(api);
    write_file(pid_file, std::to_string(first->pid()));
    auto code = first->wait(seconds(30));
    if (code != 128 + SIGKILL) {
      return {"the scheduler was not killed at write " + std::to_string(k) + ": " + first->output(), ""};
    }
    result.story = "killed after write " + std::to_string(k) + "; bound then:";
    for (const auto& [g, n] : ClusterView::read(*client).bound_by_group()) result.story += " " + g + "=" + std::to_string(n);
  }
  if (intrude) result.story += "; room taken from " + fill_room_of_a_short_gang(*client);
  std::map<std::string, int> created;
  auto second = start_scheduler(api);
  // Acting as the controllers; the invariants must hold for 2 s within 20 s.
  const auto until = std::chrono::steady_clock::now() + seconds(20);
  int held = 0;
  std::string violations = "never checked";
  while (std::chrono::steady_clock::now() < until && held < 10) {
    std::this_thread::sleep_for(milliseconds(200));
    ClusterView v = ClusterView::read(*client);
    std::set<std::string> present;
    for (const auto& p : v.pods) present.insert(kube::name_of(p));
    for (const auto& [name, object] : s.pods)
      if (!present.count(name) && client->create(kube::resources::pods(), "default", object))
        created["default/" + name] = (created.count("default/" + name) ? created["default/" + name] : 1) + 1;
    violations = all_invariants(v, api.requests(), created);
    held = violations.empty() ? held + 1 : 0;
  }
  EXPECT_EQ(second->stop(seconds(10)), 0) << second->output();
  result.violations = all_invariants(ClusterView::read(*client), api.requests(), created);
  if (result.violations.empty() && held < 10) result.violations = "not settled: " + violations;
  if (!result.violations.empty()) result.story += "\n" + second->output();
  return result;
}

TEST(SchedulerCrash, KilledAfterTheKthWriteAndRestartedLeavesNoGangHalfBound) {
  WEFT_SKIP_UNLESS(need_binaries(scheduler_binary()));
  // The long form: every k from 1 to 20 (the 16 bindings, then PodGroup statuses). The
  // short form: three k among the bindings, where a gang can be left half-bound.
  const char* long_form = std::getenv("WEFT_CRASH_LONG");
  const std::vector<int> ks = long_form && std::string(long_form) == "1" ? crash_points(1, 20, 20) : crash_points(1, 15, 3);
  const Scenario s = scenario();
  TempDir dir("crash-sched");
  for (size_t run = 0; run < ks.size(); ++run) {
    const bool intrude = run % 2 == 1;
    RunResult r = crash_and_restart(s, ks[run], intrude, dir);
    EXPECT_EQ(r.violations, "") << "k=" << ks[run] << (intrude ? ", room taken while down" : "") << ": " << r.story;
  }
}

}  // namespace
}  // namespace weft::testing::crash
