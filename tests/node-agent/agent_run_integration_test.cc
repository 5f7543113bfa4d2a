// `weft-agent run` against real peers: an ibsim fabric with OpenSM, kube-lite holding
// the Nodes (with bearer-token rules and its request log), a real Prometheus scraping
// the agents, promtool on /metrics, and API faults through a switchable proxy.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <tuple>
#include <iostream>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/load/pod_group.h"
#include "tests/node-agent/api_proxy.h"
#include "tests/support/kube_lite.h"
#include "tests/support/process.h"

namespace weft::agent {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using weft::testing::KubeLite;
using weft::testing::Process;
using weft::testing::TempDir;

const char* kUmad2sim = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";
const char* kWeftAgent = "node-agent/weft-agent";

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout, std::chrono::milliseconds step = 200ms) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(step);
  }
  return pred();
}

std::string need_agent() {
  auto path = weft::testing::binary(kWeftAgent);
  if (!std::ifstream(path)) return "weft-agent not built (" + path + ")";
  auto [code, out] = weft::testing::run_command({path, "run", "--help"}, 10s);
  if (code != 0) return "this weft-agent has no `run` (collectors not built)";
  return "";
}

// Two leaves under one spine; node1 and node2 on leaf1, node3 on leaf2, OpenSM on smhost.
const char* kFabric = R"(switchguid=0x0000000000000b01
Switch 8 "spine1"
[1] "leaf1"[7]
[2] "leaf2"[7]

switchguid=0x0000000000000a01
Switch 8 "leaf1"
[1] "node1"[1]
[2] "node2"[1]
[3] "smhost"[1]
[7] "spine1"[1]

switchguid=0x0000000000000a02
Switch 8 "leaf2"
[1] "node3"[1]
[7] "spine1"[2]

caguid=0x0000000000001001
Hca 1 "node1"
[1] "leaf1"[1]

caguid=0x0000000000001002
Hca 1 "node2"
[1] "leaf1"[2]

caguid=0x0000000000001003
Hca 1 "node3"
[1] "leaf2"[1]

caguid=0x0000000000001f00
Hca 1 "smhost"
[1] "leaf1"[3]
)";

// ibsim on the fabric above with OpenSM as master; stopped SM first, then ibsim.
struct Fabric {
  TempDir dir{"weft-agent-fabric"};
  std::string sock = "weft-agent-" + std::to_string(getpid());
  std::unique_ptr<Process> ibsim, opensm;
  std::string error;

  Fabric() {
    weft::testing::write_file(dir.file("fabric.net"), kFabric);
    ibsim = std::make_unique<Process>(Process::Options{.argv = {"ibsim", "-s", dir.file("fabric.net")},
                                                       .env = {{"IBSIM_SOCKNAME", sock}}});
    if (!ibsim->wait_for_line(std::regex("Network simulator ready"), 15s)) {
      error = "ibsim did not start: " + ibsim->output();
      return;
    }
    opensm = std::make_unique<Process>(Process::Options{
        .argv = {"opensm", "-f", dir.file("opensm.log"), "--sweep", "1"},
        .env = sim_env("smhost"),
        .keep_stdin_open = false});
    if (!opensm->wait_for_line(std::regex("Entering MASTER state"), 30s)) {
      error = "opensm did not become master: " + opensm->output();
    }
  }
  ~Fabric() {
    if (opensm) opensm->stop(2s);
    if (ibsim) ibsim->stop(2s);
  }
  std::map<std::string, std::string> sim_env(const std::string& host) const {
    return {{"LD_PRELOAD", kUmad2sim}, {"SIM_HOST", host}, {"IBSIM_SOCKNAME", sock}, {"OSM_CACHE_DIR", dir.path()}};
  }
  void console(const std::string& command) { ibsim->write_stdin(command + "\n"); }
};

std::string node_yaml(const std::string& name) {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
         "\n  labels:\n    kubernetes.io/hostname: " + name + "\n    team: infra\n    weft.dev/ib-spine: \"0xstale\"\n"
         "  annotations:\n    example.com/owner: ops\n";
}

// A token per agent that may get/list/watch/patch nodes, and change only its own
// Node's weft.dev/ keys (kube-lite's nodeRestriction, the rule the
// ValidatingAdmissionPolicy in deploy/ gives a real cluster).
std::string tokens_json(const std::vector<std::string>& nodes) {
  json list = json::array();
  for (const auto& n : nodes) {
    list.push_back({{"token", "agent-" + n},
                    {"user", "system:serviceaccount:weft-system:weft-agent"},
                    {"groups", {"system:serviceaccounts"}},
                    {"extra", {{"authentication.kubernetes.io/node-name", {n}}}},
                    {"rules", {{{"verbs", {"get", "list", "watch", "patch"}}, {"apiGroups", {""}},
                                {"resources", {"nodes"}}}}},
                    {"nodeRestriction", {{"node", n}, {"keyPrefixes", {"weft.dev/"}}}}});
  }
  list.push_back({{"token", "admin"}, {"user", "admin"}, {"groups", {"system:masters"}},
                  {"rules", {{{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}}}}});
  return list.dump(2);
}

struct Agent {
  std::string node;
  int port = 0;
  std::unique_ptr<Process> process;
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port) + path; }
};

Agent start_agent(const std::string& node, const std::string& kubeconfig, std::map<std::string, std::string> env,
                  std::vector<std::string> extra = {}) {
  Agent a;
  a.node = node;
  a.port = weft::testing::free_port();
  std::vector<std::string> argv = {weft::testing::binary(kWeftAgent), "run", "--node-name", node,
                                   "--listen", "127.0.0.1:" + std::to_string(a.port),
                                   "--ib-interval", "2s", "--load-interval", "1s", "--load-backend", "procfs",
                                   "--heartbeat", "10m", "--load-threshold", "1"};
  if (!kubeconfig.empty()) argv.insert(argv.end(), {"--kubeconfig", kubeconfig});
  else argv.push_back("--no-publish");
  argv.insert(argv.end(), extra.begin(), extra.end());
  a.process = std::make_unique<Process>(Process::Options{.argv = argv, .env = std::move(env), .keep_stdin_open = false});
  return a;
}

json get_node(weft::kube::Client& client, const std::string& name) {
  auto n = client.get(weft::kube::resources::nodes(), "", name);
  return n ? n.value() : json();
}

std::map<std::string, std::string> weft_labels(const json& node) {
  std::map<std::string, std::string> out;
  auto meta = node.find("metadata");
  if (meta == node.end()) return out;
  auto labels = meta->find("labels");
  if (labels == meta->end() || !labels->is_object()) return out;
  for (auto it = labels->begin(); it != labels->end(); ++it)
    if (it.key().rfind("weft.dev/", 0) == 0 && it->is_string()) out[it.key()] = it->get<std::string>();
  return out;
}

int patches_of(KubeLite& api, const std::string& node) {
  int n = 0;
  for (const auto& r : api.requests())
    if (r.value("verb", "") == "PATCH" && r.value("path", "") == "/api/v1/nodes/" + node) ++n;
  return n;
}

TEST(AgentRun, LabelsTokensPrometheusOnAnIbsimFabric) {
  WEFT_SKIP_UNLESS(weft::testing::need_tools({"ibsim", "opensm", "prometheus", "promtool"}));
  WEFT_SKIP_UNLESS(need_agent());
  WEFT_SKIP_UNLESS(KubeLite::need());
  if (!std::ifstream(kUmad2sim)) GTEST_SKIP() << kUmad2sim << " missing (ibsim-utils)";

  Fabric fabric;
  ASSERT_EQ(fabric.error, "");
  const std::vector<std::string> nodes = {"node1", "node2", "node3"};
  TempDir dir;
  std::string state;
  for (const auto& n : nodes) state += node_yaml(n) + "---\n";
  weft::testing::write_file(dir.file("nodes.yaml"), state);
  weft::testing::write_file(dir.file("tokens.json"), tokens_json(nodes));
  KubeLite api({.state = dir.file("nodes.yaml"), .tokens = dir.file("tokens.json")});
  ASSERT_EQ(api.error(), "");
  auto admin = api.client_for_token("admin");

  std::vector<Agent> agents;
  for (const auto& n : nodes)
    agents.push_back(start_agent(n, api.kubeconfig_for_token("agent-" + n, n), fabric.sim_env(n)));

  // Ready after the first probe.
  for (auto& a : agents) {
    ASSERT_TRUE(eventually([&] { return weft::testing::http_get(a.url("/readyz")).first == 200; }, 20s))
        << a.node << ":\n" << a.process->output();
  }
  // Within one probe interval (2 s) of being ready, every Node carries its weft.dev/ keys.
  auto converged = [&](const std::string& n, const std::string& leaf) {
    auto node = admin->get(weft::kube::resources::nodes(), "", n);
    if (!node) return false;
    auto l = weft_labels(*node);
    return l["weft.dev/rdma"] == "ib" && l["weft.dev/ib-leaf"] == leaf &&
           l["weft.dev/ib-spine"] == "0x0000000000000b01" && !l["weft.dev/ib-fabric"].empty() &&
           (*node)["metadata"]["annotations"].contains("weft.dev/load");
  };
  ASSERT_TRUE(eventually([&] { return converged("node1", "0x0000000000000a01"); }, 4s)) << agents[0].process->output();
  ASSERT_TRUE(eventually([&] { return converged("node2", "0x0000000000000a01"); }, 4s)) << agents[1].process->output();
  ASSERT_TRUE(eventually([&] { return converged("node3", "0x0000000000000a02"); }, 4s)) << agents[2].process->output();
  std::set<std::string> fabrics;
  for (const auto& n : nodes) {
    auto node = *admin->get(weft::kube::resources::nodes(), "", n);
    const auto& labels = node["metadata"]["labels"];
    fabrics.insert(labels["weft.dev/ib-fabric"].get<std::string>());
    EXPECT_EQ(labels["team"], "infra") << n;                         // foreign labels untouched
    EXPECT_EQ(labels["kubernetes.io/hostname"], n);
    EXPECT_EQ(node["metadata"]["annotations"]["example.com/owner"], "ops");
    auto ports = json::parse(node["metadata"]["annotations"]["weft.dev/ib-ports"].get<std::string>());
    ASSERT_EQ(ports.size(), 1u) << ports;
    EXPECT_EQ(ports[0]["state"], "ACTIVE");
    EXPECT_EQ(labels["weft.dev/ib-rate-gbps"], fmt::format("{}", ports[0]["rate_gbps"].get<double>()));
    auto load = json::parse(node["metadata"]["annotations"]["weft.dev/load"].get<std::string>());
    EXPECT_EQ(load["source"], "procfs");
    EXPECT_GE(load["cpu"].get<double>(), 0.0);
    EXPECT_LE(load["cpu"].get<double>(), 1.0);
  }
  EXPECT_EQ(fabrics.size(), 1u);

  // Nothing changes for two more probe rounds: no PATCH in kube-lite's log.
  std::map<std::string, int> before;
  for (const auto& n : nodes) before[n] = patches_of(api, n);
  std::this_thread::sleep_for(4500ms);
  for (const auto& n : nodes) EXPECT_EQ(patches_of(api, n), before[n]) << n;
  // Every agent request was made as the agent's service account, and its PATCHes went
  // only to its own Node.
  for (const auto& r : api.requests()) {
    if (r.value("verb", "") != "PATCH") continue;
    EXPECT_EQ(r.value("user", ""), "system:serviceaccount:weft-system:weft-agent") << r;
    EXPECT_EQ(r.value("status", 0), 200) << r;
  }

  // The bearer-token rules: node1's agent token may not patch node2, nor a foreign key.
  {
    auto as_node1 = api.client_for_token("agent-node1");
    auto other = as_node1->patch(weft::kube::resources::nodes(), "", "node2",
                                 json{{"metadata", {{"labels", {{"weft.dev/ib-leaf", "0xevil"}}}}}});
    ASSERT_FALSE(other.ok());
    EXPECT_EQ(other.error().code, 403) << other.message();
    auto foreign = as_node1->patch(weft::kube::resources::nodes(), "", "node1",
                                   json{{"metadata", {{"labels", {{"team", "mine"}}}}}});
    ASSERT_FALSE(foreign.ok());
    EXPECT_EQ(foreign.error().code, 403) << foreign.message();
    EXPECT_EQ(get_node(*admin, "node2")["metadata"]["labels"]["weft.dev/ib-leaf"], "0x0000000000000a01");
  }

  // promtool finds nothing to complain about in a live /metrics.
  {
    auto [status, body] = weft::testing::http_get(agents[0].url("/metrics"));
    ASSERT_EQ(status, 200);
    weft::testing::write_file(dir.file("metrics.txt"), body);
    auto [code, out] = weft::testing::run_command({"sh", "-c", "promtool check metrics < " + dir.file("metrics.txt")});
    EXPECT_EQ(code, 0) << out;
    EXPECT_EQ(out, "");
    auto probe = json::parse(weft::testing::http_get(agents[0].url("/probe")).second);
    EXPECT_EQ(probe["node"], "node1");
    EXPECT_EQ(probe["rdma"], "ib");
    EXPECT_EQ(probe["ib"]["leaf"], "0x0000000000000a01");
  }

  // A real Prometheus scrapes the three agents; its API has both series for each node.
  {
    const int prom_port = weft::testing::free_port();
    std::string targets;
    for (const auto& a : agents)
      targets += "  - targets: ['127.0.0.1:" + std::to_string(a.port) + "']\n    labels: {node: " + a.node + "}\n";
    weft::testing::write_file(dir.file("prometheus.yml"),
                              "global: {scrape_interval: 1s, scrape_timeout: 900ms}\n"
                              "scrape_configs:\n- job_name: weft-agent\n  static_configs:\n" + targets);
    Process prom({.argv = {"prometheus", "--config.file=" + dir.file("prometheus.yml"),
                           "--storage.tsdb.path=" + dir.file("tsdb"),
                           "--web.listen-address=127.0.0.1:" + std::to_string(prom_port)},
                  .keep_stdin_open = false});
    const std::string base = "http://127.0.0.1:" + std::to_string(prom_port);
    ASSERT_TRUE(eventually([&] { return weft::testing::http_get(base + "/-/ready").first == 200; }, 20s))
        << prom.output();
    for (const char* metric : {"weft_node_cpu_busy_ratio", "weft_ib_port_up"}) {
      std::set<std::string> seen;
      eventually(
          [&] {
            auto [status, body] = weft::testing::http_get(base + "/api/v1/query?query=" + metric);
            auto j = json::parse(body, nullptr, false);
            if (status != 200 || j.is_discarded()) return false;
            seen.clear();
            for (const auto& r : j["data"]["result"]) seen.insert(r["metric"].value("node", ""));
            return seen.size() == nodes.size();
          },
          15s);
      EXPECT_EQ(seen, std::set<std::string>(nodes.begin(), nodes.end())) << metric;
    }
  }

  // node3's link goes away: its port is DOWN and its leaf/spine keys disappear within
  // a probe interval or two; the foreign keys stay.
  fabric.console("Unlink \"node3\"[1]");
  ASSERT_TRUE(eventually(
      [&] {
        auto l = weft_labels(get_node(*admin, "node3"));
        return l.count("weft.dev/rdma") && !l.count("weft.dev/ib-leaf") && !l.count("weft.dev/ib-spine");
      },
      8s))
      << weft_labels(get_node(*admin, "node3")).size() << "\n" << agents[2].process->output();
  auto node3 = get_node(*admin, "node3");
  EXPECT_EQ(node3["metadata"]["labels"]["team"], "infra");
  auto ports = json::parse(node3["metadata"]["annotations"]["weft.dev/ib-ports"].get<std::string>());
  EXPECT_NE(ports[0]["state"], "ACTIVE");
  auto [status, metrics] = weft::testing::http_get(agents[2].url("/metrics"));
  EXPECT_NE(metrics.find("weft_ib_port_up{device="), std::string::npos);
  EXPECT_NE(metrics.find("} 0\n"), std::string::npos);

  // SIGTERM: each agent stops cleanly and quickly.
  for (auto& a : agents) {
    const auto start = std::chrono::steady_clock::now();
    ::kill(a.process->pid(), SIGTERM);
    auto code = a.process->wait(5s);
    ASSERT_TRUE(code.has_value()) << a.node << " did not exit within 5 s";
    EXPECT_EQ(*code, 0) << a.process->output();
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  }
}

// One Node "solo" in kube-lite, reached through a fault proxy in the given mode, and a
// kubeconfig for the agent that points at the proxy.
// Interval flags are Go durations (kube/duration.h): malformed or too short ones stop
// the agent at start with the flag named.
TEST(AgentRun, BadIntervalFlagsAreRefusedAtStart) {
  WEFT_SKIP_UNLESS(need_agent());
  for (const auto& [flag, value, expect] :
       std::vector<std::tuple<std::string, std::string, std::string>>{{"--ib-interval", "1.2.3s", "1.2.3s"},
                                                                      {"--load-interval", "5", "5"},
                                                                      {"--heartbeat", "50ms", "--heartbeat"},
                                                                      {"--pod-cgroup-root", "/no/such/group", "/no/such/group"}}) {
    auto [code, out] = weft::testing::run_command(
        {weft::testing::binary(kWeftAgent), "run", "--node-name", "x", "--no-publish", flag, value}, 10s);
    EXPECT_EQ(code, 2) << flag << " " << value << ": " << out;
    EXPECT_NE(out.find(flag), std::string::npos) << out;
    EXPECT_NE(out.find(expect), std::string::npos) << out;
  }
}

// The agents behind it run with --no-pod-metrics: the proxy is for short calls, and a
// watch of pods would hold it (and its shutdown) for minutes.
struct SoloApi {
  TempDir dir;
  std::unique_ptr<KubeLite> api;
  std::unique_ptr<testing::ApiProxy> proxy;
  std::string kubeconfig;

  explicit SoloApi(testing::ApiProxy::Mode mode) {
    weft::testing::write_file(dir.file("nodes.yaml"), node_yaml("solo"));
    api = std::make_unique<KubeLite>(weft::testing::KubeLiteOptions{.state = dir.file("nodes.yaml")});
    if (!api->error().empty()) return;
    proxy = std::make_unique<testing::ApiProxy>("127.0.0.1", api->port());
    proxy->set_mode(mode);
    kubeconfig = api->kubeconfig_for_token("unused", "solo");
    const std::string text = weft::testing::read_file(kubeconfig);
    weft::testing::write_file(kubeconfig, std::regex_replace(text, std::regex(api->url()), proxy->url()));
  }
};

// The value of one series in a /metrics text, or nullopt when it is not there.
std::optional<double> series_value(const std::string& metrics, const std::string& series) {
  std::istringstream in(metrics);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  return std::nullopt;
}

std::string pod_series(const std::string& metric, const std::string& ns, const std::string& pod) {
  return metric + "{namespace=\"" + ns + "\",pod=\"" + pod + "\"}";
}

// What the pod tests need: the agent, kube-lite, root and cgroup v2 (mounts are filled).
std::string need_pod_groups(weft::load::testing::CgroupMounts& mounts) {
  for (const std::string& reason : {need_agent(), KubeLite::need(), weft::testing::need_root()}) {
    if (!reason.empty()) return reason;
  }
  mounts = weft::load::testing::cgroup_mounts();
  return mounts.v2.empty() ? "no cgroup2 file system mounted" : "";
}

// Real pods' groups laid out as kubelet's cgroupfs driver does, one burning a CPU with
// 64 MiB touched and one sleeping, named by pods in kube-lite (one bound elsewhere):
// the agent, with a token that may only read pods, publishes each pod's usage under
// its namespace and name, and drops a pod's series when its group goes and when the
// pod leaves the API.
TEST(AgentRun, PodUsageSeriesFollowThePodsOnTheNode) {
  weft::load::testing::CgroupMounts mounts;
  WEFT_SKIP_UNLESS(need_pod_groups(mounts));
  TempDir dir;
  weft::testing::write_file(dir.file("nodes.yaml"), node_yaml("solo") + "---\n" + node_yaml("other"));
  json tokens = json::parse(tokens_json({"solo"}));
  tokens[0]["rules"].push_back({{"verbs", {"get", "list", "watch"}}, {"apiGroups", {""}}, {"resources", {"pods"}}});
  weft::testing::write_file(dir.file("tokens.json"), tokens.dump(2));
  KubeLite api({.state = dir.file("nodes.yaml"), .tokens = dir.file("tokens.json")});
  ASSERT_EQ(api.error(), "");
  auto admin = api.client_for_token("admin");
  auto make_pod = [&](const std::string& ns, const std::string& name, const std::string& node) {
    json p = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}, {"namespace", ns}}},
              {"spec", {{"nodeName", node}, {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
    auto made = admin->create(weft::kube::resources::pods(), ns, p);
    EXPECT_TRUE(made) << made.message();
    return made ? made->at("metadata").value("uid", "") : std::string();
  };
  ASSERT_TRUE(admin->create(weft::kube::resources::namespaces(), "",
                            {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "team-a"}}}}));
  const std::string burner = make_pod("team-a", "burner", "solo");
  const std::string sleeper = make_pod("default", "sleeper", "solo");
  const std::string elsewhere = make_pod("default", "elsewhere", "other");
  ASSERT_FALSE(burner.empty() || sleeper.empty() || elsewhere.empty());

  weft::load::testing::CgroupTree tree(mounts, "weft-agent-pods-" + std::to_string(getpid()));
  const std::string burner_group = "kubepods/burstable/pod" + burner;
  const std::string sleeper_group = "kubepods/besteffort/pod" + sleeper;
  // A group for the pod on the other node: found here, but not this node's pod.
  const std::string stray_group = "kubepods/pod" + elsewhere;
  ASSERT_TRUE(tree.make(burner_group) && tree.make(sleeper_group) && tree.make(stray_group)) << tree.error();
  weft::load::testing::PodProcess burn(tree.v2(burner_group), tree.memory_v1(burner_group), true, 64);
  auto sleep = std::make_unique<weft::load::testing::PodProcess>(tree.v2(sleeper_group),
                                                                  tree.memory_v1(sleeper_group), false, 1);
  ASSERT_EQ(burn.error(), "");
  ASSERT_EQ(sleep->error(), "");

  Agent a = start_agent("solo", api.kubeconfig_for_token("agent-solo", "solo"), {},
                        {"--ib-backend", "verbs", "--pod-cgroup-root", tree.v2("kubepods")});
  const std::string burner_cpu = pod_series("weft_pod_cpu_usage_cores", "team-a", "burner");
  const std::string sleeper_cpu = pod_series("weft_pod_cpu_usage_cores", "default", "sleeper");
  std::string metrics;
  ASSERT_TRUE(eventually(
      [&] {
        metrics = weft::testing::http_get(a.url("/metrics")).second;
        // However busy this shared machine is, the spinner gets a fair part of a CPU.
        return series_value(metrics, burner_cpu).value_or(0) > 0.05 && series_value(metrics, sleeper_cpu);
      },
      30s))
      << metrics << a.process->output();
  std::printf("burning pod %.3f cores, sleeping pod %.4f cores\n", *series_value(metrics, burner_cpu),
              *series_value(metrics, sleeper_cpu));
  EXPECT_LT(*series_value(metrics, sleeper_cpu), 0.02);
  EXPECT_EQ(metrics.find("pod=\"elsewhere\""), std::string::npos);
  if (tree.has_memory()) {
    auto mem = series_value(metrics, pod_series("weft_pod_memory_usage_bytes", "team-a", "burner"));
    ASSERT_TRUE(mem) << metrics;
    EXPECT_GE(*mem, 16.0 * 1048576);
    EXPECT_LE(*mem, 80.0 * 1048576);
  }
  // The sleeping pod's group goes (its pod is still in the API): its series go.
  sleep.reset();
  ASSERT_EQ(rmdir(tree.v2(sleeper_group).c_str()), 0) << std::strerror(errno);
  EXPECT_TRUE(eventually(
      [&] {
        metrics = weft::testing::http_get(a.url("/metrics")).second;
        return !series_value(metrics, sleeper_cpu) && series_value(metrics, burner_cpu);
      },
      10s))
      << metrics;
  // The burning pod leaves the API (its group lingers): its series go too.
  ASSERT_TRUE(admin->remove(weft::kube::resources::pods(), "team-a", "burner"));
  EXPECT_TRUE(eventually(
      [&] {
        metrics = weft::testing::http_get(a.url("/metrics")).second;
        return metrics.find("weft_pod_") == std::string::npos;
      },
      10s))
      << metrics;
  EXPECT_TRUE(a.process->running()) << a.process->output();
}

// The demo's simulated node: its load is its group's (--load-cgroup), its pods are
// weft-node-runtime's pod-<namespace>-<name> groups inside it, named the same way.
TEST(AgentRun, PodUsageOfADemoNodeByRuntimeNames) {
  weft::load::testing::CgroupMounts mounts;
  WEFT_SKIP_UNLESS(need_pod_groups(mounts));
  TempDir dir;
  weft::testing::write_file(dir.file("nodes.yaml"), node_yaml("host-1"));
  KubeLite api({.state = dir.file("nodes.yaml")});
  ASSERT_EQ(api.error(), "");
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "trainer-0"}, {"namespace", "default"}}},
              {"spec", {{"nodeName", "host-1"}, {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
  ASSERT_TRUE(api.client().create(weft::kube::resources::pods(), "default", pod));
  weft::load::testing::CgroupTree tree(mounts, "weft-agent-demo-" + std::to_string(getpid()));
  ASSERT_TRUE(tree.make("host-1/pod-default-trainer-0")) << tree.error();
  weft::load::testing::PodProcess burn(tree.v2("host-1/pod-default-trainer-0"), "", true, 0);
  ASSERT_EQ(burn.error(), "");
  Agent a = start_agent("host-1", api.kubeconfig(), {},
                        {"--ib-backend", "verbs", "--load-cgroup", tree.v2("host-1"), "--load-cgroup-cpus", "1"});
  const std::string cpu = pod_series("weft_pod_cpu_usage_cores", "default", "trainer-0");
  std::string metrics;
  ASSERT_TRUE(eventually(
      [&] {
        metrics = weft::testing::http_get(a.url("/metrics")).second;
        return series_value(metrics, cpu).value_or(0) > 0.05;
      },
      30s))
      << metrics << a.process->output();
  // The node's own load is the same group's CPU time, over its one core.
  EXPECT_GT(series_value(metrics, "weft_node_cpu_busy_ratio").value_or(0), 0.05) << metrics;
  std::printf("demo node: pod %.3f cores, node busy %.3f\n", *series_value(metrics, cpu),
              *series_value(metrics, "weft_node_cpu_busy_ratio"));
}

// For a minute the API answers 500 (30 s) and then nothing at all (30 s); the agent
// keeps running and backs off (a bounded number of attempts, no busy loop), and once
// the API is back the labels converge.
TEST(AgentRun, ApiErrorsThenRecoveryConverges) {
  WEFT_SKIP_UNLESS(need_agent());
  WEFT_SKIP_UNLESS(KubeLite::need());
  SoloApi solo(testing::ApiProxy::Mode::Fail500);
  ASSERT_EQ(solo.api->error(), "");
  auto& api = *solo.api;
  auto& proxy = *solo.proxy;
  const std::string& kubeconfig = solo.kubeconfig;

  // No HCA here (verbs finds none): the agent publishes weft.dev/rdma=none and the load.
  Agent a = start_agent("solo", kubeconfig, {}, {"--ib-backend", "verbs", "--no-pod-metrics"});
  ASSERT_TRUE(eventually([&] { return proxy.failed() >= 3; }, 15s)) << a.process->output();
  std::this_thread::sleep_for(30s);
  // Exponential backoff from 0.5 s: ~7 publish attempts in 35 s, each a read and the
  // client's own retries (18 requests measured); a busy loop would be hundreds.
  std::printf("API answered 500 %d times in the first 30+ s\n", proxy.failed());
  EXPECT_LE(proxy.failed(), 30) << a.process->output();
  EXPECT_TRUE(a.process->running());
  proxy.set_mode(testing::ApiProxy::Mode::Hang);   // timeouts now
  std::this_thread::sleep_for(30s);
  EXPECT_TRUE(a.process->running());
  EXPECT_EQ(weft::testing::http_get(a.url("/healthz")).first, 200);
  EXPECT_EQ(patches_of(api, "solo"), 0);
  auto metrics = weft::testing::http_get(a.url("/metrics")).second;
  EXPECT_EQ(metrics.find("weft_agent_node_publish_errors_total 0"), std::string::npos) << metrics;

  proxy.set_mode(testing::ApiProxy::Mode::Forward);
  // The backoff is capped at 30 s, so the next attempt comes within it.
  ASSERT_TRUE(eventually(
      [&] {
        auto n = get_node(api.client(), "solo");
        return weft_labels(n)["weft.dev/rdma"] == "none" &&
               n["metadata"]["annotations"].contains("weft.dev/load");
      },
      40s))
      << a.process->output();
  auto n = get_node(api.client(), "solo");
  EXPECT_EQ(n["metadata"]["labels"]["team"], "infra");
  EXPECT_FALSE(n["metadata"]["labels"].contains("weft.dev/ib-spine"));   // its own stale key removed
  EXPECT_EQ(n["metadata"]["annotations"]["example.com/owner"], "ops");
}

// SIGTERM while a PATCH is in flight (held by the proxy): the agent exits 0 within 5 s
// and the Node is as it was (a merge patch is all or nothing).
TEST(AgentRun, SigtermDuringAPatchExitsWithinFiveSeconds) {
  WEFT_SKIP_UNLESS(need_agent());
  WEFT_SKIP_UNLESS(KubeLite::need());
  SoloApi solo(testing::ApiProxy::Mode::HangPatch);
  ASSERT_EQ(solo.api->error(), "");
  auto& api = *solo.api;
  auto& proxy = *solo.proxy;
  const std::string& kubeconfig = solo.kubeconfig;

  Agent a = start_agent("solo", kubeconfig, {}, {"--ib-backend", "verbs", "--no-pod-metrics"});
  ASSERT_TRUE(eventually([&] { return proxy.held_patches() >= 1; }, 15s)) << a.process->output();
  const auto start = std::chrono::steady_clock::now();
  ::kill(a.process->pid(), SIGTERM);
  auto code = a.process->wait(6s);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(code.has_value()) << "still running 6 s after SIGTERM\n" << a.process->output();
  EXPECT_EQ(*code, 0) << a.process->output();
  EXPECT_LT(took, 5s);
  auto n = get_node(api.client(), "solo");
  EXPECT_EQ(n["metadata"]["labels"]["weft.dev/ib-spine"], "0xstale");   // untouched: the patch never landed
  EXPECT_FALSE(n["metadata"]["annotations"].contains("weft.dev/load"));
}

}  // namespace
}  // namespace weft::agent
