// weft-descheduler end to end: a real Prometheus scraping per-node exposition text, a
// real kube-lite holding the cluster, and the binary's `plan` and `run`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "tests/support/kube_lite.h"
#include "tests/descheduler/plan_line.h"
#include "tests/support/process.h"
#include "tests/support/prometheus.h"
#include "kube/time.h"

namespace weft::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::string descheduler() { return binary("descheduler/weft-descheduler"); }

json node(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
          {"status",
           {{"allocatable", {{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "110"}}},
            {"capacity", {{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "110"}}},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json pod(const std::string& name, const std::string& node_name, const std::string& app, const std::string& cpu,
         int priority = 0) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", "default"},
            {"labels", {{"app", app}}},
            {"ownerReferences",
             json::array({{{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}, {"name", app}, {"uid", "rs-" + app},
                           {"controller", true}}})}}},
          {"spec",
           {{"nodeName", node_name},
            {"priority", priority},
            {"containers",
             json::array({{{"name", "c"}, {"image", "x"}, {"resources", {{"requests", {{"cpu", cpu}, {"memory", "1Gi"}}}}}}})}}},
          {"status", {{"phase", "Running"}, {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

// hot (100 % cpu) with six 3-core web pods behind a budget that allows one disruption
// (its status, as a disruption controller that has not caught up would leave it, says
// `allowed`), a high-priority pod and a system-critical pod; two cool nodes; `dark` has
// no metrics.
json scenario(int allowed = 2) {
  json items = json::array({node("hot"), node("cool-1"), node("cool-2"), node("dark")});
  for (int i = 0; i < 6; ++i) items.push_back(pod("web-" + std::to_string(i), "hot", "web", "3"));
  items.push_back(pod("vip", "hot", "vip", "1", 50000));
  json sys = pod("dns", "hot", "dns", "1", 2000000000);
  sys["metadata"]["namespace"] = "kube-system";
  items.push_back(sys);
  items.push_back({{"apiVersion", "policy/v1"},
                   {"kind", "PodDisruptionBudget"},
                   {"metadata", {{"name", "web"}, {"namespace", "default"}}},
                   {"spec", {{"minAvailable", 5}, {"selector", {{"matchLabels", {{"app", "web"}}}}}}},
                   {"status", {{"disruptionsAllowed", allowed}}}});
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
}

std::string policy(const std::string& prometheus_url) {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n"
         "  - name: DefaultEvictor\n    args: {priorityThreshold: {value: 10000}, nodeFit: true, ignorePvcPods: true}\n"
         "  - name: LoadAware\n    args:\n      thresholds: {cpu: 30, memory: 30}\n"
         "      targetThresholds: {cpu: 80, memory: 85}\n"
         "      metrics: {type: Prometheus, address: '" + prometheus_url + "', window: 30s}\n"
         "  plugins:\n    balance:\n      enabled: [LoadAware]\n";
}

std::string exposition(const std::string& node, double cpu, double memory) {
  return "# TYPE weft_node_cpu_busy_ratio gauge\nweft_node_cpu_busy_ratio{node=\"" + node + "\"} " + std::to_string(cpu) +
         "\n# TYPE weft_node_memory_used_ratio gauge\nweft_node_memory_used_ratio{node=\"" + node + "\"} " +
         std::to_string(memory) + "\n";
}

// The plan JSON line of a run's output (logs go to stderr, merged by run_command).
json plan_of(const std::string& output) {
  if (auto plan = plan_line(output)) return *plan;
  ADD_FAILURE() << "no plan JSON in:\n" << output;
  return json::object();
}

std::set<std::string> moves(const json& plan) {
  std::set<std::string> out;
  for (const auto& e : plan.value("evictions", json::array()))
    out.insert(e["pod"].get<std::string>() + " " + e["from"].get<std::string>() + "->" + e["to"].get<std::string>());
  return out;
}

std::string reason_of(const json& plan, const std::string& pod) {
  for (const auto& s : plan.value("skipped", json::array()))
    if (s["pod"] == pod) return s["reason"];
  return "";
}

// A real Prometheus scraping three nodes' exposition (dark has none), and kube-lite
// holding the scenario.
class DeschedulerE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    WEFT_SKIP_UNLESS(Prometheus::need());
    WEFT_SKIP_UNLESS(KubeLite::need());
    agents_.set("/hot", exposition("hot", 1.0, 0.3));
    agents_.set("/cool-1", exposition("cool-1", 0.10, 0.1));
    agents_.set("/cool-2", exposition("cool-2", 0.15, 0.1));
    PrometheusOptions po;
    for (const char* n : {"hot", "cool-1", "cool-2"}) po.targets.push_back({agents_.address(), std::string("/") + n, {}});
    prom_ = std::make_unique<Prometheus>(po);
    ASSERT_EQ(prom_->error(), "");
    ASSERT_TRUE(prom_->wait_for_series("max by (node) (timestamp(weft_node_memory_used_ratio))", 3, 30s))
        << prom_->output();
    write_file(dir_.file("scenario.json"), scenario().dump());
    write_file(dir_.file("policy.yaml"), policy(prom_->url()));
    api_ = std::make_unique<KubeLite>(KubeLiteOptions{.state = dir_.file("scenario.json")});
    ASSERT_EQ(api_->error(), "");
  }

  std::pair<int, std::string> run(std::vector<std::string> extra) {
    std::vector<std::string> argv = {descheduler(), "run", "--policy", dir_.file("policy.yaml"), "--kubeconfig",
                                     api_->kubeconfig(), "--once", "--state-configmap", "default/ds-state"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv, 60s);
  }

  TempDir dir_{"descheduler-e2e"};
  ExpositionServer agents_;
  std::unique_ptr<Prometheus> prom_;
  std::unique_ptr<KubeLite> api_;
};

TEST_F(DeschedulerE2E, PlanAndDryRunAgreeOnRealPrometheusAndKubeLite) {
  auto [pcode, pout] = run_command({descheduler(), "plan", dir_.file("scenario.json"), "--policy",
                                    dir_.file("policy.yaml"), "--load", "prometheus=" + prom_->url()});
  ASSERT_EQ(pcode, 0) << pout;
  json planned = plan_of(pout);
  auto [rcode, rout] = run({"--dry-run"});
  ASSERT_EQ(rcode, 0) << rout;
  json dry = plan_of(rout);
  EXPECT_EQ(moves(planned), moves(dry)) << planned.dump(2) << "\n" << dry.dump(2);
  // 16 cores busy, 3-core pods: two go to get below 80 %.
  EXPECT_EQ(planned["evictions"].size(), 2u) << planned.dump(2);
  for (const auto& n : planned["nodes"]) {
    if (n["name"] == "dark") {
      EXPECT_EQ(n["class"], "unknown");
    }
    if (n["name"] == "hot") {
      EXPECT_EQ(n["class"], "high");
    }
    if (n["name"] == "cool-1") {
      EXPECT_EQ(n["class"], "low");
    }
  }
  for (const auto& e : planned["evictions"]) EXPECT_NE(e["to"], "dark");
  EXPECT_EQ(reason_of(planned, "default/vip"), "priority-threshold");
  EXPECT_EQ(reason_of(planned, "kube-system/dns"), "system-critical");
  // Dry run: every pod is still there and no state was written.
  for (int i = 0; i < 6; ++i)
    EXPECT_TRUE(api_->client().get(kube::resources::pods(), "default", "web-" + std::to_string(i)).ok());
  EXPECT_FALSE(api_->client().get(kube::resources::configmaps(), "default", "ds-state").ok());
  // Evictions were never requested.
  for (const auto& r : api_->requests()) EXPECT_EQ(r["path"].get<std::string>().find("/eviction"), std::string::npos);
}

TEST_F(DeschedulerE2E, RunOnceEvictsThroughTheApiAndRespectsTheBudget) {
  auto [code, out] = run({});
  ASSERT_EQ(code, 0) << out;
  json done = plan_of(out);
  // The budget's stale status allows two, so two are planned; the API allows one: the
  // first web pod goes, the second is refused with a 429 and stays a skip.
  ASSERT_EQ(done["evictions"].size(), 1u) << done.dump(2);
  std::string gone = done["evictions"][0]["pod"];
  std::string refused;
  for (const auto& s : done["skipped"])
    if (s["reason"].get<std::string>().rfind("pdb", 0) == 0) refused = s["pod"];
  ASSERT_NE(refused, "") << done.dump(2);
  auto name = [](const std::string& key) { return key.substr(key.find('/') + 1); };
  auto evicted = api_->client().get(kube::resources::pods(), "default", name(gone));
  EXPECT_TRUE(!evicted.ok() || (*evicted)["metadata"].contains("deletionTimestamp")) << "evicted pod still running";
  EXPECT_TRUE(api_->client().get(kube::resources::pods(), "default", name(refused)).ok());
  int eviction_posts = 0;
  for (const auto& r : api_->requests())
    if (r["path"].get<std::string>().find("/eviction") != std::string::npos) ++eviction_posts;
  EXPECT_EQ(eviction_posts, 2) << "a 429 must not be retried";
  // The state ConfigMap remembers the move; the next run (a new process) honours it.
  auto cm = api_->client().get(kube::resources::configmaps(), "default", "ds-state");
  ASSERT_TRUE(cm.ok()) << cm.message();
  json state = json::parse((*cm)["data"]["state.json"].get<std::string>());
  EXPECT_TRUE(state["workloads"].contains("ReplicaSet/default/web")) << state.dump();
  EXPECT_TRUE(state["sources"].contains("hot"));
  auto [code2, out2] = run({});
  ASSERT_EQ(code2, 0) << out2;
  json again = plan_of(out2);
  EXPECT_TRUE(again["evictions"].empty()) << again.dump(2);
  EXPECT_EQ(reason_of(again, "default/" + name(refused)), "source-resting") << again.dump(2);
}

// As upstream, every eviction is a Normal Event (reason: the plugin, action Descheduled);
// with evictionFailureEventNotification a limit's refusal is a Warning "EvictionFailed"
// naming the limit, and the API's refusal (the budget's 429) one with its message.
TEST_F(DeschedulerE2E, RunOnceRecordsAnEventPerEvictionAndPerRefusal) {
  std::string text = policy(prom_->url());
  text.insert(text.find("profiles:"), "evictionFailureEventNotification: true\nmaxNoOfPodsToEvictPerNode: 1\n");
  write_file(dir_.file("policy.yaml"), text);
  auto [code, out] = run({});
  ASSERT_EQ(code, 0) << out;
  json done = plan_of(out);
  ASSERT_EQ(done["evictions"].size(), 1u) << done.dump(2);
  auto events = api_->client().list(kube::resources::events(), "default");
  ASSERT_TRUE(events) << events.message();
  std::vector<json> normal, warning;
  std::string all;
  for (const auto& e : events->items) {
    (e["type"] == "Normal" ? normal : warning).push_back(e);
    all += e.dump() + "\n";
  }
  ASSERT_EQ(normal.size(), 1u) << all;
  EXPECT_EQ(normal[0]["reason"], "LoadAware");
  EXPECT_EQ(normal[0]["action"], "Descheduled");
  EXPECT_EQ(normal[0]["message"], "pod eviction from hot node by weft-descheduler");
  EXPECT_EQ("default/" + normal[0]["involvedObject"]["name"].get<std::string>(), done["evictions"][0]["pod"]);
  std::set<std::string> refusals;
  for (const auto& e : warning) {
    EXPECT_EQ(e["reason"], "EvictionFailed");
    refusals.insert(e["message"].get<std::string>());
  }
  EXPECT_TRUE(refusals.count("pod eviction from hot node by weft-descheduler failed: node eviction limit exceeded (1)"))
      << all;
  // Without the notification only the eviction is recorded.
  text.replace(text.find("evictionFailureEventNotification: true"), 38, "evictionFailureEventNotification: false");
  write_file(dir_.file("policy.yaml"), text);
  api_ = std::make_unique<KubeLite>(KubeLiteOptions{.state = dir_.file("scenario.json")});
  ASSERT_EQ(api_->error(), "");
  auto [code2, out2] = run({});
  ASSERT_EQ(code2, 0) << out2;
  auto quiet = api_->client().list(kube::resources::events(), "default");
  ASSERT_TRUE(quiet) << quiet.message();
  ASSERT_EQ(quiet->items.size(), 1u);
  EXPECT_EQ(quiet->items[0]["type"], "Normal");
}

// run reads the budgets from the API: one that allows no disruption plans no eviction.
TEST_F(DeschedulerE2E, RunPlansWithinTheApisBudgets) {
  write_file(dir_.file("exhausted.json"), scenario(0).dump());
  api_ = std::make_unique<KubeLite>(KubeLiteOptions{.state = dir_.file("exhausted.json")});
  ASSERT_EQ(api_->error(), "");
  auto [code, out] = run({"--dry-run"});
  ASSERT_EQ(code, 0) << out;
  json plan = plan_of(out);
  EXPECT_TRUE(plan["evictions"].empty()) << plan.dump(2);
  EXPECT_EQ(reason_of(plan, "default/web-0"), "pdb") << plan.dump(2);
}

TEST_F(DeschedulerE2E, StoppedAgentsMakeNodesUnknown) {
  // hot's exposition disappears: after its series go stale it is unknown, not idle.
  agents_.remove("/hot");
  ASSERT_TRUE(prom_->wait_for_series("max by (node) (timestamp(weft_node_cpu_busy_ratio))", 2, 20s));
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (prom_->series_count("max by (node) (timestamp(weft_node_cpu_busy_ratio))") > 2 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(200ms);
  auto [code, out] = run({"--dry-run"});
  ASSERT_EQ(code, 0) << out;
  json plan = plan_of(out);
  for (const auto& n : plan["nodes"])
    if (n["name"] == "hot") {
      EXPECT_EQ(n["class"], "unknown") << plan.dump(2);
    }
  EXPECT_TRUE(plan["evictions"].empty());
}

TEST_F(DeschedulerE2E, AStoppedMemorySeriesMakesItsNodeUnknown) {
  // cool-1 keeps reporting cpu but its memory series stops: its averaged memory still has
  // samples inside the window, yet it is no longer known and takes no pods.
  agents_.set("/cool-1", "# TYPE weft_node_cpu_busy_ratio gauge\nweft_node_cpu_busy_ratio{node=\"cool-1\"} 0.1\n");
  const std::string memory_newest = "max by (node) (timestamp(weft_node_memory_used_ratio))";
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (prom_->series_count(memory_newest) > 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(200ms);
  ASSERT_EQ(prom_->series_count(memory_newest), 2) << prom_->output();
  ASSERT_EQ(prom_->series_count("max by (node) (timestamp(weft_node_cpu_busy_ratio))"), 3);
  auto [code, out] = run({"--dry-run"});
  ASSERT_EQ(code, 0) << out;
  json plan = plan_of(out);
  std::map<std::string, std::string> cls;
  for (const auto& n : plan["nodes"]) cls[n["name"]] = n["class"];
  EXPECT_EQ(cls["cool-1"], "unknown") << plan.dump(2);
  EXPECT_EQ(cls["cool-2"], "low") << plan.dump(2);
  EXPECT_EQ(cls["hot"], "high") << plan.dump(2);
  EXPECT_FALSE(plan["evictions"].empty()) << plan.dump(2);
  for (const auto& e : plan["evictions"]) EXPECT_EQ(e["to"], "cool-2") << plan.dump(2);
}

TEST_F(DeschedulerE2E, IntervalModeServesMetricsAndHoldsTheLease) {
  Process proc({.argv = {descheduler(), "run", "--policy", dir_.file("policy.yaml"), "--kubeconfig", api_->kubeconfig(),
                         "--interval", "1s", "--dry-run", "--metrics-listen", "127.0.0.1:0", "--lease", "default/ds-lease"},
                .keep_stdin_open = false});
  auto line = proc.wait_for_line(std::regex("metrics on http://127.0.0.1:[0-9]+/metrics"), 20s);
  ASSERT_TRUE(line.has_value()) << proc.output();
  std::smatch m;
  std::regex_search(*line, m, std::regex("http://127.0.0.1:[0-9]+/metrics"));
  std::string url = m.str();
  std::string body;
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    body = http_get(url).second;
    if (body.find("weft_descheduler_nodes{class=\"high\",plugin=\"LoadAware\",profile=\"p\"} 1") != std::string::npos)
      break;
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_NE(body.find("weft_descheduler_nodes{class=\"high\",plugin=\"LoadAware\",profile=\"p\"} 1"), std::string::npos)
      << body << proc.output();
  EXPECT_NE(body.find("weft_descheduler_nodes{class=\"unknown\",plugin=\"LoadAware\",profile=\"p\"} 1"),
            std::string::npos)
      << body;
  // The Kubernetes descheduler's own series, under its names and labels (a dry run counts
  // its evictions as successes, as upstream).
  EXPECT_TRUE(std::regex_search(body, std::regex("descheduler_pods_evicted_total\\{namespace=\"[^\"]+\",node=\"hot\","
                                                 "profile=\"p\",result=\"success\",strategy=\"LoadAware\"\\} [1-9]")))
      << body;
  EXPECT_NE(body.find("descheduler_loop_duration_seconds_count"), std::string::npos) << body;
  EXPECT_NE(body.find("descheduler_strategy_duration_seconds_count{profile=\"p\",strategy=\"LoadAware\"}"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("weft_descheduler_evictions_total{dry_run=\"true\",reason=\"high-load\"}"), std::string::npos)
      << body;
  EXPECT_NE(body.find("weft_descheduler_skips_total{reason=\"priority-threshold\"}"), std::string::npos) << body;
  EXPECT_NE(body.find("weft_descheduler_cycle_duration_seconds_count"), std::string::npos);
  auto lease = api_->client().get(kube::ResourceRef{"coordination.k8s.io", "v1", "leases", true}, "default", "ds-lease");
  ASSERT_TRUE(lease.ok()) << lease.message();
  EXPECT_NE((*lease)["spec"].value("holderIdentity", ""), "");
  EXPECT_EQ(proc.stop(5s), 0) << proc.output();
}

// No Prometheus at all: zero evictions, every node unknown, and a log line that says so.
TEST(DeschedulerCli, PrometheusDownMeansZeroEvictionsAndAClearLine) {
  TempDir dir("descheduler-cli");
  write_file(dir.file("scenario.json"), scenario().dump());
  std::string url = "http://127.0.0.1:" + std::to_string(free_port());
  write_file(dir.file("policy.yaml"), policy(url));
  auto [code, out] = run_command({descheduler(), "plan", dir.file("scenario.json"), "--policy", dir.file("policy.yaml"),
                                  "--load", "prometheus=" + url});
  ASSERT_EQ(code, 0) << out;
  json plan = plan_of(out);
  EXPECT_TRUE(plan["evictions"].empty());
  for (const auto& n : plan["nodes"]) EXPECT_EQ(n["class"], "unknown");
  EXPECT_NE(out.find("load source prometheus " + url + " is down"), std::string::npos) << out;
}

TEST(DeschedulerCli, PlanFromAFileAndBadInput) {
  TempDir dir("descheduler-cli");
  write_file(dir.file("scenario.json"), scenario().dump());
  write_file(dir.file("policy.yaml"), policy("http://unused:9090"));
  write_file(dir.file("load.json"),
             R"({"nodes":[{"name":"hot","cpu":1.0,"memory":0.3,"at":"2026-11-23T10:00:00Z"},
                          {"name":"cool-1","cpu":0.1,"memory":0.1,"at":"2026-11-23T10:00:00Z"},
                          {"name":"cool-2","cpu":0.1,"memory":0.1,"at":"2026-11-23T09:00:00Z"}]})");
  auto [code, out] = run_command({descheduler(), "plan", dir.file("scenario.json"), "--policy", dir.file("policy.yaml"),
                                  "--load", "file=" + dir.file("load.json"), "--now", "2026-11-23T10:01:00Z"});
  ASSERT_EQ(code, 0) << out;
  json plan = plan_of(out);
  ASSERT_EQ(plan["evictions"].size(), 2u) << plan.dump(2);
  for (const auto& e : plan["evictions"]) EXPECT_EQ(e["to"], "cool-1");   // cool-2's sample is an hour old
  auto [tcode, table] = run_command({descheduler(), "plan", dir.file("scenario.json"), "--policy", dir.file("policy.yaml"),
                                     "--load", "file=" + dir.file("load.json"), "--now", "2026-11-23T10:01:00Z",
                                     "--output", "table"});
  EXPECT_EQ(tcode, 0);
  EXPECT_NE(table.find("2 eviction(s)"), std::string::npos) << table;

  write_file(dir.file("bad.yaml"), "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofilez: []\n");
  auto [bcode, bout] = run_command({descheduler(), "plan", dir.file("scenario.json"), "--policy", dir.file("bad.yaml"),
                                    "--load", "annotations"});
  EXPECT_EQ(bcode, 1);
  EXPECT_NE(bout.find("profilez: unknown field"), std::string::npos) << bout;
  auto [lcode, lout] = run_command({descheduler(), "plan", dir.file("scenario.json"), "--policy",
                                    dir.file("policy.yaml"), "--load", "file=" + dir.file("missing.json")});
  EXPECT_EQ(lcode, 1);
  EXPECT_NE(lout.find("missing.json"), std::string::npos) << lout;
  auto [scode, sout] = run_command({descheduler(), "run", "--policy", dir.file("policy.yaml"), "--once",
                                    "--kubeconfig", dir.file("nope.kubeconfig")});
  EXPECT_EQ(scode, 1);
  EXPECT_NE(sout.find("nope.kubeconfig"), std::string::npos) << sout;
}

// LowNodeUtilization on metrics-server's usage through kube-lite (which serves NodeMetrics
// and PodMetrics read-only): hot is 90 % busy though its pods request 1 core each; fresh
// usage moves pods to cool, the same usage ten minutes old moves nothing.
json kubernetes_metrics_scenario(const std::string& at) {
  json items = json::array({node("hot"), node("cool")});
  auto usage = [&](const std::string& kind, const std::string& name, const std::string& cpu) {
    json m = {{"apiVersion", "metrics.k8s.io/v1beta1"}, {"kind", kind}, {"metadata", {{"name", name}}},
              {"timestamp", at}, {"window", "20s"}};
    json u = {{"cpu", cpu}, {"memory", "1Gi"}};
    if (kind == "NodeMetrics") m["usage"] = u;
    else m["containers"] = json::array({{{"name", "c"}, {"usage", u}}}), m["metadata"]["namespace"] = "default";
    return m;
  };
  items.push_back(usage("NodeMetrics", "hot", "14400m"));
  items.push_back(usage("NodeMetrics", "cool", "800m"));
  for (int i = 0; i < 4; ++i) {
    items.push_back(pod("busy-" + std::to_string(i), "hot", "busy", "1"));
    items.push_back(usage("PodMetrics", "busy-" + std::to_string(i), "3500m"));
  }
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
}

TEST(DeschedulerKubernetesMetrics, RunListsMetricsServerUsageAndNeverActsOnStaleUsage) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  TempDir dir("descheduler-kmetrics");
  write_file(dir.file("policy.yaml"),
             "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nmetricsProviders:\n- source: KubernetesMetrics\n"
             "profiles:\n- name: p\n  pluginConfig:\n  - name: LowNodeUtilization\n    args:\n"
             "      thresholds: {cpu: 20, memory: 20}\n      targetThresholds: {cpu: 60, memory: 60}\n"
             "      metricsUtilization: {source: KubernetesMetrics}\n"
             "  plugins:\n    balance:\n      enabled: [LowNodeUtilization]\n");
  auto run = [&](const std::string& at) {
    write_file(dir.file("s.json"), kubernetes_metrics_scenario(at).dump());
    KubeLite api(KubeLiteOptions{.state = dir.file("s.json")});
    EXPECT_EQ(api.error(), "");
    kube::ResourceRef node_metrics{"metrics.k8s.io", "v1beta1", "nodes", false};
    auto listed = api.client().list(node_metrics, "");
    EXPECT_TRUE(listed.ok() && listed->items.size() == 2u) << (listed.ok() ? "" : listed.message());
    EXPECT_FALSE(api.client().create(node_metrics, "", {{"apiVersion", "metrics.k8s.io/v1beta1"},
                                                        {"kind", "NodeMetrics"},
                                                        {"metadata", {{"name", "x"}}}}).ok());   // read-only
    auto [code, out] = run_command({descheduler(), "run", "--policy", dir.file("policy.yaml"), "--kubeconfig",
                                    api.kubeconfig(), "--once", "--dry-run", "--state-configmap", "default/ds-state"},
                                   60s);
    EXPECT_EQ(code, 0) << out;
    return plan_of(out);
  };
  json fresh = run(kube::format_rfc3339(std::chrono::system_clock::now() - 10s));
  EXPECT_FALSE(fresh["evictions"].empty()) << fresh.dump(2);
  for (const auto& e : fresh["evictions"]) EXPECT_EQ(e["from"], "hot") << fresh.dump(2);
  json stale = run(kube::format_rfc3339(std::chrono::system_clock::now() - 10min));
  EXPECT_TRUE(stale["evictions"].empty()) << stale.dump(2);
  for (const auto& n : stale["nodes"]) EXPECT_EQ(n["class"], "unknown") << stale.dump(2);   // why: stale (debug log)
}

// LowNodeUtilization on metrics-server's usage, averaged by the metrics collector.
std::string collector_policy() {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nmetricsCollector: {enabled: true}\n"
         "profiles:\n- name: p\n  pluginConfig:\n  - name: LowNodeUtilization\n    args:\n"
         "      thresholds: {cpu: 20, memory: 20}\n      targetThresholds: {cpu: 60, memory: 60}\n"
         "      metricsUtilization: {metricsServer: true}\n"
         "  plugins:\n    balance:\n      enabled: [LowNodeUtilization]\n";
}

// run --interval averages metrics-server's node usage between cycles, as upstream's
// metrics collector: NodeMetrics are read every 5 s on the collector's own client (not once
// per cycle), PodMetrics once per cycle, and the cycles still act on hot.
TEST(DeschedulerKubernetesMetrics, IntervalCyclesPlanOnTheCollectorsAverage) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  TempDir dir("descheduler-kmetrics-interval");
  write_file(dir.file("policy.yaml"), collector_policy());
  write_file(dir.file("s.json"), kubernetes_metrics_scenario(kube::format_rfc3339(std::chrono::system_clock::now())).dump());
  KubeLite api(KubeLiteOptions{.state = dir.file("s.json")});
  ASSERT_EQ(api.error(), "");
  Process p({.argv = {descheduler(), "run", "--policy", dir.file("policy.yaml"), "--kubeconfig", api.kubeconfig(),
                      "--interval", "1s", "--dry-run", "--no-leader-elect", "--metrics-listen", ""},
             .keep_stdin_open = false});
  // Seven cycles (a plan line each, --dry-run) over about seven seconds.
  std::vector<json> plans;
  for (int i = 0; i < 150 && plans.size() < 7; ++i) {
    std::this_thread::sleep_for(100ms);
    plans.clear();
    std::istringstream lines(p.output());
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("{\"evictions\"", 0) == 0) plans.push_back(json::parse(line));
  }
  ASSERT_GE(plans.size(), 7u) << p.output();
  for (const auto& plan : plans) EXPECT_FALSE(plan["evictions"].empty()) << plan.dump();
  p.stop(5s);
  int node_lists = 0, pod_lists = 0;
  for (const auto& r : api.requests()) {
    const std::string path = r.value("path", "");
    node_lists += path == "/apis/metrics.k8s.io/v1beta1/nodes" ? 1 : 0;
    pod_lists += path == "/apis/metrics.k8s.io/v1beta1/pods" ? 1 : 0;
  }
  EXPECT_GE(pod_lists, 7);
  EXPECT_GE(node_lists, 1);
  EXPECT_LE(node_lists, 3) << "node usage is read every 5 s by the collector, not by each cycle";
}

// As upstream, metrics-server's node usage is collected only while the replica leads: one
// that waits for a Lease another holds lists no NodeMetrics.
TEST(DeschedulerKubernetesMetrics, TheCollectorReadsOnlyWhileLeading) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  TempDir dir("descheduler-kmetrics-follower");
  write_file(dir.file("policy.yaml"), collector_policy());
  const std::string now = kube::format_rfc3339(std::chrono::system_clock::now());
  json scenario = kubernetes_metrics_scenario(now);
  scenario["items"].push_back({{"apiVersion", "coordination.k8s.io/v1"},
                               {"kind", "Lease"},
                               {"metadata", {{"namespace", "default"}, {"name", "ds-lease"}}},
                               {"spec",
                                {{"holderIdentity", "another-replica"},
                                 {"leaseDurationSeconds", 3600},
                                 {"acquireTime", now},
                                 {"renewTime", now}}}});
  write_file(dir.file("s.json"), scenario.dump());
  KubeLite api(KubeLiteOptions{.state = dir.file("s.json")});
  ASSERT_EQ(api.error(), "");
  Process p({.argv = {descheduler(), "run", "--policy", dir.file("policy.yaml"), "--kubeconfig", api.kubeconfig(),
                      "--interval", "1s", "--lease", "default/ds-lease", "--metrics-listen", ""},
             .keep_stdin_open = false});
  // The lease is tried (a get at least) while the collector would have read at once.
  bool tried = false;
  for (int i = 0; i < 100 && !tried; ++i) {
    std::this_thread::sleep_for(100ms);
    for (const auto& r : api.requests()) tried |= r.value("path", "").find("/leases/ds-lease") != std::string::npos;
  }
  std::this_thread::sleep_for(2s);
  p.stop(5s);
  ASSERT_TRUE(tried) << p.output();
  for (const auto& r : api.requests()) EXPECT_NE(r.value("path", ""), "/apis/metrics.k8s.io/v1beta1/nodes") << p.output();
}

}  // namespace
}  // namespace weft::testing
