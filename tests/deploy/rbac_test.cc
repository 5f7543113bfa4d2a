// The least-privilege RBAC of deploy/ is enough: the descheduler (both forms) and the agent
// run against kube-lite with tokens holding exactly the rules their bindings grant, and no
// request of theirs is refused. (kube-lite rules carry no namespace: a Role's rules are
// granted everywhere there, a little more than on a real cluster, never less.)
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/defragment/fixtures.h"
#include "tests/deploy/render.h"
#include "tests/support/kube_lite.h"
#include "tests/support/process.h"

namespace weft::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

json as_json(const YAML::Node& seq) {
  json out = json::array();
  for (const auto& v : seq) out.push_back(v.as<std::string>());
  return out;
}

// The rules bound to ServiceAccount ns/name by the rendered (Cluster)RoleBindings.
json rules_for(const Rendered& r, const std::string& ns, const std::string& name) {
  json rules = json::array();
  for (const auto& b : r.objects) {
    const std::string kind = b["kind"].as<std::string>();
    if (kind != "RoleBinding" && kind != "ClusterRoleBinding") continue;
    bool bound = false;
    for (const auto& s : b["subjects"])
      bound = bound || (s["kind"].as<std::string>() == "ServiceAccount" && s["name"].as<std::string>() == name &&
                        s["namespace"].as<std::string>("") == ns);
    if (!bound) continue;
    YAML::Node role = find_object(r, b["roleRef"]["kind"].as<std::string>(), b["roleRef"]["name"].as<std::string>());
    EXPECT_TRUE(role) << kind << " " << b["metadata"]["name"] << " binds a role deploy/ does not have";
    for (const auto& rule : role["rules"]) {
      json j = {{"verbs", as_json(rule["verbs"])}, {"apiGroups", as_json(rule["apiGroups"])},
                {"resources", as_json(rule["resources"])}};
      if (rule["resourceNames"]) j["resourceNames"] = as_json(rule["resourceNames"]);
      rules.push_back(j);
    }
  }
  return rules;
}

json tokens(const json& rules, const std::string& user) {
  return json::array({{{"token", "component"}, {"user", user}, {"rules", rules}},
                      {{"token", "admin"},
                       {"user", "admin"},
                       {"rules", json::array({{{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}}})}}});
}

int refused(const KubeLite& api, const std::string& user, std::string* which) {
  int n = 0;
  for (const auto& q : api.requests()) {
    if (q.value("user", "") != user || q.value("status", 0) != 403) continue;
    ++n;
    *which += q.dump() + "\n";
  }
  return n;
}

// Creates what deploy/ ships besides the workloads (the state ConfigMap, the Leases).
void apply_owned_objects(kube::Client& admin, const Rendered& r) {
  for (const auto& o : r.objects) {
    const std::string kind = o["kind"].as<std::string>();
    if (kind != "Lease" && !(kind == "ConfigMap" && o["metadata"]["name"].as<std::string>() == "weft-descheduler-state"))
      continue;
    json obj = {{"apiVersion", o["apiVersion"].as<std::string>()},
                {"kind", kind},
                {"metadata", {{"name", o["metadata"]["name"].as<std::string>()},
                              {"namespace", o["metadata"]["namespace"].as<std::string>()}}}};
    kube::ResourceRef ref = kind == "Lease" ? kube::ResourceRef{"coordination.k8s.io", "v1", "leases", true}
                                            : kube::resources::configmaps();
    auto created = admin.create(ref, obj["metadata"]["namespace"], obj);
    ASSERT_TRUE(created) << created.message();
  }
}

std::string need() {
  if (auto r = KubeLite::need(); !r.empty()) return r;
  if (auto r = need_tools({"kubectl"}); !r.empty()) return r;
  for (const char* b : {"descheduler/weft-descheduler", "node-agent/weft-agent"})
    if (!std::filesystem::exists(binary(b))) return std::string(b) + " is not built";
  return "";
}

TEST(DeployRbac, TheDeschedulerWorksWithItsRolesInBothForms) {
  WEFT_SKIP_UNLESS(need());
  TempDir dir("deploy-rbac-desched");
  const std::string user = "system:serviceaccount:kube-system:weft-descheduler";
  Rendered interval = kustomize(source_path("deploy/descheduler/interval"));
  ASSERT_EQ(interval.error, "");
  write_file(dir.file("tokens.json"), tokens(rules_for(interval, "kube-system", "weft-descheduler"), user).dump());
  write_file(dir.file("cluster.json"), hot_and_cool_cluster().dump());
  write_file(dir.file("policy.yaml"),
             find_object(interval, "ConfigMap", "weft-descheduler-policy")["data"]["policy.yaml"].as<std::string>());
  KubeLite api({.state = dir.file("cluster.json"), .tokens = dir.file("tokens.json")});
  ASSERT_EQ(api.error(), "");
  apply_owned_objects(*api.client_for_token("admin"), interval);
  const std::string kubeconfig = api.kubeconfig_for_token("component", "descheduler");
  const std::map<std::string, std::string> env = {{"POD_NAMESPACE", "kube-system"}};

  // CronJob form: one cycle that evicts and saves its state in the shipped ConfigMap.
  auto [code, out] = run_command({binary("descheduler/weft-descheduler"), "run", "--policy", dir.file("policy.yaml"),
                                  "--kubeconfig", kubeconfig, "--once", "--load", "annotations",
                                  "--state-configmap", "kube-system/weft-descheduler-state"},
                                 60s, env);
  EXPECT_EQ(code, 0) << out;
  auto state = api.client_for_token("admin")->get(kube::resources::configmaps(), "kube-system", "weft-descheduler-state");
  ASSERT_TRUE(state) << state.message();
  EXPECT_TRUE((*state).contains("data") && (*state)["data"].contains("state.json")) << state->dump();
  int evictions = 0;
  for (const auto& q : api.requests())
    evictions += q.value("path", "").ends_with("/eviction") && q.value("status", 0) == 201 ? 1 : 0;
  EXPECT_GE(evictions, 1) << out;

  // Deployment form: leader election on the shipped Lease.
  Process p({.argv = {binary("descheduler/weft-descheduler"), "run", "--policy", dir.file("policy.yaml"), "--kubeconfig",
                      kubeconfig, "--interval", "1s", "--dry-run", "--load", "annotations", "--lease",
                      "kube-system/weft-descheduler", "--metrics-listen", ""},
             .env = env,
             .keep_stdin_open = false});
  bool held = false;
  for (int i = 0; i < 50 && !held; ++i) {
    std::this_thread::sleep_for(100ms);
    auto lease = api.client_for_token("admin")->get(kube::ResourceRef{"coordination.k8s.io", "v1", "leases", true},
                                                    "kube-system", "weft-descheduler");
    held = lease && lease->value("spec", nlohmann::json::object()).value("holderIdentity", "") != "";   // no spec until taken
  }
  std::this_thread::sleep_for(1500ms);   // a cycle or two under the lease
  p.stop(3s);
  EXPECT_TRUE(held) << p.output();
  std::string which;
  EXPECT_EQ(refused(api, user, &which), 0) << "deploy/descheduler RBAC lacks a permission:\n" << which;
}

// GangDefragment with the optional component: the run reserves a room on the gang's
// PodGroup and evicts its victims, and nothing it asks is refused. Without the component
// the reservation is refused (the base role only lists).
TEST(DeployRbac, GangDefragmentWorksWithItsComponentOnly) {
  WEFT_SKIP_UNLESS(need());
  TempDir dir("deploy-rbac-defrag");
  const std::string user = "system:serviceaccount:kube-system:weft-descheduler";
  write_overlay(dir.file("with"), {"deploy/descheduler/interval"},
                "components:\n  - " +
                    std::filesystem::relative(source_path("deploy/components/descheduler-gang-defragment"),
                                              dir.file("with"))
                        .string() +
                    "\n");
  auto objects = defrag_test::fragmented_fabric();
  defrag_test::add_gang(objects, "train", 4, 8, 1);
  write_file(dir.file("cluster.json"), json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", objects}}.dump());
  write_file(dir.file("policy.yaml"),
             "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n  - name: gangs\n"
             "    pluginConfig:\n      - {name: GangDefragment, args: {reservationTTL: 10m}}\n"
             "    plugins:\n      balance: {enabled: [GangDefragment]}\n");
  auto reservations = [&](bool with_component) {
    Rendered r = with_component ? kustomize(dir.file("with")) : kustomize(source_path("deploy/descheduler/interval"));
    EXPECT_EQ(r.error, "");
    write_file(dir.file("tokens.json"), tokens(rules_for(r, "kube-system", "weft-descheduler"), user).dump());
    KubeLite api({.state = dir.file("cluster.json"), .tokens = dir.file("tokens.json")});
    EXPECT_EQ(api.error(), "");
    apply_owned_objects(*api.client_for_token("admin"), r);
    auto [code, out] = run_command({binary("descheduler/weft-descheduler"), "run", "--policy", dir.file("policy.yaml"),
                                    "--kubeconfig", api.kubeconfig_for_token("component", "descheduler"), "--once",
                                    "--state-configmap", "kube-system/weft-descheduler-state"},
                                   60s, {{"POD_NAMESPACE", "kube-system"}});
    EXPECT_EQ(code, 0) << out;
    std::string which;
    const int refusals = refused(api, user, &which);
    if (with_component) {
      EXPECT_EQ(refusals, 0) << "the component lacks a permission:\n" << which;
    }
    int written = 0;
    for (const auto& q : api.requests())
      written += q.value("verb", "") == "PATCH" && q.value("path", "").find("/podgroups/") != std::string::npos &&
                         q.value("status", 0) == 200
                     ? 1
                     : 0;
    return written;
  };
  EXPECT_GE(reservations(true), 1);
  EXPECT_EQ(reservations(false), 0);
}

TEST(DeployRbac, TheAgentPublishesWithItsRole) {
  WEFT_SKIP_UNLESS(need());
  TempDir dir("/dev/shm/deploy-rbac-agent");
  Rendered r = kustomize(source_path("deploy"));
  ASSERT_EQ(r.error, "");
  const std::string user = "system:serviceaccount:weft-system:weft-agent";
  write_file(dir.file("tokens.json"), tokens(rules_for(r, "weft-system", "weft-agent"), user).dump());
  write_file(dir.file("cluster.json"), hot_and_cool_cluster().dump());
  KubeLite api({.state = dir.file("cluster.json"), .tokens = dir.file("tokens.json")});
  ASSERT_EQ(api.error(), "");
  Process agent({.argv = {binary("node-agent/weft-agent"), "run", "--kubeconfig",
                          api.kubeconfig_for_token("component", "agent"), "--node-name", "hot", "--listen",
                          "127.0.0.1:" + std::to_string(free_port()), "--load-interval", "1s"},
                 .cwd = dir.path(),
                 .keep_stdin_open = false});
  bool published = false;
  for (int i = 0; i < 100 && !published; ++i) {
    std::this_thread::sleep_for(100ms);
    auto node = api.client_for_token("admin")->get(kube::resources::nodes(), "", "hot");
    published = node && (*node)["metadata"]["labels"].contains("weft.dev/rdma");
  }
  agent.stop(3s);
  EXPECT_TRUE(published) << agent.output();
  std::string which;
  EXPECT_EQ(refused(api, user, &which), 0) << "deploy/agent RBAC lacks a permission:\n" << which;
}

}  // namespace
}  // namespace weft::testing
