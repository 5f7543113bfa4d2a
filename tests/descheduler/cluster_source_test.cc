// How `run` lists the cluster (descheduler/app/cluster_source.h): every kind requested at
// once, and a pod list that expires half-read listed again into a fresh cluster, so no
// pod is counted twice.
#include "descheduler/app/cluster_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

#include "tests/support/function_transport.h"

namespace weft::descheduler {
namespace {

using kube::HttpRequest;
using kube::HttpResponse;

kube::ClientOptions fast() {
  kube::ClientOptions o;
  o.qps = 0;
  o.backoff = kube::BackoffPolicy{kube::Millis(1), 2.0, kube::Millis(2), 0};
  o.max_attempts = 2;
  return o;
}

std::string pod(const std::string& name) {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"default","uid":"u-)" + name +
         R"("},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"x"}]},"status":{"phase":"Running"}})";
}

HttpResponse list_of(const std::string& items, const std::string& next = "") {
  std::string meta = R"({"resourceVersion":"9")" + (next.empty() ? "" : R"(,"continue":")" + next + "\"") + "}";
  return {200, R"({"kind":"List","metadata":)" + meta + R"(,"items":[)" + items + "]}", {}};
}

const std::string kNode = R"({"metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"8","memory":"16Gi","pods":"110"}}})";

// The collection a request lists: "/api/v1/pods" from "/api/v1/pods?limit=...".
std::string collection(const HttpRequest& r) { return r.path.substr(0, r.path.find('?')); }

TEST(ClusterFromApi, AsksForEveryKindBeforeTheFirstIsAnswered) {
  std::mutex mu;
  std::condition_variable seen;
  std::map<std::string, int> asked;
  bool pods_asked_while_nodes_pending = false;
  auto transport = std::make_shared<testing::FunctionTransport>([&](const HttpRequest& r) {
    std::unique_lock lock(mu);
    const std::string what = collection(r);
    ++asked[what];
    seen.notify_all();
    if (what == "/api/v1/nodes") {
      pods_asked_while_nodes_pending = seen.wait_for(lock, std::chrono::seconds(3), [&] {
        return asked.count("/api/v1/pods") && asked.count("/api/v1/namespaces");
      });
      return list_of(kNode);
    }
    if (what == "/api/v1/pods") return list_of(pod("a") + "," + pod("b"));
    return list_of("");
  });
  kube::Client client(transport, fast());
  std::vector<std::string> warnings;
  auto cluster = cluster_from_api(client, warnings);
  ASSERT_TRUE(cluster) << cluster.message();
  EXPECT_TRUE(pods_asked_while_nodes_pending);
  EXPECT_EQ(cluster->nodes.size(), 1u);
  EXPECT_EQ(cluster->pods.size(), 2u);
}

TEST(ClusterFromApi, APodListExpiredHalfReadIsListedAgainIntoAFreshCluster) {
  std::mutex mu;
  int expired = 0, pod_requests = 0;
  auto transport = std::make_shared<testing::FunctionTransport>([&](const HttpRequest& r) {
    std::lock_guard lock(mu);
    const std::string what = collection(r);
    if (what == "/api/v1/nodes") return list_of(kNode);
    if (what != "/api/v1/pods") return list_of("");
    ++pod_requests;
    if (r.path.find("continue=second") == std::string::npos) return list_of(pod("a") + "," + pod("b"), "second");
    if (expired++ == 0)
      return HttpResponse{410, R"({"kind":"Status","code":410,"reason":"Expired","message":"too old"})", {}};
    return list_of(pod("c"));
  });
  kube::Client client(transport, fast());
  std::vector<std::string> warnings;
  auto cluster = cluster_from_api(client, warnings);
  ASSERT_TRUE(cluster) << cluster.message();
  ASSERT_EQ(cluster->pods.size(), 3u);
  std::vector<std::string> names;
  for (const auto& p : cluster->pods) names.push_back(p.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(pod_requests, 4);   // two pages, the second expired; then both again
}

// Each page's pods are read on two threads: the cluster still has them in the list's
// order, each linked to its own record in the scheduler's snapshot.
TEST(ClusterFromApi, PagesReadOnTwoThreadsKeepTheListsOrder) {
  constexpr int kPages = 3, kPerPage = 150;
  auto name = [](int i) { return "p" + std::to_string(1000 + i); };
  auto transport = std::make_shared<testing::FunctionTransport>([&](const HttpRequest& r) {
    const std::string what = collection(r);
    if (what == "/api/v1/nodes") return list_of(kNode);
    if (what != "/api/v1/pods") return list_of("");
    const size_t at = r.path.find("continue=page");
    const int page = at == std::string::npos ? 0 : std::stoi(r.path.substr(at + 13));
    std::string items;
    for (int i = page * kPerPage; i < (page + 1) * kPerPage; ++i) items += (items.empty() ? "" : ",") + pod(name(i));
    return list_of(items, page + 1 < kPages ? "page" + std::to_string(page + 1) : "");
  });
  kube::Client client(transport, fast());
  std::vector<std::string> warnings;
  auto cluster = cluster_from_api(client, warnings);
  ASSERT_TRUE(cluster) << cluster.message();
  ASSERT_EQ(cluster->pods.size(), static_cast<size_t>(kPages * kPerPage));
  for (int i = 0; i < kPages * kPerPage; ++i) {
    const PodInfo& p = cluster->pods[static_cast<size_t>(i)];
    EXPECT_EQ(p.name, name(i));
    ASSERT_NE(p.spec, nullptr);
    EXPECT_EQ(p.spec->name, name(i));
  }
}

// A node list's items (no kind: the list says it) are read from their text as their trees
// read: labels, taints, allocatable, conditions and the load annotation; one the text
// reader refuses is told about by its tree.
TEST(ClusterFromApi, NodesAreReadFromTheirText) {
  const std::string tainted =
      R"({"metadata":{"name":"n2","labels":{"weft.dev/leaf":"l2","n":3},"annotations":{"weft.dev/load":)"
      R"("{\"cpu\":0.5,\"memory\":0.25,\"at\":\"2026-11-28T04:00:00Z\"}"}},)"
      R"("spec":{"taints":[{"key":"gpu","effect":"NoSchedule"}]},)"
      R"("status":{"capacity":{"cpu":"4","pods":"10"},"conditions":[{"type":"Ready","status":"False"}]}})";
  std::string nodes = kNode + "," + tainted;
  auto transport = std::make_shared<testing::FunctionTransport>([&](const HttpRequest& r) {
    const std::string what = collection(r);
    if (what == "/api/v1/nodes") return list_of(nodes);
    if (what == "/api/v1/pods") return list_of(pod("p1"));
    return list_of("");
  });
  kube::Client client(transport, fast());
  std::vector<std::string> warnings;
  auto cluster = cluster_from_api(client, warnings);
  ASSERT_TRUE(cluster) << cluster.message();
  ASSERT_EQ(cluster->nodes.size(), 2u);
  const NodeInfo* n2 = cluster->node("n2");
  ASSERT_NE(n2, nullptr);
  EXPECT_EQ(n2->labels.at("weft.dev/leaf"), "l2");
  EXPECT_EQ(n2->labels.at("n"), "3");
  ASSERT_EQ(n2->taints.size(), 1u);
  EXPECT_EQ(n2->taints[0].key, "gpu");
  EXPECT_EQ(n2->allocatable.at("cpu"), 4000);
  EXPECT_FALSE(n2->ready);
  ASSERT_TRUE(n2->annotated_load);
  EXPECT_EQ(n2->annotated_load->cpu, 0.5);
  EXPECT_EQ(n2->annotated_load->source, "annotation");
  ASSERT_EQ(cluster->snapshot.nodes.size(), 2u);
  EXPECT_EQ(cluster->snapshot.nodes[1].name, "n2");
  EXPECT_EQ(cluster->snapshot.nodes[1].taints.size(), 1u);
  ASSERT_EQ(cluster->pods.size(), 1u);
  EXPECT_EQ(cluster->nodes[static_cast<size_t>(cluster->pods[0].node)].name, "n1");

  nodes = kNode + "," + R"({"metadata":{"name":"n3"},"status":{"allocatable":{"cpu":"lots"}}})";
  auto bad = cluster_from_api(client, warnings);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("n3"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("status.allocatable"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace weft::descheduler
