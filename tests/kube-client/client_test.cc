// Client behaviour against the in-process fake API server: retries, deadlines, QPS,
// paging, conflicts, binding, eviction, patches, events, token rotation.
#include <gtest/gtest.h>

#include <thread>

#include "kube/client/client.h"
#include "kube/client/events.h"
#include "tests/kube-client/fake_api_server.h"
#include "tests/support/process.h"

namespace weft::kube {
namespace {

using nlohmann::json;
using testing::FakeApiServer;
using std::chrono::milliseconds;

ClientOptions fast_options() {
  ClientOptions o;
  o.qps = 0;
  o.timeout = milliseconds(5000);
  o.max_attempts = 5;
  o.backoff = BackoffPolicy{milliseconds(5), 2.0, milliseconds(50), 0.5};
  return o;
}

std::unique_ptr<Client> client_for(const std::string& url, ClientOptions o = fast_options(),
                                   const std::string& token_file = "") {
  ClientConfig cfg;
  cfg.server = *parse_server_url(url);
  cfg.token_file = token_file;
  auto c = Client::from_config(cfg, o);
  EXPECT_TRUE(c) << c.message();
  return std::move(*c);
}

json node(const std::string& name) { return {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}}}; }
json pod(const std::string& ns, const std::string& name, json labels = json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
          {"spec", {{"containers", json::array({{{"name", "c"}}})}}}};
}

TEST(KubeClientCalls, RetriesServerErrorsThenSucceeds) {
  FakeApiServer api;
  api.upsert("/api/v1/nodes", node("n1"));
  auto client = client_for(api.url());
  std::vector<RequestRecord> seen;
  client->set_request_hook([&](const RequestRecord& r) { seen.push_back(r); });
  api.fail_next({500, 503});
  auto n = client->get(resources::nodes(), "", "n1");
  ASSERT_TRUE(n) << n.message();
  EXPECT_EQ((*n)["metadata"]["name"], "n1");
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].status, 500);
  EXPECT_EQ(seen[1].status, 503);
  EXPECT_EQ(seen[2].status, 200);
  EXPECT_EQ(seen[2].attempt, 2);
  EXPECT_EQ(client->request_count(), 3u);
}

TEST(KubeClientCalls, PersistentFailureNamesVerbPathStatusAndMessageAfterBoundedAttempts) {
  FakeApiServer api;
  auto client = client_for(api.url());
  api.fail_next(std::vector<int>(20, 500));
  auto n = client->get(resources::nodes(), "", "n1");
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().code, 500);
  EXPECT_NE(n.message().find("GET /api/v1/nodes/n1: HTTP 500 InternalError: injected fault 500"), std::string::npos)
      << n.message();
  EXPECT_NE(n.message().find("gave up after 5 attempts"), std::string::npos) << n.message();
  EXPECT_EQ(api.requests(), 5);
}

TEST(KubeClientCalls, ClientErrorsAreNotRetried) {
  FakeApiServer api;
  auto client = client_for(api.url());
  auto n = client->get(resources::nodes(), "", "missing");
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().code, 404);
  EXPECT_EQ(n.message(), "GET /api/v1/nodes/missing: HTTP 404 NotFound: /api/v1/nodes \"missing\" not found");
  EXPECT_EQ(api.requests(), 1);
}

TEST(KubeClientCalls, RetryAfterIsHonoured) {
  FakeApiServer api;
  api.upsert("/api/v1/nodes", node("n1"));
  auto client = client_for(api.url());
  api.fail_next({429}, "1");
  auto start = Clock::now();
  auto n = client->get(resources::nodes(), "", "n1");
  ASSERT_TRUE(n) << n.message();
  EXPECT_GE(Clock::now() - start, milliseconds(1000));
  EXPECT_EQ(api.requests(), 2);
}

TEST(KubeClientCalls, DeadlineStopsRetriesEarly) {
  FakeApiServer api;
  auto o = fast_options();
  o.timeout = milliseconds(800);
  auto client = client_for(api.url(), o);
  api.fail_next({503, 503, 503}, "30");
  auto start = Clock::now();
  auto n = client->get(resources::nodes(), "", "n1");
  ASSERT_FALSE(n);
  EXPECT_LT(Clock::now() - start, milliseconds(700));
  EXPECT_NE(n.message().find("GET /api/v1/nodes/n1: HTTP 503"), std::string::npos) << n.message();
  EXPECT_NE(n.message().find("would pass the 800ms deadline"), std::string::npos) << n.message();
  EXPECT_EQ(api.requests(), 1);
}

TEST(KubeClientCalls, UnreachableServerNamesTheAddressInBoundedTime) {
  int port = weft::testing::free_port();
  auto o = fast_options();
  o.timeout = milliseconds(2000);
  o.max_attempts = 3;
  auto client = client_for("http://127.0.0.1:" + std::to_string(port), o);
  auto start = Clock::now();
  auto n = client->list(resources::pods(), "default");
  ASSERT_FALSE(n);
  EXPECT_LT(Clock::now() - start, milliseconds(2500));
  EXPECT_EQ(n.error().code, 0);
  EXPECT_NE(n.message().find("GET /api/v1/namespaces/default/pods: cannot reach API server http://127.0.0.1:" +
                             std::to_string(port)),
            std::string::npos)
      << n.message();
  EXPECT_EQ(client->request_count(), 3u);
}

TEST(KubeClientCalls, QpsLimitSpacesRequests) {
  FakeApiServer api;
  api.upsert("/api/v1/nodes", node("n1"));
  auto o = fast_options();
  o.qps = 20;
  o.burst = 1;
  auto client = client_for(api.url(), o);
  auto start = Clock::now();
  for (int i = 0; i < 11; ++i) ASSERT_TRUE(client->get(resources::nodes(), "", "n1"));
  EXPECT_GE(Clock::now() - start, milliseconds(480));  // 10 waits of 50ms
}

TEST(KubeClientCalls, ListFollowsContinueTokensAndPassesSelectors) {
  FakeApiServer api;
  for (int i = 0; i < 25; ++i) api.upsert("/api/v1/pods", pod("ns", "p" + std::to_string(100 + i), {{"app", "web"}}));
  api.upsert("/api/v1/pods", pod("ns", "other", {{"app", "db"}}));
  auto client = client_for(api.url());
  ListOptions lo;
  lo.limit = 10;
  lo.label_selector = "app=web";
  auto list = client->list(resources::pods(), "ns", lo);
  ASSERT_TRUE(list) << list.message();
  EXPECT_EQ(list->items.size(), 25u);
  EXPECT_EQ(list->resource_version, std::to_string(api.resource_version()));
  EXPECT_EQ(api.count_requests("GET /api/v1/namespaces/ns/pods?"), 3);
  auto page = client->list_page(resources::pods(), "ns", lo);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->items.size(), 10u);
  EXPECT_EQ(page->continue_token, "10");
}

TEST(KubeClientCalls, CreateUpdateWithStaleVersionConflicts) {
  FakeApiServer api;
  auto client = client_for(api.url());
  auto created = client->create(resources::configmaps(), "weft",
                                {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "state"}}},
                                 {"data", {{"k", "1"}}}});
  ASSERT_TRUE(created) << created.message();
  auto again = client->create(resources::configmaps(), "weft", *created);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, 409);
  json first = *created;
  first["data"]["k"] = "2";
  ASSERT_TRUE(client->update(resources::configmaps(), first));
  first["data"]["k"] = "3";  // still carries the old resourceVersion
  auto stale = client->update(resources::configmaps(), first);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, 409);
  EXPECT_NE(stale.message().find("PUT /api/v1/namespaces/weft/configmaps/state: HTTP 409 Conflict: Operation cannot"),
            std::string::npos)
      << stale.message();
  ASSERT_TRUE(client->remove(resources::configmaps(), "weft", "state"));
  EXPECT_TRUE(client->remove(resources::configmaps(), "weft", "state", true));
  EXPECT_FALSE(client->remove(resources::configmaps(), "weft", "state"));
}

TEST(KubeClientCalls, StatusUpdateRetriesConflictsByReapplyingTheMutation) {
  FakeApiServer api;
  api.upsert("/apis/scheduling.volcano.sh/v1beta1/podgroups",
             {{"metadata", {{"name", "pg"}, {"namespace", "t"}}}, {"status", {{"phase", "Pending"}}}});
  auto client = client_for(api.url());
  int calls = 0;
  auto result = client->update_status_with_retry(resources::podgroups(), "t", "pg", [&](json& pg) -> Status {
    if (++calls == 1) {
      // Another writer gets in between our read and our write.
      api.upsert("/apis/scheduling.volcano.sh/v1beta1/podgroups",
                 {{"metadata", {{"name", "pg"}, {"namespace", "t"}}}, {"status", {{"phase", "Pending"}, {"x", 1}}}});
    }
    pg["status"]["phase"] = "Running";
    return {};
  });
  ASSERT_TRUE(result) << result.message();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ((*result)["status"]["phase"], "Running");
  EXPECT_EQ((*result)["status"]["x"], 1);  // the other writer's change survived
  EXPECT_EQ(api.count_requests("PUT /apis/scheduling.volcano.sh/v1beta1/namespaces/t/podgroups/pg/status"), 2);

  auto refused = client->update_status_with_retry(resources::podgroups(), "t", "pg",
                                                  [](json&) -> Status { return make_error("not mine"); });
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.message().find("mutation refused: not mine"), std::string::npos);
}

TEST(KubeClientCalls, MergeAndStrategicPatch) {
  FakeApiServer api;
  json n = node("n1");
  n["metadata"]["labels"] = {{"keep", "yes"}, {"weft.dev/ib-leaf", "0xold"}};
  api.upsert("/api/v1/nodes", n);
  auto client = client_for(api.url());
  auto patched = client->patch(resources::nodes(), "", "n1",
                               {{"metadata", {{"labels", {{"weft.dev/ib-leaf", nullptr}, {"weft.dev/rdma", "ib"}}}}}});
  ASSERT_TRUE(patched) << patched.message();
  EXPECT_EQ((*patched)["metadata"]["labels"], json({{"keep", "yes"}, {"weft.dev/rdma", "ib"}}));
  auto smp = client->patch(resources::nodes(), "", "n1", {{"metadata", {{"annotations", {{"a", "1"}}}}}},
                           PatchType::StrategicMerge);
  ASSERT_TRUE(smp) << smp.message();
  EXPECT_EQ((*smp)["metadata"]["annotations"]["a"], "1");
}

TEST(KubeClientCalls, BindingSetsTheNodeOnceAndEvictionBlockedByBudgetIsAResult) {
  FakeApiServer api;
  api.upsert("/api/v1/pods", pod("ns", "a"));
  api.upsert("/api/v1/pods", pod("ns", "guarded", {{"protected", "true"}}));
  auto client = client_for(api.url());
  ASSERT_TRUE(client->bind("ns", "a", "n7"));
  EXPECT_EQ((*client->get(resources::pods(), "ns", "a"))["spec"]["nodeName"], "n7");
  auto twice = client->bind("ns", "a", "n8");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.message().find("POST /api/v1/namespaces/ns/pods/a/binding: HTTP 409"), std::string::npos);

  int before = api.requests();
  auto blocked = client->evict("ns", "guarded");
  ASSERT_TRUE(blocked) << blocked.message();
  EXPECT_EQ(blocked->outcome, EvictionResult::Outcome::Blocked);
  EXPECT_NE(blocked->message.find("disruption budget"), std::string::npos);
  EXPECT_EQ(api.requests() - before, 1);  // asked once, not hammered

  auto evicted = client->evict("ns", "a", 0);
  ASSERT_TRUE(evicted) << evicted.message();
  EXPECT_EQ(evicted->outcome, EvictionResult::Outcome::Evicted);
  EXPECT_FALSE(client->get(resources::pods(), "ns", "a"));
  auto gone = client->evict("ns", "a");
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->outcome, EvictionResult::Outcome::NotFound);
  // A 5xx on eviction is still retried.
  api.fail_next({500});
  auto retried = client->evict("ns", "guarded");
  ASSERT_TRUE(retried);
  EXPECT_EQ(retried->outcome, EvictionResult::Outcome::Blocked);
}

// A 429 without the DisruptionBudget cause is the server shedding load: retried like
// any 429, and the eviction goes through.
TEST(KubeClientCalls, EvictionOverloadIsRetriedButABudgetRefusalIsNot) {
  FakeApiServer api;
  api.upsert("/api/v1/pods", pod("ns", "a"));
  auto client = client_for(api.url());
  int before = api.requests();
  api.fail_next({429, 429});
  auto evicted = client->evict("ns", "a");
  ASSERT_TRUE(evicted) << evicted.message();
  EXPECT_EQ(evicted->outcome, EvictionResult::Outcome::Evicted);
  EXPECT_EQ(api.requests() - before, 3);
}

TEST(KubeClientCalls, EventsAreRecordedAgainstTheObject) {
  FakeApiServer api;
  auto client = client_for(api.url());
  EventRecorder recorder(*client, "weft-scheduler", "host-a");
  json p = pod("ns", "job-0");
  p["metadata"]["uid"] = "u-1";
  auto e = recorder.record(p, "Warning", "FailedScheduling", "0/3 nodes fit: gang of 4 needs one leaf");
  ASSERT_TRUE(e) << e.message();
  EXPECT_EQ((*e)["involvedObject"]["name"], "job-0");
  EXPECT_EQ((*e)["involvedObject"]["uid"], "u-1");
  EXPECT_EQ((*e)["reason"], "FailedScheduling");
  EXPECT_EQ((*e)["source"]["component"], "weft-scheduler");
  EXPECT_EQ(api.count_requests("POST /api/v1/namespaces/ns/events"), 1);
  auto on_node = recorder.record(node("n1"), "Normal", "Labelled", "ok");
  ASSERT_TRUE(on_node) << on_node.message();
  EXPECT_EQ((*on_node)["metadata"]["namespace"], "default");
}

TEST(KubeClientCalls, TokenFileIsReReadWhenItChanges) {
  FakeApiServer api;
  api.upsert("/api/v1/nodes", node("n1"));
  weft::testing::TempDir dir;
  weft::testing::write_file(dir.file("token"), "first\n");
  auto client = client_for(api.url(), fast_options(), dir.file("token"));
  ASSERT_TRUE(client->get(resources::nodes(), "", "n1"));
  EXPECT_EQ(api.last_authorization(), "Bearer first");
  weft::testing::write_file(dir.file("token"), "second-token\n");
  ASSERT_TRUE(client->get(resources::nodes(), "", "n1"));
  EXPECT_EQ(api.last_authorization(), "Bearer second-token");
}

}  // namespace
}  // namespace weft::kube
