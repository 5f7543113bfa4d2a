// The API semantics of kube-lite without HTTP: versions, conflicts, namespaces,
// status subresources, dry runs, selectors and paging, binding and eviction.
#include "tools/kube-lite/registry.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

namespace weft::kube_lite {
namespace {

using nlohmann::json;

class RegistryTest : public ::testing::Test {
 protected:
  json body(const Reply& r) { return json::parse(r.body_text()); }
  json pod(const std::string& name, json labels = json::object()) {
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"labels", labels}}},
            {"spec", {{"containers", {{{"name", "c"}, {"image", "x:1"}}}}}}};
  }
  json node(const std::string& name) {
    return {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}}};
  }
  Reply make_running(const std::string& ns, const std::string& name) {
    return reg.patch(admin, types.pods(), ns, name, "status", "application/merge-patch+json",
                     R"({"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})", false);
  }

  ResourceTypes types;
  Store store{types.all().size(), 1000};
  Registry reg{types, store};
  User admin{"", {}, {}, std::nullopt, true};
};

TEST_F(RegistryTest, CreateAssignsIdentityAndMonotonicVersions) {
  auto a = reg.create(admin, types.nodes(), "", node("a"), false);
  auto b = reg.create(admin, types.nodes(), "", node("b"), false);
  ASSERT_EQ(a.status, 201);
  ASSERT_EQ(b.status, 201);
  json ja = body(a), jb = body(b);
  EXPECT_FALSE(ja["metadata"]["uid"].get<std::string>().empty());
  EXPECT_NE(ja["metadata"]["uid"], jb["metadata"]["uid"]);
  EXPECT_FALSE(ja["metadata"]["creationTimestamp"].get<std::string>().empty());
  EXPECT_LT(std::stoull(ja["metadata"]["resourceVersion"].get<std::string>()),
            std::stoull(jb["metadata"]["resourceVersion"].get<std::string>()));
  auto again = reg.create(admin, types.nodes(), "", node("a"), false);
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(body(again)["reason"], "AlreadyExists");
  EXPECT_EQ(body(again)["message"], "nodes \"a\" already exists");
}

TEST_F(RegistryTest, NamespacesMustExistAndBuiltinsArePresent) {
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"})
    EXPECT_EQ(reg.get(types.namespaces(), "", ns).status, 200) << ns;
  auto r = reg.create(admin, types.pods(), "nope", pod("p"), false);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(body(r)["message"], "namespaces \"nope\" not found");
  EXPECT_EQ(body(r)["kind"], "Status");
  json other = pod("p");
  other["metadata"]["namespace"] = "other";
  EXPECT_EQ(reg.create(admin, types.pods(), "default", other, false).status, 400);
  auto no_containers = reg.create(admin, types.pods(), "default", {{"metadata", {{"name", "x"}}}}, false);
  EXPECT_EQ(no_containers.status, 422);
}

TEST_F(RegistryTest, GenerateNameAndPodDefaults) {
  json p = pod("");
  p["metadata"].erase("name");
  p["metadata"]["generateName"] = "web-";
  auto r = reg.create(admin, types.pods(), "default", p, false);
  ASSERT_EQ(r.status, 201) << r.body_text();
  json created = body(r);
  std::string name = created["metadata"]["name"];
  EXPECT_EQ(name.rfind("web-", 0), 0u);
  EXPECT_EQ(name.size(), 9u);
  EXPECT_EQ(created["spec"]["schedulerName"], "default-scheduler");
  EXPECT_EQ(created["spec"]["priority"], 0);
  EXPECT_EQ(created["status"]["phase"], "Pending");
  EXPECT_EQ(created["status"]["qosClass"], "BestEffort");
}

TEST_F(RegistryTest, StaleResourceVersionConflictsAndNoOpKeepsVersion) {
  json created = body(reg.create(admin, types.nodes(), "", node("n"), false));
  json update = created;
  update["metadata"]["labels"] = {{"a", "1"}};
  auto ok = reg.update(admin, types.nodes(), "", "n", "", update, false);
  ASSERT_EQ(ok.status, 200);
  auto stale = reg.update(admin, types.nodes(), "", "n", "", update, false);  // old resourceVersion
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(body(stale)["reason"], "Conflict");
  EXPECT_NE(body(stale)["message"].get<std::string>().find("the object has been modified"), std::string::npos);
  uint64_t before = store.resource_version();
  auto same = reg.patch(admin, types.nodes(), "", "n", "", "application/merge-patch+json",
                        R"({"metadata":{"labels":{"a":"1"}}})", false);
  EXPECT_EQ(same.status, 200);
  EXPECT_EQ(store.resource_version(), before);  // nothing changed: no new version
  auto conditional = reg.patch(admin, types.nodes(), "", "n", "", "application/merge-patch+json",
                               R"({"metadata":{"resourceVersion":"1","labels":{"b":"2"}}})", false);
  EXPECT_EQ(conditional.status, 409);
}

TEST_F(RegistryTest, StatusSubresourceSeparatesStatusFromTheRest) {
  reg.create(admin, types.pods(), "default", pod("p"), false);
  auto main = reg.patch(admin, types.pods(), "default", "p", "", "application/merge-patch+json",
                        R"({"metadata":{"labels":{"x":"1"}},"status":{"phase":"Running"}})", false);
  ASSERT_EQ(main.status, 200);
  EXPECT_EQ(body(main)["status"]["phase"], "Pending");
  EXPECT_EQ(body(main)["metadata"]["labels"]["x"], "1");
  auto st = reg.patch(admin, types.pods(), "default", "p", "status", "application/merge-patch+json",
                      R"({"metadata":{"labels":{"x":"2"}},"status":{"phase":"Running"}})", false);
  ASSERT_EQ(st.status, 200);
  EXPECT_EQ(body(st)["status"]["phase"], "Running");
  EXPECT_EQ(body(st)["metadata"]["labels"]["x"], "1");
}

TEST_F(RegistryTest, PodSpecIsImmutableButForImages) {
  reg.create(admin, types.pods(), "default", pod("p"), false);
  auto image = reg.patch(admin, types.pods(), "default", "p", "", "application/strategic-merge-patch+json",
                         R"({"spec":{"containers":[{"name":"c","image":"x:2"}]}})", false);
  EXPECT_EQ(image.status, 200) << image.body_text();
  auto node = reg.patch(admin, types.pods(), "default", "p", "", "application/merge-patch+json",
                        R"({"spec":{"nodeName":"n1"}})", false);
  EXPECT_EQ(node.status, 422);
  EXPECT_NE(body(node)["message"].get<std::string>().find("pod updates may not change fields"), std::string::npos);
}

TEST_F(RegistryTest, DryRunStoresNothing) {
  uint64_t before = store.resource_version();
  EXPECT_EQ(reg.create(admin, types.nodes(), "", node("d"), true).status, 201);
  EXPECT_EQ(reg.get(types.nodes(), "", "d").status, 404);
  reg.create(admin, types.nodes(), "", node("d"), false);
  before = store.resource_version();
  EXPECT_EQ(reg.patch(admin, types.nodes(), "", "d", "", "application/merge-patch+json",
                      R"({"metadata":{"labels":{"a":"b"}}})", true)
                .status,
            200);
  EXPECT_EQ(reg.remove(admin, types.nodes(), "", "d", json(), true).status, 200);
  EXPECT_EQ(store.resource_version(), before);
  EXPECT_EQ(reg.get(types.nodes(), "", "d").status, 200);
}

TEST_F(RegistryTest, CustomResourcesRejectStrategicMergePatch) {
  json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
             {"kind", "PodGroup"},
             {"metadata", {{"name", "g"}}},
             {"spec", {{"minMember", 2}}}};
  const auto& t = *types.find("scheduling.volcano.sh", "v1beta1", "podgroups");
  ASSERT_EQ(reg.create(admin, t, "default", pg, false).status, 201);
  EXPECT_EQ(reg.patch(admin, t, "default", "g", "", "application/strategic-merge-patch+json",
                      R"({"spec":{"minMember":3}})", false)
                .status,
            415);
  auto merged = reg.patch(admin, t, "default", "g", "", "application/merge-patch+json", R"({"spec":{"minMember":3}})",
                          false);
  ASSERT_EQ(merged.status, 200);
  EXPECT_EQ(body(merged)["metadata"]["generation"], 2);
}

TEST_F(RegistryTest, ListFiltersBySelectorsAndPages) {
  reg.create(admin, types.namespaces(), "", {{"metadata", {{"name", "other"}}}}, false);
  for (int i = 0; i < 7; ++i)
    reg.create(admin, types.pods(), i < 5 ? "default" : "other",
               pod("p" + std::to_string(i), {{"app", i % 2 ? "odd" : "even"}}), false);
  make_running("default", "p2");
  auto names = [&](const Reply& r) {
    std::vector<std::string> out;
    json list = body(r);  // not a temporary: the loop below outlives the full-expression
    for (const auto& item : list["items"]) out.push_back(item["metadata"]["name"]);
    return out;
  };
  EXPECT_EQ(names(reg.list(types.pods(), "default", {"app=even", "", 0, ""})),
            (std::vector<std::string>{"p0", "p2", "p4"}));
  EXPECT_EQ(names(reg.list(types.pods(), "", {"app in (odd)", "metadata.namespace=other", 0, ""})),
            (std::vector<std::string>{"p5"}));
  EXPECT_EQ(names(reg.list(types.pods(), "", {"", "status.phase=Running", 0, ""})), (std::vector<std::string>{"p2"}));
  EXPECT_EQ(reg.list(types.pods(), "", {"", "spec.bogus=1", 0, ""}).status, 400);
  EXPECT_EQ(reg.list(types.pods(), "", {"a in (", "", 0, ""}).status, 400);
  std::vector<std::string> all;
  std::string token;
  int pages = 0;
  do {
    auto r = reg.list(types.pods(), "", {"", "", 3, token});
    ASSERT_EQ(r.status, 200);
    for (auto& n : names(r)) all.push_back(n);
    json meta = body(r)["metadata"];
    token = meta.value("continue", "");
    ++pages;
  } while (!token.empty());
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(all.size(), 7u);
  EXPECT_EQ(reg.list(types.pods(), "", {"", "", 3, "garbage"}).status, 400);
}

// Lists by spec.nodeName read the pod index; it must follow loads, bindings and deletes
// and answer exactly as a scan would, paging included.
TEST_F(RegistryTest, ListByNodeNameFollowsBindingsDeletesAndPages) {
  reg.create(admin, types.namespaces(), "", {{"metadata", {{"name", "other"}}}}, false);
  std::vector<kube::SourcedObject> state;
  for (int i = 0; i < 6; ++i) {
    json p = pod("s" + std::to_string(i));
    p["metadata"]["namespace"] = i < 3 ? "default" : "other";
    p["spec"]["nodeName"] = i % 2 ? "n1" : "n2";
    state.push_back({p, "state.json", i + 1});
  }
  ASSERT_TRUE(reg.load(state));
  for (int i = 0; i < 3; ++i) reg.create(admin, types.pods(), "default", pod("u" + std::to_string(i)), false);
  auto names = [&](const std::string& ns, const std::string& fields, int64_t limit = 0) {
    std::vector<std::string> out;
    std::string token;
    do {
      auto r = reg.list(types.pods(), ns, {"", fields, limit, token});
      EXPECT_EQ(r.status, 200);
      json list = body(r);
      for (const auto& item : list["items"]) out.push_back(item["metadata"]["name"]);
      token = list["metadata"].value("continue", "");
    } while (!token.empty());
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names("", "spec.nodeName=n1"), (V{"s1", "s3", "s5"}));
  EXPECT_EQ(names("", "spec.nodeName=n1", 2), (V{"s1", "s3", "s5"}));
  EXPECT_EQ(names("other", "spec.nodeName=n1"), (V{"s3", "s5"}));
  EXPECT_EQ(names("", "spec.nodeName=n1,metadata.name!=s3"), (V{"s1", "s5"}));
  EXPECT_EQ(names("", "spec.nodeName=", 2), (V{"u0", "u1", "u2"}));   // unbound pods
  EXPECT_EQ(names("", "spec.nodeName=n9"), V{});
  json binding = {{"target", {{"kind", "Node"}, {"name", "n1"}}}};
  ASSERT_EQ(reg.bind("default", "u1", binding, false).status, 201);
  ASSERT_EQ(reg.remove(admin, types.pods(), "default", "s1", json(), false).status, 200);
  EXPECT_EQ(names("", "spec.nodeName=n1"), (V{"u1", "s3", "s5"}));
  EXPECT_EQ(names("", "spec.nodeName="), (V{"u0", "u2"}));
  EXPECT_EQ(names("", "spec.nodeName!=n1"), (V{"s0", "s2", "u0", "u2", "s4"}));   // not indexed: a scan
}

// A list filtered by fields is matched on the values kept with each stored object: they
// follow every write, and a paged list returns each matching pod once while pods are
// bound, finished, deleted and created between its pages.
TEST_F(RegistryTest, PagedFieldSelectedListGivesEachMatchingPodOnceWhileWritesHappen) {
  std::vector<kube::SourcedObject> state;
  for (int i = 0; i < 24; ++i) {
    json p = pod("s" + std::to_string(100 + i));
    if (i % 4 != 3) p["spec"]["nodeName"] = "n" + std::to_string(i % 3);
    p["status"] = {{"phase", i % 5 == 4 ? "Failed" : "Running"}};
    state.push_back({p, "state.json", i + 1});
  }
  ASSERT_TRUE(reg.load(state));
  const std::string selector = "spec.nodeName!=,status.phase!=Failed";
  auto matching = [&] {
    std::set<std::string> out;
    json list = body(reg.list(types.pods(), "", {"", selector, 0, ""}));
    for (const auto& item : list["items"]) out.insert(item["metadata"]["name"]);
    return out;
  };
  const std::set<std::string> before = matching();
  EXPECT_EQ(before.size(), 15u);
  json binding = {{"target", {{"kind", "Node"}, {"name", "n1"}}}};
  std::vector<std::string> listed;
  std::set<std::string> touched;
  std::string token;
  for (int page = 0;; ++page) {
    auto r = reg.list(types.pods(), "", {"", selector, 4, token});
    ASSERT_EQ(r.status, 200);
    json list = body(r);
    for (const auto& item : list["items"]) listed.push_back(item["metadata"]["name"]);
    token = list["metadata"].value("continue", "");
    if (token.empty()) break;
    // Writes on both sides of the page boundary.
    const std::string early = "s" + std::to_string(100 + page), late = "s" + std::to_string(123 - page);
    ASSERT_EQ(reg.patch(admin, types.pods(), "default", early, "status", "application/merge-patch+json",
                        R"({"status":{"phase":"Failed"}})", false).status, 200);
    ASSERT_EQ(reg.remove(admin, types.pods(), "default", late, json(), false).status, 200);
    ASSERT_EQ(reg.create(admin, types.pods(), "default", pod("new" + std::to_string(page)), false).status, 201);
    ASSERT_EQ(reg.bind("default", "new" + std::to_string(page), binding, false).status, 201);
    touched.insert({early, late, "new" + std::to_string(page)});
  }
  const std::set<std::string> once(listed.begin(), listed.end());
  EXPECT_EQ(once.size(), listed.size()) << "a pod listed twice";
  for (const auto& name : before) EXPECT_TRUE(touched.count(name) || once.count(name)) << name << " missing";
  for (const auto& name : once) EXPECT_TRUE(before.count(name) || touched.count(name)) << name << " never matched";
  // The kept values follow the writes: finished and deleted pods no longer match.
  const std::set<std::string> after = matching();
  for (const auto& name : touched) EXPECT_TRUE(name[0] != 's' || !after.count(name)) << name;
  EXPECT_TRUE(after.count("new0"));
}

TEST_F(RegistryTest, BindingSetsNodeOnceAndAcceptsUnknownNodes) {
  reg.create(admin, types.pods(), "default", pod("p"), false);
  json binding = {{"apiVersion", "v1"}, {"kind", "Binding"}, {"metadata", {{"name", "p"}}},
                  {"target", {{"kind", "Node"}, {"name", "not-a-node"}}}};
  auto r = reg.bind("default", "p", binding, false);
  EXPECT_EQ(r.status, 201);
  json p = body(reg.get(types.pods(), "default", "p"));
  EXPECT_EQ(p["spec"]["nodeName"], "not-a-node");
  auto again = reg.bind("default", "p", binding, false);
  EXPECT_EQ(again.status, 409);
  EXPECT_NE(body(again)["message"].get<std::string>().find("already assigned to node"), std::string::npos);
  EXPECT_EQ(reg.bind("default", "missing", binding, false).status, 404);
}

// Bindings racing for one pod: exactly one wins, the pod names its node, every other
// is told the pod is already assigned.
TEST_F(RegistryTest, ConcurrentBindingsOfOnePodBindItOnce) {
  for (int round = 0; round < 20; ++round) {
    const std::string name = "race" + std::to_string(round);
    reg.create(admin, types.pods(), "default", pod(name), false);
    std::vector<int> status(8, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        json binding = {{"target", {{"kind", "Node"}, {"name", "n" + std::to_string(t)}}}};
        status[t] = reg.bind("default", name, binding, false).status;
      });
    for (auto& t : threads) t.join();
    int won = -1;
    for (int t = 0; t < 8; ++t) {
      if (status[t] == 201) {
        EXPECT_EQ(won, -1) << "two bindings of " << name << " accepted";
        won = t;
      } else {
        EXPECT_EQ(status[t], 409);
      }
    }
    ASSERT_NE(won, -1);
    EXPECT_EQ(body(reg.get(types.pods(), "default", name))["spec"]["nodeName"], "n" + std::to_string(won));
  }
}

TEST_F(RegistryTest, EvictionHonoursTheBudget) {
  for (const char* n : {"a", "b", "c"}) {
    reg.create(admin, types.pods(), "default", pod(n, {{"app", "db"}}), false);
    make_running("default", n);
  }
  json pdb = {{"apiVersion", "policy/v1"},
              {"kind", "PodDisruptionBudget"},
              {"metadata", {{"name", "db"}}},
              {"spec", {{"minAvailable", "50%"}, {"selector", {{"matchLabels", {{"app", "db"}}}}}}}};
  ASSERT_EQ(reg.create(admin, types.pdbs(), "default", pdb, false).status, 201);
  // 50% of 3 rounds up to 2 desired healthy: one eviction allowed; then 1 of 2.
  EXPECT_EQ(reg.evict("default", "a", json(), false).status, 201);
  EXPECT_EQ(reg.get(types.pods(), "default", "a").status, 404);
  EXPECT_EQ(reg.evict("default", "b", json(), false).status, 201);
  auto blocked = reg.evict("default", "c", json(), false);
  ASSERT_EQ(blocked.status, 429);
  json st = body(blocked);
  EXPECT_EQ(st["message"], "Cannot evict pod as it would violate the pod's disruption budget.");
  EXPECT_EQ(st["reason"], "TooManyRequests");
  EXPECT_EQ(st["details"]["causes"][0]["reason"], "DisruptionBudget");
  json budget = body(reg.get(types.pdbs(), "default", "db"));
  EXPECT_EQ(budget["status"]["disruptionsAllowed"], 0);
  EXPECT_EQ(budget["status"]["currentHealthy"], 1);
  // A pending pod is not protected by the budget.
  reg.create(admin, types.pods(), "default", pod("pending", {{"app", "db"}}), false);
  EXPECT_EQ(reg.evict("default", "pending", json(), false).status, 201);
  EXPECT_EQ(reg.evict("default", "missing", json(), false).status, 404);
}

TEST_F(RegistryTest, StateLoadCreatesNamespacesAndDumpRoundTrips) {
  std::vector<kube::SourcedObject> objects = {
      {pod("x"), "s.yaml", 1},
      {node("n1"), "s.yaml", 2},
  };
  objects[0].object["metadata"]["namespace"] = "team";
  objects[0].object["status"] = {{"phase", "Running"}};
  ASSERT_TRUE(reg.load(objects));
  json x = body(reg.get(types.pods(), "team", "x"));
  EXPECT_EQ(x["status"]["phase"], "Running");  // state keeps status as given
  EXPECT_EQ(reg.get(types.namespaces(), "", "team").status, 200);
  json dumped = reg.dump();
  EXPECT_EQ(dumped["kind"], "List");
  EXPECT_EQ(dumped["items"].size(), 3u);  // namespace team, node, pod
  std::vector<kube::SourcedObject> bad = {{{{"apiVersion", "v9"}, {"kind", "Thing"}, {"metadata", {{"name", "t"}}}},
                                           "bad.yaml", 4}};
  auto loaded = reg.load(bad);
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.message().find("bad.yaml"), std::string::npos) << loaded.message();
}

}  // namespace
}  // namespace weft::kube_lite
