#include "collectors/load/sampler.h"

#include <gtest/gtest.h>

#include <thread>

#include "collectors/load/probe.h"
#include "tests/load/fake_source.h"

namespace weft::load {
namespace {

using testing::FakeSource;

// Reading k: 1 s later than k-1; the CPU was busy `busy_ms` of each second.
LoadCounters tick(int k, uint64_t busy_ms_per_s, uint64_t mem_avail) {
  LoadCounters c;
  c.at_ns = static_cast<int64_t>(k) * 1000000000LL;
  c.cpus.push_back({0, static_cast<uint64_t>(k) * busy_ms_per_s * 1000000, static_cast<uint64_t>(k) * 1000000000ULL});
  c.memory = {100, mem_avail};
  c.runq_buckets = std::vector<uint64_t>(48, 0);
  (*c.runq_buckets)[10] = static_cast<uint64_t>(k) * 10;
  c.runq_sum_ns = static_cast<uint64_t>(k) * 15000;
  c.reclaim_stall_ns = 5000000000ULL + static_cast<uint64_t>(k) * 100000000ULL;
  return c;
}

TEST(LoadSampler, WindowAveragesAndCumulativeCountersSinceStart) {
  auto fake = std::make_unique<FakeSource>("ebpf");
  FakeSource* f = fake.get();
  for (int k = 0; k <= 4; k++) f->readings.push_back(tick(k, 500, k % 2 ? 20 : 60));
  LoadSampler sampler({std::move(fake), "test"}, {std::chrono::milliseconds(5), std::chrono::milliseconds(2500)});
  EXPECT_FALSE(sampler.summary().has_value());
  ASSERT_TRUE(sampler.start());
  for (int i = 0; i < 400; i++) {
    {
      std::lock_guard lock(f->mu);
      if (f->reads >= 8) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  sampler.stop();
  auto s = sampler.summary();
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->source, "ebpf");
  EXPECT_EQ(s->source_reason, "test");
  EXPECT_DOUBLE_EQ(s->window.cpu, 0.5);
  // Readings 1..4 are kept (window 2.5 s back from 4 s keeps the one opening it).
  EXPECT_LE(s->window.window_s, 3.0 + 1e-9);
  EXPECT_GE(s->window.window_s, 2.5 - 1e-9);
  EXPECT_GT(s->memory_avg, 0.4);
  EXPECT_LT(s->memory_avg, 0.8);
  ASSERT_EQ(s->runq_buckets_total.size(), 48u);
  EXPECT_EQ(s->runq_buckets_total[10], 40u);
  EXPECT_NEAR(*s->runq_sum_seconds_total, 60e-6, 1e-12);
  EXPECT_NEAR(*s->reclaim_stall_seconds_total, 0.4, 1e-9);
  EXPECT_EQ(sampler.last_error(), "");
}

TEST(LoadSampler, StartReportsTheFirstReadError) {
  auto fake = std::make_unique<FakeSource>("procfs");
  LoadSampler sampler({std::move(fake), "test"}, {});
  auto st = sampler.start();
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("no more readings"), std::string::npos);
}

TEST(ProbeJson, ContractFieldsAndNullsForUnknowns) {
  LoadWindow w;
  w.window_s = 1.00004;
  w.cpu = 0.123456;
  w.cpus = {0.1, 0.2};
  w.memory = 0.5;
  w.cgroups["/job"] = 0.25;
  auto j = window_json(w, "procfs", "--load-backend procfs", "/job");
  EXPECT_EQ(j["source"], "procfs");
  EXPECT_DOUBLE_EQ(j["cpu"].get<double>(), 0.1235);
  EXPECT_EQ(j["cpus"].size(), 2u);
  EXPECT_TRUE(j["runq_latency_p99_s"].is_null());
  EXPECT_TRUE(j["reclaim_stall_s"].is_null());
  EXPECT_DOUBLE_EQ(j["cgroup"]["busy_ratio"].get<double>(), 0.25);
  EXPECT_EQ(j["cgroup"]["path"], "/job");
  EXPECT_FALSE(window_json(w, "procfs", "", "").contains("cgroup"));
}

TEST(ProbeLoad, SamplesOverTheWindowWithTheChosenSource) {
  SourceFactories f;
  f.procfs = []() -> Result<std::unique_ptr<LoadSource>> {
    auto s = std::make_unique<FakeSource>("procfs");
    s->readings.push_back(tick(1, 250, 50));
    s->readings.push_back(tick(3, 250, 50));
    return std::unique_ptr<LoadSource>(std::move(s));
  };
  f.ebpf = []() -> Result<std::unique_ptr<LoadSource>> { return make_error("not here"); };
  auto j = probe_load({"auto", 0.01, ""}, f);
  ASSERT_TRUE(j) << j.message();
  EXPECT_EQ((*j)["source"], "procfs");
  EXPECT_NE((*j)["source_reason"].get<std::string>().find("not here"), std::string::npos);
  EXPECT_DOUBLE_EQ((*j)["cpu"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ((*j)["memory"].get<double>(), 0.5);
  EXPECT_FALSE(probe_load({"auto", 0, ""}, f));
  EXPECT_FALSE(probe_load({"sometimes", 1, ""}, f));
  auto missing = probe_load({"procfs", 0.01, "/missing"}, f);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.message().find("/missing"), std::string::npos);
}

}  // namespace
}  // namespace weft::load
