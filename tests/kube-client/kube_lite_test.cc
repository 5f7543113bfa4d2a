// The client against the real kube-lite (tools/kube-lite) with its fault injection:
// dropped watches, injected 500s/429s, latency, a server that has gone away.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "kube/client/informer.h"
#include "kube/client/leader_election.h"
#include "tests/support/kube_lite.h"

namespace weft::kube {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

using weft::testing::KubeLite;
using weft::testing::KubeLiteOptions;

ClientOptions test_options() { return weft::testing::test_client_options(); }

std::unique_ptr<Client> client_of(KubeLite& api, ClientOptions o = test_options()) { return api.new_client(o); }

void ensure_namespace(Client& c, const std::string& ns) {
  auto r = c.create(resources::namespaces(), "",
                    {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  ASSERT_TRUE(r || r.error().code == 409) << r.message();
}

TEST(KubeClientKubeLite, ThousandUpdatesSeenExactlyOnceInOrderWhileWatchesDrop) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  KubeLite api({.drop_watch_after = 7});
  ASSERT_EQ(api.error(), "");
  auto writer = client_of(api);
  auto reader = client_of(api);
  ASSERT_TRUE(writer->create(resources::nodes(), "",
                             {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}, {"labels", {{"seq", "0"}}}}}}));
  Informer informer(*reader, resources::nodes(), "");
  std::mutex mu;
  std::vector<int> seen;
  informer.add_handlers({nullptr,
                         [&](const json&, const json& now) {
                           std::lock_guard lock(mu);
                           seen.push_back(std::stoi(now["metadata"]["labels"]["seq"].get<std::string>()));
                         },
                         nullptr});
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync(milliseconds(10000)));
  const int updates = 1000;
  for (int i = 1; i <= updates; ++i) {
    auto p = writer->patch(resources::nodes(), "", "n1", {{"metadata", {{"labels", {{"seq", std::to_string(i)}}}}}});
    ASSERT_TRUE(p) << p.message();
  }
  auto until = Clock::now() + milliseconds(30000);
  while (Clock::now() < until) {
    {
      std::lock_guard lock(mu);
      if (!seen.empty() && seen.back() == updates) break;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  std::this_thread::sleep_for(milliseconds(200));
  informer.stop();
  std::vector<int> expected(updates);
  for (int i = 0; i < updates; ++i) expected[i] = i + 1;
  std::lock_guard lock(mu);
  EXPECT_EQ(seen, expected);
  auto stats = informer.stats();
  EXPECT_EQ(stats.lists, 1u);
  EXPECT_EQ(stats.relists, 0u);
  EXPECT_GE(stats.watches, static_cast<uint64_t>(updates / 7));
  // Reconnects follow progress only: about one watch per 7 events, not a loop.
  EXPECT_LE(stats.watches, static_cast<uint64_t>(updates / 7 + 20));
  std::printf("informer: %zu updates seen, %llu watches, %llu lists\n", seen.size(),
              static_cast<unsigned long long>(stats.watches), static_cast<unsigned long long>(stats.lists));
}

TEST(KubeClientKubeLite, CallsUnderThirtyPercentFaultsSucceedOrNameVerbPathStatus) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  // Retry-After: 0 keeps the run short; the client's honouring of it is unit-tested.
  KubeLite api({.fail_rate = 0.3, .extra_args = {"--retry-after", "0"}});
  ASSERT_EQ(api.error(), "");
  auto client = client_of(api);
  std::map<int, int> statuses;
  client->set_request_hook([&](const RequestRecord& r) { ++statuses[r.status]; });
  const int calls = 200;
  int ok = 0, failed = 0;
  // Create (POST is retried only where the fault came before the write took effect: a
  // retried create that finds its object is fine).
  for (int i = 0; i < calls; ++i) {
    Result<json> r = make_error("unset");
    std::string verb;
    switch (i % 4) {
      case 0:
        verb = "POST";
        r = client->create(resources::nodes(), "",
                           {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "f" + std::to_string(i)}}}});
        if (!r && r.error().code == 409) r = json::object();
        break;
      case 1:
        verb = "PATCH";
        r = client->patch(resources::nodes(), "", "f" + std::to_string(i - 1),
                          {{"metadata", {{"labels", {{"x", std::to_string(i)}}}}}});
        break;
      case 2:
        verb = "GET";
        r = client->get(resources::nodes(), "", "f" + std::to_string(i - 2));
        break;
      default: {
        verb = "GET";
        auto l = client->list(resources::nodes(), "", ListOptions{"", "", 20, "", "", 0});
        r = l ? Result<json>(json::object()) : Result<json>(l.error());
      }
    }
    if (r) {
      ++ok;
      continue;
    }
    ++failed;
    // One line naming verb, path and status.
    EXPECT_EQ(r.message().rfind(verb + " /api", 0), 0u) << r.message();
    EXPECT_NE(r.message().find("HTTP "), std::string::npos) << r.message();
    EXPECT_EQ(r.message().find('\n'), std::string::npos) << r.message();
  }
  uint64_t requests = client->request_count();
  std::printf("fault run: %d ok, %d failed, %llu HTTP requests for %d calls; statuses:", ok, failed,
              static_cast<unsigned long long>(requests), calls);
  for (auto [s, n] : statuses) std::printf(" %d:%d", s, n);
  std::printf("\n");
  EXPECT_GE(ok, calls * 95 / 100);
  EXPECT_GT(statuses[500] + statuses[429] + statuses[503], 0) << "kube-lite injected no faults";
  // With p=0.3 a call needs 1/(1-0.3) ~ 1.43 attempts; lists page, so allow 3x. A busy loop
  // would be orders of magnitude more.
  EXPECT_LT(requests, static_cast<uint64_t>(calls * 3));

}

// A paged list read ahead (the next page fetched while one is read) hands over every
// item once, in order, whatever the page size; unpaged it is one request.
TEST(KubeClientKubeLite, PagesReadAheadGiveEveryItemOnceInOrder) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  KubeLite api;
  ASSERT_EQ(api.error(), "");
  auto& c = api.client();
  std::vector<std::string> expected;
  for (int i = 0; i < 23; ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "p%02d", i);
    expected.push_back(name);
    ASSERT_TRUE(c.create(resources::configmaps(), "default",
                         {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}}));
  }
  for (int64_t limit : {0, 1, 5, 23, 100}) {
    ListOptions o;
    o.limit = limit;
    std::vector<std::string> names;
    const size_t before = c.request_count();
    auto r = c.list_each_text(resources::configmaps(), "default", o, [&](std::string_view text) {
      names.push_back(nlohmann::json::parse(text)["metadata"]["name"]);
    });
    ASSERT_TRUE(r) << r.message();
    ASSERT_EQ(names.size(), 23u) << limit;
    EXPECT_EQ(names, expected) << limit;
    EXPECT_EQ(c.request_count() - before, limit > 0 ? static_cast<size_t>((23 + limit - 1) / limit) : 1u) << limit;
  }
}

TEST(KubeClientKubeLite, UnreachableServerGivesOneLineNamingTheAddress) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  KubeLite api;
  ASSERT_EQ(api.error(), "");
  api.stop();
  auto o = test_options();
  o.timeout = milliseconds(3000);
  auto client = client_of(api, o);
  auto start = Clock::now();
  auto r = client->list(resources::pods(), "default");
  ASSERT_FALSE(r);
  EXPECT_LT(Clock::now() - start, milliseconds(4000));
  EXPECT_NE(r.message().find("cannot reach API server " + api.config().server.url()), std::string::npos)
      << r.message();
  EXPECT_EQ(r.message().find('\n'), std::string::npos);
  EXPECT_LE(client->request_count(), 6u);
}

TEST(KubeClientKubeLite, BindingEvictionWithBudgetAndLeaderElection) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  KubeLite api;
  ASSERT_EQ(api.error(), "");
  auto client = client_of(api);
  ensure_namespace(*client, "jobs");
  ASSERT_TRUE(client->create(resources::nodes(), "", {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}}}}));
  for (const std::string name : {"a", "b"}) {
    auto p = client->create(resources::pods(), "jobs",
                            {{"apiVersion", "v1"},
                             {"kind", "Pod"},
                             {"metadata", {{"name", name}, {"namespace", "jobs"}, {"labels", {{"app", "train"}}}}},
                             {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "x"}}})}}}});
    ASSERT_TRUE(p) << p.message();
    ASSERT_TRUE(client->bind("jobs", name, "n1")) << name;
  }
  EXPECT_EQ((*client->get(resources::pods(), "jobs", "a"))["spec"]["nodeName"], "n1");
  auto again = client->bind("jobs", "a", "n1");
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, 409) << again.message();
  // Mark both Running so the budget counts them healthy.
  for (const std::string name : {"a", "b"}) {
    auto s = client->update_status_with_retry(resources::pods(), "jobs", name, [](json& pod) -> Status {
      pod["status"]["phase"] = "Running";
      pod["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", "True"}}});
      return {};
    });
    ASSERT_TRUE(s) << s.message();
  }
  ASSERT_TRUE(client->create(resources::poddisruptionbudgets(), "jobs",
                             {{"apiVersion", "policy/v1"},
                              {"kind", "PodDisruptionBudget"},
                              {"metadata", {{"name", "train"}, {"namespace", "jobs"}}},
                              {"spec", {{"minAvailable", 2}, {"selector", {{"matchLabels", {{"app", "train"}}}}}}}}));
  uint64_t before = client->request_count();
  auto blocked = client->evict("jobs", "a");
  ASSERT_TRUE(blocked) << blocked.message();
  EXPECT_EQ(blocked->outcome, EvictionResult::Outcome::Blocked) << blocked->message;
  EXPECT_EQ(client->request_count() - before, 1u);

  LeaderElectionConfig cfg;
  cfg.lease_namespace = "jobs";
  cfg.lease_name = "weft-descheduler";
  cfg.lease_duration = milliseconds(1000);
  auto a_cfg = cfg, b_cfg = cfg;
  a_cfg.identity = "a";
  b_cfg.identity = "b";
  LeaderElector a(*client, a_cfg), b(*client, b_cfg);
  ASSERT_TRUE(*a.try_acquire_or_renew());
  EXPECT_FALSE(*b.try_acquire_or_renew());
  std::this_thread::sleep_for(milliseconds(1100));
  ASSERT_TRUE(*b.try_acquire_or_renew());  // a stopped renewing
  EXPECT_FALSE(*a.try_acquire_or_renew());
  ASSERT_TRUE(b.release());
  ASSERT_TRUE(*a.try_acquire_or_renew());
}

}  // namespace
}  // namespace weft::kube
