#include "node-agent/daemon/daemon.h"

#include <gtest/gtest.h>

#include "node-agent/daemon/http_server.h"
#include "tests/node-agent/fakes.h"
#include "tests/support/process.h"

namespace weft::agent {
namespace {

using namespace std::chrono_literals;
using testing::FakeIbSource;
using testing::FakeLoadSource;
using testing::FakeNodeApi;
using testing::make_ib;
using testing::make_port;

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = 5s) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return pred();
}

// A daemon with fakes and its real HTTP server on a free loopback port.
struct Harness {
  FakeIbSource ib;
  FakeLoadSource load;
  FakeNodeApi api{nlohmann::json{{"metadata", {{"name", "n1"}, {"labels", {{"team", "a"}}}}}}};
  AgentState state{"n1"};
  AgentMetrics metrics{state, "test"};
  HttpServer http{{.metrics = [this] { return metrics.render(); },
                   .ready = [this] { return state.ready(); },
                   .probe = [this] { return probe_json(state.view()).dump(); }}};
  std::unique_ptr<Daemon> daemon;
  std::string base;

  explicit Harness(std::chrono::milliseconds ib_interval = 300ms) {
    ib.snapshot = make_ib("0xf", "0xa", "0xb",
                          {make_port("mlx5_0", 1, "ACTIVE", 100, "0x1"), make_port("mlx5_1", 1, "ACTIVE", 100, "0x2")});
    ib.states = "mlx5_0/1=ACTIVE mlx5_1/1=ACTIVE";
    DaemonOptions o;
    o.ib_interval = ib_interval;
    o.load_interval = 200ms;
    o.port_poll = 50ms;
    daemon = std::make_unique<Daemon>(ib, load, &api, state, metrics, "n1", o);
    auto port = http.start({"127.0.0.1", 0});
    EXPECT_TRUE(port.ok());
    base = "http://127.0.0.1:" + std::to_string(port.ok() ? *port : 0);
  }
  ~Harness() {
    daemon->stop(4s);
    http.stop();
  }
  std::string get(const std::string& path) { return weft::testing::http_get(base + path).second; }
  int status(const std::string& path) { return weft::testing::http_get(base + path).first; }
  nlohmann::json labels() { return api.snapshot()["metadata"]["labels"]; }
};

TEST(Daemon, PublishesServesAndBecomesReady) {
  Harness h;
  EXPECT_EQ(h.status("/readyz"), 503);
  EXPECT_EQ(h.status("/healthz"), 200);
  h.daemon->start();
  ASSERT_TRUE(eventually([&] { return h.labels().value("weft.dev/ib-leaf", "") == "0xa"; }));
  EXPECT_EQ(h.labels()["team"], "a");
  EXPECT_EQ(h.labels()["weft.dev/ib-rate-gbps"], "200");
  ASSERT_TRUE(eventually([&] {
    return h.api.snapshot()["metadata"].value("annotations", nlohmann::json::object()).contains("weft.dev/load");
  }));
  EXPECT_EQ(h.status("/readyz"), 200);
  const std::string metrics = h.get("/metrics");
  EXPECT_NE(metrics.find("weft_ib_port_up{device=\"mlx5_0\",port=\"1\"} 1"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("weft_node_cpu_busy_ratio 0.2"), std::string::npos);
  EXPECT_NE(metrics.find("weft_agent_probe_stale{collector=\"ib\"} 0"), std::string::npos);
  auto probe = nlohmann::json::parse(h.get("/probe"));
  EXPECT_EQ(probe["node"], "n1");
  EXPECT_EQ(probe["labels"]["weft.dev/ib-fabric"], "0xf");
  // Nothing changes: after several more probe rounds the patch count stays put.
  std::this_thread::sleep_for(300ms);
  const int patches = h.api.patches;
  std::this_thread::sleep_for(1s);
  EXPECT_GE(h.ib.calls.load(), 3);
  EXPECT_EQ(h.api.patches, patches);
}

// A restarted agent recalls the places its last run published before probing, so a port
// that is down at start keeps its last leaf.
TEST(Daemon, RecallsItsOwnPortsAnnotationBeforeTheFirstProbe) {
  Harness h;
  const nlohmann::json ports = nlohmann::json::array({{{"device", "mlx5_0"}, {"port", 1}, {"leaf", "0x5"},
                                                       {"fabric", "0xf"}, {"state", "DOWN"}}});
  h.api.node["metadata"]["annotations"] = {{"weft.dev/ib-ports", ports.dump()}};
  h.daemon->start();
  ASSERT_TRUE(eventually([&] { return h.ib.calls.load() > 0; }));
  std::lock_guard lock(h.ib.mu);
  EXPECT_EQ(h.ib.recalled, ports);
  EXPECT_EQ(h.ib.probes_before_recall, 0);
}

TEST(Daemon, ThrowingCollectorKeepsDaemonUpAndMarksStale) {
  Harness h;
  h.daemon->start();
  ASSERT_TRUE(eventually([&] { return h.state.ready(); }));
  // Ready means one IB probe; wait for a good load sample too, so there is a last good
  // value to keep.
  ASSERT_TRUE(eventually([&] { return h.get("/metrics").find("weft_node_cpu_busy_ratio") != std::string::npos; }));
  {
    std::lock_guard lock(h.ib.mu);
    h.ib.mode = FakeIbSource::Mode::Throw;
  }
  {
    std::lock_guard lock(h.load.mu);
    h.load.throws = true;
  }
  ASSERT_TRUE(eventually([&] {
    auto m = h.get("/metrics");
    return m.find("weft_agent_probe_stale{collector=\"ib\"} 1") != std::string::npos &&
           m.find("weft_agent_probe_stale{collector=\"load\"} 1") != std::string::npos;
  }));
  const int calls = h.ib.calls;
  ASSERT_TRUE(eventually([&] { return h.ib.calls >= calls + 2; }));   // still probing
  const std::string m = h.get("/metrics");
  // Last good values kept.
  EXPECT_NE(m.find("weft_ib_port_up{device=\"mlx5_0\",port=\"1\"} 1"), std::string::npos);
  EXPECT_NE(m.find("weft_node_cpu_busy_ratio"), std::string::npos);
  EXPECT_EQ(m.find("weft_agent_probe_errors_total{collector=\"ib\"} 0"), std::string::npos);
  EXPECT_EQ(h.status("/healthz"), 200);
  EXPECT_EQ(h.labels()["weft.dev/ib-leaf"], "0xa");   // labels not removed by a failure
  auto probe = nlohmann::json::parse(h.get("/probe"));
  EXPECT_TRUE(probe["collectors"]["ib"]["stale"].get<bool>());
  EXPECT_NE(probe["collectors"]["ib"]["last_error"].get<std::string>().find("exploded"), std::string::npos);
}

TEST(Daemon, ThrowingFromTheStartNeverReadyButServes) {
  Harness h;
  h.ib.mode = FakeIbSource::Mode::Throw;
  h.daemon->start();
  ASSERT_TRUE(eventually([&] { return h.ib.calls >= 2; }));
  EXPECT_EQ(h.status("/readyz"), 503);
  EXPECT_EQ(h.status("/healthz"), 200);
  EXPECT_NE(h.get("/metrics").find("weft_agent_probe_stale{collector=\"ib\"} 1"), std::string::npos);
  EXPECT_FALSE(h.labels().contains("weft.dev/rdma"));   // never published what it never saw
}

TEST(Daemon, PortStateChangeProbesAtOnce) {
  Harness h(60s);
  h.daemon->start();
  ASSERT_TRUE(eventually([&] { return h.labels().value("weft.dev/ib-rate-gbps", "") == "200"; }));
  {
    std::lock_guard lock(h.ib.mu);
    h.ib.snapshot = make_ib("0xf", "0xa", "0xb", {make_port("mlx5_0", 1, "ACTIVE", 100, "0x1")});
    h.ib.states = "mlx5_0/1=ACTIVE mlx5_1/1=DOWN";
  }
  // Long before the 60 s interval: the removed port's values go from labels and metrics.
  ASSERT_TRUE(eventually([&] { return h.labels().value("weft.dev/ib-rate-gbps", "") == "100"; }, 3s));
  EXPECT_EQ(h.get("/metrics").find("device=\"mlx5_1\""), std::string::npos);
}

TEST(Daemon, StopsPromptlyEvenWithABlockedCollector) {
  Harness h;
  h.daemon->start();
  ASSERT_TRUE(eventually([&] { return h.state.ready(); }));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(h.daemon->stop(4s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
}

}  // namespace
}  // namespace weft::agent
