// What an operator scrapes and looks at: `weft-scheduler run` serves /metrics, /healthz and
// /readyz with the figures the issue asks for; the metrics of all three binaries pass
// `promtool check metrics`; every expression of deploy/grafana/weft.json names only
// metrics the binaries export.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/deploy/render.h"
#include "tests/support/ibsim.h"
#include "tests/support/kube_lite.h"
#include "kube/time.h"
#include "tests/support/process.h"

namespace weft::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

std::string need_binaries() {
  if (auto r = KubeLite::need(); !r.empty()) return r;
  for (const char* b : {"scheduler/weft-scheduler", "descheduler/weft-descheduler", "node-agent/weft-agent"})
    if (!std::filesystem::exists(binary(b))) return std::string(b) + " is not built";
  return "";
}

// Waits for "metrics on http://HOST:PORT/metrics" in the process's output; "" on timeout.
std::string metrics_url(Process& p) {
  auto line = p.wait_for_line(std::regex("metrics on http://[0-9.]+:[0-9]+/metrics"), 20s);
  if (!line) return "";
  std::smatch m;
  std::regex_search(*line, m, std::regex("http://[0-9.]+:[0-9]+"));
  return m.str();
}

// Polls url/metrics until `done` holds for the text (or 30 s); returns the last text.
std::string scrape_until(const std::string& url, const std::function<bool(const std::string&)>& done) {
  std::string body;
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < until) {
    body = http_get(url + "/metrics").second;
    if (done(body)) break;
    std::this_thread::sleep_for(200ms);
  }
  return body;
}

// The value of the first sample whose line starts with `series` (name and labels).
double sample(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  return -1;
}

// Metric names a text exposition offers: every family (# TYPE) with the series names a
// histogram or summary adds, and every sample name.
std::set<std::string> exported_names(const std::string& text) {
  std::set<std::string> names;
  std::istringstream in(text);
  static const std::regex type_line(R"(^# TYPE (\S+) (\S+))"), sample_line(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*))");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, type_line)) {
      names.insert(m[1]);
      if (m[2] == "histogram" || m[2] == "summary")
        for (const char* suffix : {"_bucket", "_sum", "_count"}) names.insert(m[1].str() + suffix);
    } else if (std::regex_search(line, m, sample_line)) {
      names.insert(m[1]);
    }
  }
  return names;
}

std::pair<int, std::string> promtool_check(const std::string& text) {
  TempDir dir("promtool");
  write_file(dir.file("metrics.txt"), text);
  return run_command({"bash", "-c", "promtool check metrics < " + dir.file("metrics.txt")});
}

// promtool's lint findings, less those on series weft serves under the Kubernetes
// descheduler's own names and labels (descheduler_build_info's labels are CamelCase there):
// a dashboard written for upstream keeps working, so these are not renamed.
std::string lint_beyond_upstream_names(const std::string& out) {
  std::string kept;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (line != "descheduler_build_info label names should be written in 'snake_case' not 'camelCase'") kept += line + "\n";
  return kept;
}

// weft-scheduler run on a scenario where a gang reclaims from another queue, plus one pod
// that fits nowhere (a resource no node has, so it does not change the queues' cpu
// shares); returns its /metrics once the gang is bound.
struct SchedulerScrape {
  std::string metrics, output;
  int healthz = 0, readyz = 0;
};

SchedulerScrape scrape_scheduler() {
  SchedulerScrape s;
  KubeLite api({.state = source_path("tests/scheduler-run/scenarios/reclaim_ib.yaml")});
  if (!api.error().empty()) {
    s.output = api.error();
    return s;
  }
  auto huge = api.client().create(
      kube::resources::pods(), "default",
      json{{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata", {{"name", "too-big"}, {"namespace", "default"}}},
           {"spec",
            {{"schedulerName", "weft"},
             {"containers", json::array({{{"name", "c"}, {"image", "busybox"},
                                          {"resources", {{"requests", {{"cpu", "100m"}, {"example.com/fpga", "1"}}}}}}})}}}});
  if (!huge) {
    s.output = huge.message();
    return s;
  }
  Process p({.argv = {binary("scheduler/weft-scheduler"), "run", "--kubeconfig", api.kubeconfig(), "--period", "150ms",
                      "--metrics-listen", "127.0.0.1:0"},
             .keep_stdin_open = false});
  const std::string url = metrics_url(p);
  if (url.empty()) {
    s.output = p.output();
    return s;
  }
  s.metrics = scrape_until(url, [](const std::string& t) {
    return sample(t, "weft_scheduler_gang_wait_seconds_count") >= 1 && sample(t, "weft_scheduler_reclaims_total") >= 1;
  });
  s.healthz = http_get(url + "/healthz").first;
  s.readyz = http_get(url + "/readyz").first;
  p.stop(3s);
  s.output = p.output();
  return s;
}

TEST(SchedulerRun, ServesMetricsHealthAndReadiness) {
  WEFT_SKIP_UNLESS(need_binaries());
  SchedulerScrape s = scrape_scheduler();
  ASSERT_FALSE(s.metrics.empty()) << s.output;
  const std::string& m = s.metrics;
  EXPECT_EQ(s.healthz, 200);
  EXPECT_EQ(s.readyz, 200);
  EXPECT_EQ(sample(m, "weft_scheduler_build_info{version=\"" + project_version() + "\"}"), 1) << m;
  EXPECT_EQ(sample(m, "weft_scheduler_leader"), 1) << m;
  EXPECT_GE(sample(m, "weft_scheduler_cycles_total"), 1) << m;
  EXPECT_GE(sample(m, "weft_scheduler_cycle_duration_seconds_count"), 1) << m;
  // The gang of 4 is bound after reclaiming from team-a: e2e latency for each pod, one gang wait.
  EXPECT_GE(sample(m, "weft_scheduler_pods_bound_total"), 4) << m;
  EXPECT_GE(sample(m, "weft_scheduler_e2e_scheduling_duration_seconds_count"), 4) << m;
  EXPECT_EQ(sample(m, "weft_scheduler_gang_wait_seconds_count"), 1) << m;
  EXPECT_GE(sample(m, "weft_scheduler_reclaims_total"), 1) << m;
  EXPECT_EQ(sample(m, "weft_scheduler_preemptions_total"), 0) << m;
  EXPECT_EQ(sample(m, "weft_scheduler_unschedulable_pods{reason=\"NotEnoughResources\"}"), 1) << m << s.output;
  EXPECT_GE(sample(m, "weft_scheduler_pending_pods"), 1) << m;
  // Queue figures per resource, cpu in cores: team-b's gang holds 16 cores after the reclaim.
  EXPECT_EQ(sample(m, "weft_scheduler_queue_allocated{queue=\"team-b\",resource=\"cpu\"}"), 16) << m;
  EXPECT_GT(sample(m, "weft_scheduler_queue_deserved{queue=\"team-b\",resource=\"cpu\"}"), 0) << m;
  EXPECT_GE(sample(m, "weft_scheduler_queue_share{queue=\"team-a\",resource=\"cpu\"}"), 0) << m;
  EXPECT_EQ(sample(m, "weft_scheduler_queue_weight{queue=\"team-b\"}"), 1) << m;
  if (need_tools({"promtool"}).empty()) {
    auto [rc, out] = promtool_check(m);
    EXPECT_EQ(rc, 0) << out;
    EXPECT_EQ(out, "") << out;
  }
}

// Every metric name in the dashboard's expressions and variables.
std::vector<std::pair<std::string, std::string>> dashboard_metrics(const json& dash) {
  std::vector<std::pair<std::string, std::string>> out;   // {metric, expression}
  std::vector<std::string> exprs;
  for (const auto& p : dash["panels"])
    for (const auto& t : p.value("targets", json::array())) exprs.push_back(t.value("expr", ""));
  for (const auto& v : dash["templating"]["list"])
    if (v.value("type", "") == "query") exprs.push_back(v["query"].is_string() ? v["query"].get<std::string>()
                                                                               : v["query"].value("query", ""));
  static const std::regex name(R"(\bweft_[a-z0-9_]+)");
  for (const auto& e : exprs) {
    EXPECT_TRUE(std::regex_search(e, name)) << "an expression without a weft metric: " << e;
    for (auto it = std::sregex_iterator(e.begin(), e.end(), name); it != std::sregex_iterator(); ++it)
      out.push_back({it->str(), e});
  }
  return out;
}

TEST(Dashboard, EveryExpressionNamesAMetricTheBinariesExport) {
  WEFT_SKIP_UNLESS(need_binaries());
  WEFT_SKIP_UNLESS(need_ibsim());
  WEFT_SKIP_UNLESS(need_tools({"promtool"}));
  const json dash = json::parse(read_file(source_path("deploy/grafana/weft.json")));
  ASSERT_EQ(dash.value("uid", ""), "weft-overview");

  // The agent on an ibsim fabric (IB families exist only with ports).
  std::string error;
  TempDir dir("/dev/shm/weft-dashboard");
  write_file(dir.file("fabric.net"), kOneLeafFabric);
  auto sim = IbSim::start(dir.file("fabric.net"), &error);
  ASSERT_TRUE(sim) << error;
  sim->start_sm({.host = "smhost", .priority = 14});
  ASSERT_TRUE(sim->wait_subnet_up(30s)) << sim->sm_output(0);
  const int agent_port = free_port();
  Process agent({.argv = {binary("node-agent/weft-agent"), "run", "--node-name", "node1", "--no-publish", "--listen",
                          "127.0.0.1:" + std::to_string(agent_port), "--load-interval", "1s", "--ib-interval", "2s"},
                 .env = sim->env_for("node1"),
                 .cwd = dir.path(),
                 .keep_stdin_open = false});
  const std::string agent_url = "http://127.0.0.1:" + std::to_string(agent_port);
  std::string agent_metrics = scrape_until(agent_url, [](const std::string& t) {
    return t.find("weft_ib_port_up{") != std::string::npos && t.find("weft_node_cpu_busy_ratio ") != std::string::npos;
  });

  // The descheduler (Deployment form) against kube-lite, with the policy deploy/ ships, on
  // a hot node and a cool one (their agents' load annotations): it plans evictions and
  // skips the high-priority pod, so its eviction and skip families have series.
  write_file(dir.file("cluster.json"), hot_and_cool_cluster().dump());
  KubeLite api({.state = dir.file("cluster.json")});
  ASSERT_EQ(api.error(), "");
  Rendered r = kustomize(source_path("deploy/descheduler/interval"));
  ASSERT_EQ(r.error, "");
  write_file(dir.file("policy.yaml"), find_object(r, "ConfigMap", "weft-descheduler-policy")["data"]["policy.yaml"].as<std::string>());
  Process desched({.argv = {binary("descheduler/weft-descheduler"), "run", "--policy", dir.file("policy.yaml"),
                            "--kubeconfig", api.kubeconfig(), "--interval", "1s", "--dry-run", "--load", "annotations",
                            "--no-leader-elect", "--metrics-listen", "127.0.0.1:0"},
                   .keep_stdin_open = false});
  const std::string desched_url = metrics_url(desched);
  ASSERT_FALSE(desched_url.empty()) << desched.output();
  std::string desched_metrics = scrape_until(desched_url, [](const std::string& t) {
    return t.find("weft_descheduler_evictions_total{") != std::string::npos &&
           t.find("weft_descheduler_skips_total{") != std::string::npos;
  });
  SchedulerScrape sched = scrape_scheduler();
  ASSERT_FALSE(sched.metrics.empty()) << sched.output;

  std::set<std::string> exported;
  const std::vector<std::pair<std::string, const std::string*>> texts = {
      {"weft-agent", &agent_metrics}, {"weft-descheduler", &desched_metrics}, {"weft-scheduler", &sched.metrics}};
  for (const auto& [who, text] : texts) {
    auto [rc, out] = promtool_check(*text);
    const std::string lint = lint_beyond_upstream_names(out);
    EXPECT_TRUE(rc == 0 || (rc == 3 && lint.empty())) << who << ": promtool exited " << rc << ":\n" << out;
    EXPECT_EQ(lint, "") << who << ":\n" << out;
    for (const auto& n : exported_names(*text)) exported.insert(n);
  }
  ASSERT_NE(agent_metrics.find("weft_ib_port_up{"), std::string::npos) << agent_metrics << agent.output();
  std::set<std::string> used;
  for (const auto& [metric, expr] : dashboard_metrics(dash)) {
    EXPECT_TRUE(exported.count(metric)) << metric << " is exported by no binary; in: " << expr;
    used.insert(metric);
  }
  EXPECT_GE(used.size(), 30u);
}

}  // namespace
}  // namespace weft::testing
