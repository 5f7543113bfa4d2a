// The whole demo end to end (tools/demo/run-demo): real ibsim fabrics with OpenSM,
// kube-lite, one weft-agent per simulated host, Prometheus, weft-scheduler,
// weft-descheduler and weft-node-runtime. Checks what the demo claims from what it
// wrote (summary.json, topology.svg) and that it leaves no process behind.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/process.h"

namespace {

using weft::testing::binary;
using weft::testing::Process;
using weft::testing::read_file;
using weft::testing::source_path;

std::string missing_binaries() {
  for (const char* b : {"tools/kube-lite/kube-lite", "tools/fat-tree/weft-fat-tree", "node-agent/weft-agent",
                        "scheduler/weft-scheduler", "descheduler/weft-descheduler",
                        "tools/node-runtime/weft-node-runtime", "tools/demo/report/weft-demo-report"}) {
    struct stat st;
    if (::stat(binary(b).c_str(), &st) != 0) return std::string("not built: ") + b;
  }
  return "";
}

// Processes whose environment carries the demo's run marker, as "pid name".
std::vector<std::string> processes_of_run(const std::string& marker) {
  std::vector<std::string> found;
  DIR* proc = ::opendir("/proc");
  if (!proc) return found;
  while (dirent* e = ::readdir(proc)) {
    const std::string pid = e->d_name;
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string env = read_file("/proc/" + pid + "/environ");
    if (env.find(marker) == std::string::npos) continue;
    std::string comm = read_file("/proc/" + pid + "/comm");
    while (!comm.empty() && comm.back() == '\n') comm.pop_back();
    found.push_back(pid + " " + comm);
  }
  ::closedir(proc);
  return found;
}

// What a demo that did not finish is doing: each process of its run with its state and
// the kernel function it waits in, so a hang names its cause.
std::string hang_report(pid_t demo, const std::string& marker) {
  std::string out;
  std::vector<std::string> procs = processes_of_run(marker);
  procs.insert(procs.begin(), std::to_string(demo) + " run-demo");
  for (const auto& entry : procs) {
    const std::string pid = entry.substr(0, entry.find(' '));
    std::string stat = read_file("/proc/" + pid + "/stat"), wchan = read_file("/proc/" + pid + "/wchan");
    const auto close = stat.rfind(')');
    const std::string state = close == std::string::npos ? "?" : stat.substr(close + 2, 1);
    out += "  " + entry + " state " + state + " waiting in " + (wchan.empty() ? "-" : wchan) + "\n";
  }
  return out;
}

TEST(Demo, RunsEndToEndAndProvesEveryStep) {
  WEFT_SKIP_UNLESS(weft::testing::need_root());
  WEFT_SKIP_UNLESS(weft::testing::need_tools({"ibsim", "opensm", "prometheus", "kubectl", "dot", "jq", "curl", "python3"}));
  WEFT_SKIP_UNLESS(missing_binaries());

  weft::testing::TempDir out("weft-demo-test");
  const std::string run_dir = out.path() + "/run";
  Process demo({.argv = {source_path("tools/demo/run-demo"), "--out", out.path(), "--build-dir", WEFT_BINARY_DIR},
                .keep_stdin_open = false,
                .log_file = out.file("demo-output.log")});
  auto code = demo.wait(std::chrono::seconds(330));
  const std::string output = demo.output();
  ASSERT_TRUE(code.has_value()) << "the demo did not finish in 330 s; its processes:\n"
                                << hang_report(demo.pid(), "WEFT_DEMO_RUN=" + run_dir) << output;
  ASSERT_EQ(*code, 0) << output;
  EXPECT_NE(output.find("demo finished"), std::string::npos) << output;

  // No process of the run is left: ibsim, opensm, kube-lite, weft-*, prometheus, burners.
  std::vector<std::string> left;
  for (int i = 0; i < 20; ++i) {
    left = processes_of_run("WEFT_DEMO_RUN=" + run_dir);
    if (left.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(left.empty()) << "left running: " << ::testing::PrintToString(left);
  struct stat st;
  EXPECT_NE(::stat(("/sys/fs/cgroup/unified/weft-demo-" + std::to_string(demo.pid())).c_str(), &st), 0)
      << "the demo's cgroups were not removed";

  auto summary = nlohmann::json::parse(read_file(out.file("summary.json")), nullptr, false);
  ASSERT_FALSE(summary.is_discarded()) << "summary.json is not JSON";
  for (const char* field : {"fabrics", "nodes", "domains", "jobs", "evictions", "skipped", "replaced", "failover",
                            "steps", "hot_node", "gangs_whole", "duration_s", "spread", "defragment"})
    EXPECT_TRUE(summary.contains(field)) << "summary.json lacks " << field;

  // Two fabrics with different ids; fabric a had two SMs.
  ASSERT_EQ(summary["fabrics"].size(), 2u);
  EXPECT_NE(summary["fabrics"][0]["id"], summary["fabrics"][1]["id"]);
  EXPECT_EQ(summary["fabrics"][0]["sms"].size(), 2u);

  // Every step ran and held.
  ASSERT_EQ(summary["steps"].size(), 8u);   // the last: the rail unit (tools/demo/lib/rails.sh)
  for (const auto& s : summary["steps"]) EXPECT_TRUE(s["ok"].get<bool>()) << s.dump();

  // Jobs bound inside one fabric; the hard-tier job inside one leaf.
  std::set<std::string> jobs;
  for (const auto& j : summary["jobs"]) {
    const std::string name = j["name"];
    jobs.insert(name);
    for (const auto& p : j["pods"]) EXPECT_FALSE(p["node"].is_null()) << name << ": " << p.dump();
    if (j["kind"] != "plain") {
      EXPECT_EQ(j["fabrics"].size(), 1u) << name << " spans fabrics: " << j["fabrics"].dump();
      EXPECT_GE(j["running"].get<int>(), j["minMember"].get<int>()) << name;
    }
    if (j["kind"] == "hard-tier gang") {
      EXPECT_EQ(j["leaves"].size(), 1u) << name << " spans leaves: " << j["leaves"].dump();
    }
  }
  EXPECT_EQ(jobs, (std::set<std::string>{"allreduce", "train-a", "train-b", "web"}));

  // At least one eviction from the hot node; no gang broken; the evicted pods run again.
  const std::string hot = summary["hot_node"]["node"];
  int from_hot = 0;
  for (const auto& e : summary["evictions"])
    if (e["from"] == hot) ++from_hot;
  EXPECT_GE(from_hot, 1) << summary["evictions"].dump();
  EXPECT_TRUE(summary["gangs_whole"].get<bool>()) << summary["gang_problems"].dump();
  EXPECT_EQ(summary["replaced"].size(), summary["evictions"].size());
  for (const auto& r : summary["replaced"]) EXPECT_EQ(r["phase"], "Running") << r.dump();
  // The hot nodes hold a gang at minMember and a fabric-bound gang with no room left in
  // its fabric: the descheduler kept a pod of each, with the reason.
  std::set<std::string> skip_reasons;
  for (const auto& s : summary["skipped"]) skip_reasons.insert(s["reason"].get<std::string>());
  EXPECT_TRUE(skip_reasons.count("gang-min-member")) << summary["skipped"].dump();
  EXPECT_TRUE(skip_reasons.count("topology")) << summary["skipped"].dump();

  // The descheduler sized the pods it moved by their measured usage (the hot pods burn
  // far more than the 2 cores they request), not by their requests.
  for (const auto& e : summary["evictions"]) {
    EXPECT_EQ(e.value("sized_by", ""), "usage") << e.dump();
    ASSERT_TRUE(e.contains("cpu_request")) << e.dump();
    EXPECT_GT(e["cpu"].get<double>(), 1.25 * e["cpu_request"].get<double>()) << e.dump();
  }
  // The moved pods did not all pile onto one node while several low nodes could take them.
  std::set<std::string> destinations;
  for (const auto& r : summary["replaced"]) destinations.insert(r["to"].get<std::string>());
  EXPECT_EQ(summary["spread"]["moved"].get<size_t>(), summary["replaced"].size());
  if (summary["replaced"].size() >= 2 && summary["spread"]["low_nodes"].get<int>() >= 2) {
    EXPECT_GE(destinations.size(), 2u) << summary["replaced"].dump();
  }

  // GangDefragment: the hard-tier gang waited on a fabric where every leaf had some room
  // and none enough; the descheduler reserved one leaf on its PodGroup and evicted the
  // victims through the Eviction API; the gang bound inside the room, no victim in it before.
  const auto& dg = summary["defragment"];
  EXPECT_EQ(dg["gang"], "ml/allgather");
  int most_room = 0;
  for (const auto& l : dg["leaves_before"]) {
    EXPECT_LT(l["slots"].get<int>(), 6) << l.dump();
    most_room = std::max(most_room, l["slots"].get<int>());
  }
  EXPECT_GT(most_room, 0) << dg["leaves_before"].dump();
  std::set<std::string> reserved;
  for (const auto& n : dg["reserved_nodes"]) reserved.insert(n.get<std::string>());
  EXPECT_FALSE(reserved.empty()) << dg.dump();
  EXPECT_FALSE(dg.value("leaf", "").empty()) << dg.dump();
  ASSERT_GE(dg["evictions"].size(), 1u) << dg.dump();
  for (const auto& e : dg["evictions"]) {
    EXPECT_TRUE(e["eviction_api"].get<bool>()) << e.dump();
    EXPECT_TRUE(reserved.count(e["from"].get<std::string>())) << e.dump();
    // The room is the gang's until it has minMember pods bound; a victim re-created after
    // that may take what the gang left of it (times from kube-lite's request log).
    if (reserved.count(e.value("to", ""))) {
      EXPECT_GT(e.value("bound_at", ""), dg.value("gang_placed_at", "~")) << e.dump() << dg.dump();
    }
    EXPECT_EQ(e.value("phase", ""), "Running") << e.dump();
    EXPECT_LT(e.value("priority", 0), 1000) << e.dump();
  }
  ASSERT_EQ(dg["gang_pods"].size(), 6u) << dg.dump();
  for (const auto& p : dg["gang_pods"]) {
    EXPECT_TRUE(reserved.count(p.value("node", ""))) << p.dump();
    EXPECT_EQ(p["leaf"], dg["leaf"]) << p.dump();
    EXPECT_EQ(p["phase"], "Running") << p.dump();
  }

  // Fabric labels unchanged across the SM failover, and the SM did change.
  EXPECT_TRUE(summary["failover"]["labels_unchanged"].get<bool>());
  EXPECT_NE(summary["failover"]["old_master"], summary["failover"]["new_master"]);

  // The rail unit: one rail of one node down, every node in its rail group still, the gang where it was.
  const auto& rails = summary["rails"];
  ASSERT_FALSE(rails.empty()) << "summary.json lacks the rail unit";
  int degraded = 0;
  for (const auto& n : rails["nodes"]) {
    EXPECT_EQ(n["leaf"], n["leaf_before"]) << n.dump();
    EXPECT_EQ(n["leaf"], rails["nodes"][0]["leaf"]) << n.dump();
    if (n["name"] == rails["downed"]["node"]) {
      EXPECT_EQ(n["active"].get<int>(), n["rails"].get<int>() - 1) << n.dump();
      ++degraded;
    } else {
      EXPECT_EQ(n["active"], n["rails"]) << n.dump();
    }
  }
  EXPECT_EQ(degraded, 1) << rails.dump();
  for (const auto& p : rails["pods"]) EXPECT_EQ(p["phase"], "Running") << p.dump();

  // A valid picture naming the nodes and the hot one.
  const std::string svg = read_file(out.file("topology.svg"));
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  // Graphviz writes '-' in text as the entity &#45;.
  EXPECT_TRUE(svg.find("a-h0000") != std::string::npos || svg.find("a&#45;h0000") != std::string::npos);
  EXPECT_NE(svg.find("HOT"), std::string::npos);
  EXPECT_NE(svg.find("room reserved for ml/allgather"), std::string::npos);
  EXPECT_NE(svg.find("DEGRADED"), std::string::npos);   // the node with a rail down
  auto [xml_code, xml_out] = weft::testing::run_command({"python3", "-c",
      "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])", out.file("topology.svg")});
  EXPECT_EQ(xml_code, 0) << "topology.svg is not well-formed XML: " << xml_out;
}

}  // namespace
