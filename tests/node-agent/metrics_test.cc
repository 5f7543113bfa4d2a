#include "node-agent/daemon/metrics.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "node-agent/daemon/http_server.h"
#include "tests/node-agent/fakes.h"
#include "tests/support/process.h"

namespace weft::agent {
namespace {

using namespace std::chrono_literals;

void fill(AgentState& state) {
  auto ib = testing::make_ib("0xf", "0xa", "0xb", {testing::make_port("mlx5_0", 1, "ACTIVE", 100, "0x1")});
  ib.ports[0].role = "compute";
  ib.ports[0].gpus = {{"0000:13:00.0", "PIX"}, {"0000:93:00.0", "SYS"}};
  ib.rails = 8;
  ib.rails_active = 7;
  state.ib_ok(ib);
  auto load = testing::make_load(0.25, 0.5);
  load.reclaim_stall_seconds_total = 1.5;
  load.runq_histogram = LatencyHistogram{{1e-6, 1e-3, 1.0}, {3, 7, 9}, 10, 2.5};
  load.pods = {PodLoad{"team-a", "trainer-0", "u-1", "", 1.75, 3.5e9}, PodLoad{"default", "idle", "", "default-idle", 0.01, {}}};
  state.load_ok(load, std::chrono::system_clock::now());
}

TEST(Metrics, EveryDesignMetricHasHelpAndType) {
  AgentState state("n1");
  fill(state);
  AgentMetrics metrics(state, "1.2.3");
  metrics.ib_probe(0.2, true);
  const std::string text = metrics.render();
  for (const char* name :
       {"weft_ib_port_up", "weft_ib_port_rate_gbps", "weft_ib_port_info", "weft_ib_sm_info",
        "weft_ib_port_xmit_data_bytes_total", "weft_ib_probe_duration_seconds", "weft_node_cpu_busy_ratio",
        "weft_node_memory_used_ratio", "weft_node_runqueue_latency_seconds",
        "weft_node_memory_reclaim_stall_seconds_total", "weft_agent_load_source", "weft_agent_build_info",
        "weft_agent_probe_stale", "weft_agent_probe_errors_total", "weft_pod_cpu_usage_cores",
        "weft_pod_memory_usage_bytes"}) {
    EXPECT_NE(text.find(std::string("# HELP ") + name + " "), std::string::npos) << name;
    EXPECT_NE(text.find(std::string("# TYPE ") + name + " "), std::string::npos) << name;
  }
  EXPECT_NE(text.find("weft_node_runqueue_latency_seconds_bucket{le=\"+Inf\"} 10"), std::string::npos) << text;
  EXPECT_NE(text.find("weft_ib_port_info{device=\"mlx5_0\",fabric=\"0xf\",leaf=\"0xa\",link_layer=\"InfiniBand\","
                      "port=\"1\",port_guid=\"0x1\",role=\"compute\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("weft_ib_port_gpu_distance{class=\"SYS\",device=\"mlx5_0\",gpu=\"0000:93:00.0\",port=\"1\"} 4"),
            std::string::npos) << text;
  EXPECT_NE(text.find("weft_ib_rails{state=\"active\"} 7"), std::string::npos) << text;
  EXPECT_NE(text.find("weft_ib_rails{state=\"all\"} 8"), std::string::npos) << text;
  EXPECT_NE(text.find("weft_agent_build_info{version=\"1.2.3\"} 1"), std::string::npos);
}

// One series per pod of the last snapshot, named by namespace and pod; a pod without a
// memory reading has no memory series, and a snapshot without pods no pod family.
TEST(Metrics, PodSeriesFollowTheLastLoadSnapshot) {
  AgentState state("n1");
  fill(state);
  AgentMetrics metrics(state, "1.2.3");
  std::string text = metrics.render();
  EXPECT_NE(text.find("weft_pod_cpu_usage_cores{namespace=\"team-a\",pod=\"trainer-0\"} 1.75\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("weft_pod_cpu_usage_cores{namespace=\"default\",pod=\"idle\"} 0.01\n"), std::string::npos);
  EXPECT_NE(text.find("weft_pod_memory_usage_bytes{namespace=\"team-a\",pod=\"trainer-0\"} 3500000000\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("weft_pod_memory_usage_bytes{namespace=\"default\""), std::string::npos);
  auto load = testing::make_load(0.25, 0.5);
  load.pods = {PodLoad{"team-a", "trainer-0", "u-1", "", 0.5, 1e9}};
  state.load_ok(load, std::chrono::system_clock::now());
  text = metrics.render();
  EXPECT_EQ(text.find("pod=\"idle\""), std::string::npos) << text;
  EXPECT_NE(text.find("weft_pod_cpu_usage_cores{namespace=\"team-a\",pod=\"trainer-0\"} 0.5\n"), std::string::npos);
  state.load_ok(testing::make_load(0.25, 0.5), std::chrono::system_clock::now());
  EXPECT_EQ(metrics.render().find("weft_pod_"), std::string::npos);
}

// The real promtool lints the exposition exactly as a scrape would get it.
TEST(Metrics, PromtoolCheckMetricsReportsNothing) {
  WEFT_SKIP_UNLESS(weft::testing::need_tools({"promtool"}));
  AgentState state("n1");
  fill(state);
  AgentMetrics metrics(state, "1.2.3");
  metrics.ib_probe(0.2, true);
  metrics.load_sample(false);
  weft::testing::TempDir dir;
  weft::testing::write_file(dir.file("metrics.txt"), metrics.render());
  auto [code, out] = weft::testing::run_command({"sh", "-c", "promtool check metrics < " + dir.file("metrics.txt")});
  EXPECT_EQ(code, 0) << out;
  EXPECT_EQ(out, "") << out;
}

TEST(Flags, ListenAddresses) {
  auto a = parse_listen("0.0.0.0:9464");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "0.0.0.0");
  EXPECT_EQ(a->port, 9464);
  EXPECT_EQ(parse_listen("[::1]:80")->host, "::1");
  EXPECT_EQ(parse_listen(":9464")->host, "0.0.0.0");
  EXPECT_FALSE(parse_listen("9464").ok());
  EXPECT_FALSE(parse_listen("host:99999").ok());
}

}  // namespace
}  // namespace weft::agent
