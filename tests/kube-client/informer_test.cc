// Informer and leader election against the in-process fake API server.
#include <gtest/gtest.h>

#include <thread>

#include "kube/client/informer.h"
#include "kube/client/leader_election.h"
#include "tests/kube-client/fake_api_server.h"

namespace weft::kube {
namespace {

using nlohmann::json;
using testing::FakeApiServer;
using std::chrono::milliseconds;

std::unique_ptr<Client> client_for(const FakeApiServer& api) {
  ClientConfig cfg;
  cfg.server = *parse_server_url(api.url());
  ClientOptions o;
  o.qps = 0;
  o.timeout = milliseconds(5000);
  o.backoff = BackoffPolicy{milliseconds(5), 2.0, milliseconds(100), 0.5};
  auto c = Client::from_config(cfg, o);
  return std::move(c.value());
}

json config_map(const std::string& name, int seq) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "ns"}, {"managedFields", json::array({{{"manager", "x"}}})}}},
          {"data", {{"seq", std::to_string(seq)}}}};
}

// Records handler calls as text, thread-safely.
struct Recorder {
  std::mutex mu;
  std::vector<std::string> calls;
  EventHandlers handlers() {
    return {[this](const json& o) { add("add " + o["metadata"]["name"].get<std::string>()); },
            [this](const json& a, const json& b) {
              add("update " + b["metadata"]["name"].get<std::string>() + " " + a["data"]["seq"].get<std::string>() +
                  "->" + b["data"]["seq"].get<std::string>());
            },
            [this](const json& o) { add("delete " + o["metadata"]["name"].get<std::string>()); }};
  }
  void add(std::string s) {
    std::lock_guard lock(mu);
    calls.push_back(std::move(s));
  }
  size_t size() {
    std::lock_guard lock(mu);
    return calls.size();
  }
  std::vector<std::string> snapshot() {
    std::lock_guard lock(mu);
    return calls;
  }
};

bool wait_until(const std::function<bool()>& done, milliseconds timeout) {
  auto until = Clock::now() + timeout;
  while (!done()) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return true;
}

TEST(KubeClientInformer, ListsPagedThenSeesEveryUpdateOnceInOrderAcrossDroppedWatches) {
  FakeApiServer api;
  for (int i = 0; i < 5; ++i) api.upsert("/api/v1/configmaps", config_map("cm" + std::to_string(i), 0));
  api.set_drop_watch_after(3);
  auto client = client_for(api);
  InformerOptions opts;
  opts.page_size = 2;
  Informer informer(*client, resources::configmaps(), "ns", opts);
  Recorder rec;
  informer.add_handlers(rec.handlers());
  informer.start();
  ASSERT_TRUE(informer.wait_for_sync(milliseconds(5000)));
  EXPECT_EQ(informer.size(), 5u);
  EXPECT_EQ(api.count_requests("GET /api/v1/namespaces/ns/configmaps?limit=2"), 1);
  EXPECT_FALSE(informer.get("ns/cm0")->at("metadata").contains("managedFields"));

  const int updates = 200;
  for (int i = 1; i <= updates; ++i) api.upsert("/api/v1/configmaps", config_map("cm1", i));
  api.remove("/api/v1/configmaps", "ns", "cm2");
  ASSERT_TRUE(wait_until([&] { return rec.size() >= 5u + updates + 1; }, milliseconds(20000))) << rec.size();
  std::this_thread::sleep_for(milliseconds(100));  // nothing extra may arrive
  informer.stop();

  auto calls = rec.snapshot();
  ASSERT_EQ(calls.size(), 5u + updates + 1);
  for (int i = 1; i <= updates; ++i) {
    EXPECT_EQ(calls[4 + i], "update cm1 " + std::to_string(i - 1) + "->" + std::to_string(i));
  }
  EXPECT_EQ(calls.back(), "delete cm2");
  EXPECT_EQ(informer.size(), 4u);
  EXPECT_EQ((*informer.get("ns/cm1"))["data"]["seq"], std::to_string(updates));
  auto stats = informer.stats();
  EXPECT_EQ(stats.lists, 1u);
  EXPECT_EQ(stats.relists, 0u);
  EXPECT_GE(stats.watches, static_cast<uint64_t>((updates + 1) / 3));
  // Every watch was resumed from a version; none started from scratch.
  for (const auto& line : api.request_log()) {
    if (line.find("watch=") != std::string::npos) {
      EXPECT_NE(line.find("resourceVersion="), std::string::npos) << line;
      EXPECT_NE(line.find("allowWatchBookmarks=true"), std::string::npos) << line;
    }
  }
}

// The relist tests: three objects listed, then, while no watch is open, the store moves on
// (one changed, one deleted, one new) and its history is compacted away, so the next watch
// is Gone and the informer must relist and diff.
void seed_keep_change_drop(FakeApiServer& api) {
  for (const char* name : {"keep", "change", "drop"}) api.upsert("/api/v1/configmaps", config_map(name, 0));
}
void move_on_unwatched(FakeApiServer& api) {
  api.upsert("/api/v1/configmaps", config_map("change", 1));
  api.remove("/api/v1/configmaps", "ns", "drop");
  api.upsert("/api/v1/configmaps", config_map("new", 0));
  api.compact();
}

TEST(KubeClientInformer, GoneWatchRelistsAndDiffsTheCache) {
  FakeApiServer api;
  seed_keep_change_drop(api);
  auto client = client_for(api);
  Informer informer(*client, resources::configmaps(), "ns");
  Recorder rec;
  informer.add_handlers(rec.handlers());
  ASSERT_TRUE(informer.relist());  // synchronous first list, no thread yet
  EXPECT_TRUE(informer.has_synced());
  EXPECT_EQ(rec.size(), 3u);
  move_on_unwatched(api);
  informer.start();
  ASSERT_TRUE(wait_until([&] { return rec.size() >= 6u; }, milliseconds(5000)));
  informer.stop();
  auto calls = rec.snapshot();
  std::vector<std::string> after(calls.begin() + 3, calls.end());
  std::sort(after.begin(), after.end());
  EXPECT_EQ(after, (std::vector<std::string>{"add new", "delete drop", "update change 0->1"}));
  EXPECT_EQ(informer.stats().relists, 1u);
  EXPECT_EQ(informer.stats().lists, 2u);
}

// keep_objects false (weft-scheduler run's pods and nodes): the handlers see whole new
// objects, listed and watched; the cache keeps stubs, and a relist still finds what changed
// and what is gone.
TEST(KubeClientInformer, WithoutObjectsHandlersSeeWholeObjectsAndRelistsStillDiff) {
  FakeApiServer api;
  seed_keep_change_drop(api);
  auto client = client_for(api);
  InformerOptions opts;
  opts.keep_objects = false;
  opts.page_size = 2;
  Informer informer(*client, resources::configmaps(), "ns", opts);
  std::mutex mu;
  std::vector<std::string> calls;
  auto record = [&](std::string s) {
    std::lock_guard lock(mu);
    calls.push_back(std::move(s));
  };
  auto seq = [](const json& o) { return o.contains("data") ? o["data"]["seq"].get<std::string>() : "stub"; };
  informer.add_handlers({[&](const json& o) { record("add " + o["metadata"]["name"].get<std::string>() + " " + seq(o)); },
                         [&](const json& a, const json& b) {
                           record("update " + b["metadata"]["name"].get<std::string>() + " " + seq(a) + "->" + seq(b));
                         },
                         [&](const json& o) { record("delete " + o["metadata"]["name"].get<std::string>()); }});
  ASSERT_TRUE(informer.relist());
  EXPECT_EQ(calls, (std::vector<std::string>{"add change 0", "add drop 0", "add keep 0"}));
  EXPECT_EQ(informer.size(), 3u);
  const auto stub = informer.get("ns/keep");
  ASSERT_TRUE(stub);
  EXPECT_FALSE(stub->contains("data"));
  EXPECT_EQ((*stub)["metadata"]["name"], "keep");
  EXPECT_TRUE((*stub)["metadata"].contains("resourceVersion"));

  move_on_unwatched(api);
  calls.clear();
  informer.start();   // the watch is Gone: relists
  ASSERT_TRUE(wait_until([&] { std::lock_guard lock(mu); return calls.size() >= 3u; }, milliseconds(5000)));
  api.upsert("/api/v1/configmaps", config_map("keep", 1));
  ASSERT_TRUE(wait_until([&] { std::lock_guard lock(mu); return calls.size() >= 4u; }, milliseconds(5000)));
  informer.stop();
  std::lock_guard lock(mu);
  std::vector<std::string> relisted(calls.begin(), calls.begin() + 3);
  std::sort(relisted.begin(), relisted.end());
  EXPECT_EQ(relisted, (std::vector<std::string>{"add new 0", "delete drop", "update change stub->1"}));
  EXPECT_EQ(calls[3], "update keep stub->1");   // watched: the new object whole, the old one a stub
  EXPECT_EQ(informer.size(), 3u);
}

// raw (weft-scheduler run's pods and nodes): nothing is decoded; the handlers get each
// object's text as listed and watched, with its key; a relist still finds what changed and
// what is gone, and a watch resumes from the last version the text said.
TEST(KubeClientInformer, RawHandlersGetEachObjectsTextAndRelistsStillDiff) {
  FakeApiServer api;
  seed_keep_change_drop(api);
  auto client = client_for(api);
  InformerOptions opts;
  opts.raw = true;
  opts.keep_objects = false;
  Informer informer(*client, resources::configmaps(), "ns", opts);
  Recorder rec;
  informer.add_raw_handlers({[&](const std::string& key, std::string_view text) {
                               const json o = json::parse(text);   // the text is the object as the API sent it
                               EXPECT_EQ(key, "ns/" + o["metadata"]["name"].get<std::string>());
                               EXPECT_TRUE(o["metadata"].contains("managedFields"));
                               rec.add("object " + key + " " + o["data"]["seq"].get<std::string>());
                             },
                             [&](const std::string& key) { rec.add("delete " + key); }});
  ASSERT_TRUE(informer.relist());
  EXPECT_EQ(rec.snapshot(), (std::vector<std::string>{"object ns/change 0", "object ns/drop 0", "object ns/keep 0"}));
  EXPECT_EQ(informer.size(), 3u);
  const auto stub = informer.get("ns/keep");
  ASSERT_TRUE(stub);
  EXPECT_FALSE(stub->contains("data"));
  EXPECT_TRUE((*stub)["metadata"].contains("resourceVersion"));

  move_on_unwatched(api);
  informer.start();   // the watch is Gone: relists; "keep" is unchanged and not handed over again
  ASSERT_TRUE(wait_until([&] { return rec.size() >= 6u; }, milliseconds(5000)));
  api.upsert("/api/v1/configmaps", config_map("keep", 1));
  api.remove("/api/v1/configmaps", "ns", "new");
  ASSERT_TRUE(wait_until([&] { return rec.size() >= 8u; }, milliseconds(5000)));
  informer.stop();
  auto calls = rec.snapshot();
  calls.erase(calls.begin(), calls.begin() + 3);
  std::vector<std::string> relisted(calls.begin(), calls.begin() + 3);
  std::sort(relisted.begin(), relisted.end());
  EXPECT_EQ(relisted, (std::vector<std::string>{"delete ns/drop", "object ns/change 1", "object ns/new 0"}));
  EXPECT_EQ(calls[3], "object ns/keep 1");
  EXPECT_EQ(calls[4], "delete ns/new");
  EXPECT_EQ(informer.size(), 2u);
  EXPECT_EQ(informer.stats().relists, 1u);
  EXPECT_EQ(informer.stats().events, 2u);
  // The version to resume from is the last event's (the delete came after keep's update).
  const std::string keep_version = (*informer.get("ns/keep"))["metadata"]["resourceVersion"];
  EXPECT_GT(std::stoll(informer.resource_version()), std::stoll(keep_version));
}

TEST(KubeClientInformer, FailingWatchBacksOffInsteadOfSpinning) {
  FakeApiServer api;
  api.upsert("/api/v1/configmaps", config_map("a", 0));
  auto client = client_for(api);
  Informer informer(*client, resources::configmaps(), "ns");
  ASSERT_TRUE(informer.relist());
  api.set_fail_rate(1.0, 500);
  informer.start();
  std::this_thread::sleep_for(milliseconds(1000));
  informer.stop();
  // With 5ms initial backoff capped at 100ms (x1.5 jitter) and 6 attempts per call, one
  // second allows at most a few dozen requests; a busy loop would make thousands.
  EXPECT_LT(api.requests(), 80) << api.requests();
  EXPECT_GT(informer.stats().failures, 0u);
}

TEST(KubeClientInformer, ResyncRedeliversCachedObjects) {
  FakeApiServer api;
  api.upsert("/api/v1/configmaps", config_map("a", 3));
  auto client = client_for(api);
  InformerOptions opts;
  opts.resync = milliseconds(100);
  Informer informer(*client, resources::configmaps(), "ns", opts);
  Recorder rec;
  informer.add_handlers(rec.handlers());
  informer.start();
  ASSERT_TRUE(wait_until([&] { return rec.size() >= 3u; }, milliseconds(5000)));
  informer.stop();
  auto calls = rec.snapshot();
  EXPECT_EQ(calls[0], "add a");
  EXPECT_EQ(calls[1], "update a 3->3");
}

TEST(KubeClientLeaderElection, AcquireRenewReleaseAndTakeOverAfterExpiry) {
  FakeApiServer api;
  auto client = client_for(api);
  LeaderElectionConfig base;
  base.lease_namespace = "kube-system";
  base.lease_name = "weft-scheduler";
  base.lease_duration = milliseconds(1000);
  auto a_cfg = base, b_cfg = base;
  a_cfg.identity = "a";
  b_cfg.identity = "b";
  LeaderElector a(*client, a_cfg), b(*client, b_cfg);

  ASSERT_TRUE(*a.try_acquire_or_renew());
  EXPECT_TRUE(a.is_leader());
  EXPECT_FALSE(*b.try_acquire_or_renew());
  EXPECT_EQ(b.observed_holder(), "a");
  ASSERT_TRUE(*a.try_acquire_or_renew());  // renew
  auto lease = *client->get(resources::leases(), "kube-system", "weft-scheduler");
  EXPECT_EQ(lease["spec"]["holderIdentity"], "a");
  EXPECT_EQ(lease["spec"]["leaseDurationSeconds"], 1);
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 0);

  ASSERT_TRUE(a.release());
  EXPECT_FALSE(a.is_leader());
  ASSERT_TRUE(*b.try_acquire_or_renew());  // released: no need to wait
  lease = *client->get(resources::leases(), "kube-system", "weft-scheduler");
  EXPECT_EQ(lease["spec"]["holderIdentity"], "b");
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 1);

  // b stops renewing; a must first see the record unchanged for a lease duration.
  EXPECT_FALSE(*a.try_acquire_or_renew());
  std::this_thread::sleep_for(milliseconds(1100));
  ASSERT_TRUE(*a.try_acquire_or_renew());
  lease = *client->get(resources::leases(), "kube-system", "weft-scheduler");
  EXPECT_EQ(lease["spec"]["holderIdentity"], "a");
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 2);
  // b's next renew finds a holding a fresh lease.
  EXPECT_FALSE(*b.try_acquire_or_renew());
}

TEST(KubeClientLeaderElection, RunLeadsUntilStoppedThenReleases) {
  FakeApiServer api;
  auto client = client_for(api);
  LeaderElectionConfig cfg;
  cfg.lease_namespace = "weft";
  cfg.lease_name = "descheduler";
  cfg.identity = "me";
  cfg.retry_period = milliseconds(50);
  LeaderElector elector(*client, cfg);
  std::atomic<int> started{0}, stopped{0};
  std::thread t([&] { elector.run([&] { ++started; }, [&] { ++stopped; }); });
  ASSERT_TRUE(wait_until([&] { return started.load() == 1; }, milliseconds(5000)));
  std::this_thread::sleep_for(milliseconds(300));  // several renewals
  elector.stop();
  t.join();
  EXPECT_EQ(stopped.load(), 1);
  EXPECT_GE(api.count_requests("PUT /apis/coordination.k8s.io/v1/namespaces/weft/leases/descheduler"), 3);
  auto lease = *client->get(resources::leases(), "weft", "descheduler");
  EXPECT_EQ(lease["spec"]["holderIdentity"], "");
}

}  // namespace
}  // namespace weft::kube
