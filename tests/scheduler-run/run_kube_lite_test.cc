// `weft-scheduler run` against a real kube-lite started from a scenario, with injected API
// faults (500/429 answers, dropped watches): it must bind what `weft-scheduler simulate`
// places for the same scenario, write PodGroup status only on change, report why jobs
// are pending, keep to the RBAC of deploy/scheduler, and with two replicas only the
// leader binds.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include <yaml-cpp/yaml.h>

#include "kube/client/resource.h"
#include "kube/objects.h"
#include "kube/scenario.h"
#include "tests/support/kube_lite.h"
#include "tests/support/process.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using weft::testing::KubeLite;
using weft::testing::KubeLiteOptions;
using weft::testing::Process;
using weft::testing::TempDir;
using Placements = std::map<std::string, std::string>;   // pod -> node ("" = pending)

std::string scheduler_binary() { return weft::testing::binary("scheduler/weft-scheduler"); }
std::string scenario(const std::string& name) {
  return weft::testing::source_path("tests/scheduler-run/scenarios/" + name);
}

std::string need_binaries() {
  if (auto r = KubeLite::need(); !r.empty()) return r;
  std::error_code ec;
  if (!std::filesystem::exists(scheduler_binary(), ec)) return "weft-scheduler not built at " + scheduler_binary();
  return "";
}

json simulate(const std::string& path) {
  auto [code, out] = weft::testing::run_command({scheduler_binary(), "simulate", path, "--output", "json"});
  EXPECT_EQ(code, 0) << out;
  json report = json::parse(out, nullptr, false);
  EXPECT_FALSE(report.is_discarded()) << out;
  return report;
}

Placements simulated_placements(const json& report) {
  Placements out;
  for (const auto& p : report["pods"]) out[p["pod"]] = p["node"].is_string() ? p["node"].get<std::string>() : "";
  return out;
}

Placements api_placements(kube::Client& client) {
  Placements out;
  auto pods = client.list(kube::resources::pods(), "");
  EXPECT_TRUE(pods) << pods.message();
  if (!pods) return out;
  for (const auto& p : pods->items) out[kube::key_of(p)] = p["spec"].value("nodeName", "");
  return out;
}

// Every request but reads, one line each ("at verb path status"): what a failure shows.
std::string writes_seen_by(const KubeLite& api) {
  std::string out;
  for (const auto& r : api.requests())
    if (r.value("verb", "") != "GET")
      out += r.value("at", "") + " " + r.value("verb", "") + " " + r.value("path", "") + " " +
             std::to_string(r.value("status", 0)) + "\n";
  return out;
}

// Successful writes per PodGroup of podgroups/status, from kube-lite's request log.
std::map<std::string, int> status_writes(const KubeLite& api) {
  static const std::regex path("/apis/scheduling\\.volcano\\.sh/v1beta1/namespaces/([^/]+)/podgroups/([^/]+)/status");
  std::map<std::string, int> out;
  for (const auto& r : api.requests()) {
    const std::string verb = r.value("verb", "");
    const std::string p = r.value("path", "");
    std::smatch m;
    if ((verb == "PUT" || verb == "PATCH") && std::regex_match(p, m, path) && r.value("status", 0) / 100 == 2) {
      ++out[m[1].str() + "/" + m[2].str()];
    }
  }
  return out;
}

std::vector<std::string> run_args(const std::string& kubeconfig, std::vector<std::string> extra) {
  std::vector<std::string> argv = {scheduler_binary(), "run", "--kubeconfig", kubeconfig, "--period", "150ms"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

struct SameAsSimulate : ::testing::TestWithParam<std::string> {};

TEST_P(SameAsSimulate, BindsWhatSimulatePlacesDespiteApiFaults) {
  WEFT_SKIP_UNLESS(need_binaries());
  const std::string path = scenario(GetParam());
  json report = simulate(path);
  const int cycles = report.value("cycles", 0);
  ASSERT_GT(cycles, 0);

  // Injected 429s say Retry-After: 0 so the suite stays fast; 500s back off as usual.
  KubeLite api({.state = path, .fail_rate = 0.2, .drop_watch_after = 3, .extra_args = {"--retry-after", "0"}});
  ASSERT_EQ(api.error(), "");
  auto [code, out] = weft::testing::run_command(
      run_args(api.kubeconfig(), {"--cycles", std::to_string(cycles + 4)}), seconds(60));
  ASSERT_EQ(code, 0) << out;
  const auto expected = simulated_placements(report);
  EXPECT_EQ(api_placements(api.client()), expected) << out;

  // Status: written only when it changes, so as often as simulate writes it, although
  // `run` went through more cycles than simulate needed.
  std::map<std::string, int> simulated_writes;
  for (const auto& pg : report["podgroups"]) simulated_writes[pg["name"]] = pg["status_writes"];
  std::erase_if(simulated_writes, [](const auto& kv) { return kv.second == 0; });
  EXPECT_EQ(status_writes(api), simulated_writes);
  for (const auto& pg : report["podgroups"]) {
    const std::string name = pg["name"];
    const auto slash = name.find('/');
    auto got = api.client().get(kube::resources::podgroups(), name.substr(0, slash), name.substr(slash + 1));
    ASSERT_TRUE(got) << got.message();
    EXPECT_EQ((*got)["status"].value("phase", ""), pg["phase"]) << name;
  }

  // A fresh process (no memory of what was written) finds nothing to write or bind.
  const size_t before = api.requests().size();
  auto [code2, out2] = weft::testing::run_command(run_args(api.kubeconfig(), {"--cycles", "3"}), seconds(60));
  ASSERT_EQ(code2, 0) << out2;
  EXPECT_EQ(status_writes(api), simulated_writes) << out2;
  for (size_t i = before; i < api.requests().size(); ++i) {
    EXPECT_EQ(api.requests()[i].value("path", "").find("/binding"), std::string::npos) << api.requests()[i].dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, SameAsSimulate,
                         ::testing::Values("gangs_ib_cluster.yaml", "hard_tier.yaml", "plain_pods.yaml", "queues.yaml",
                                           "volumes.yaml"),
                         [](const auto& info) {
                           std::string n = info.param.substr(0, info.param.find('.'));
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(SchedulerRun, PendingJobGetsConditionAndEventNamingTheFilter) {
  WEFT_SKIP_UNLESS(need_binaries());
  KubeLite api({.state = scenario("hard_tier.yaml"), .drop_watch_after = 5});
  ASSERT_EQ(api.error(), "");
  auto [code, out] = weft::testing::run_command(run_args(api.kubeconfig(), {"--cycles", "4"}), seconds(60));
  ASSERT_EQ(code, 0) << out;
  auto pg = api.client().get(kube::resources::podgroups(), "default", "too-wide");
  ASSERT_TRUE(pg) << pg.message();
  std::string condition;
  for (const auto& c : (*pg)["status"].value("conditions", json::array())) {
    if (c.value("type", "") == "Unschedulable" && c.value("status", "") == "True") condition = c.value("message", "");
  }
  ASSERT_FALSE(condition.empty()) << pg->dump();
  auto events = api.client().list(kube::resources::events(), "default");
  ASSERT_TRUE(events) << events.message();
  int unschedulable = 0;
  for (const auto& e : events->items) {
    if (e["involvedObject"].value("name", "") == "too-wide" && e.value("reason", "") == "Unschedulable") {
      ++unschedulable;
      EXPECT_EQ(e.value("message", ""), condition);
      EXPECT_EQ(e["involvedObject"].value("kind", ""), "PodGroup");
    }
  }
  EXPECT_EQ(unschedulable, 1) << "one Event per distinct reason, not one per cycle";
}

// The tokens file for kube-lite: the rules of deploy/scheduler/rbac.yaml (ClusterRole and
// Role) for each scheduler identity, and an administrator for the test itself.
json tokens_from_deploy_rbac(const std::vector<std::string>& users) {
  json rules = json::array();
  for (const auto& doc : YAML::LoadAllFromFile(weft::testing::source_path("deploy/scheduler/rbac.yaml"))) {
    const std::string kind = doc["kind"].as<std::string>();
    if (kind != "ClusterRole" && kind != "Role") continue;
    for (const auto& r : doc["rules"]) {
      json rule = {{"verbs", r["verbs"].as<std::vector<std::string>>()},
                   {"apiGroups", r["apiGroups"].as<std::vector<std::string>>()},
                   {"resources", r["resources"].as<std::vector<std::string>>()}};
      if (r["resourceNames"]) rule["resourceNames"] = r["resourceNames"].as<std::vector<std::string>>();
      rules.push_back(rule);
    }
  }
  json out = json::array();
  for (const auto& u : users) out.push_back({{"token", "token-" + u}, {"user", u}, {"rules", rules}});
  out.push_back({{"token", "token-admin"},
                 {"user", "admin"},
                 {"rules", json::array({{{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}}})}});
  return out;
}

std::map<std::string, int> bindings_by_user(const KubeLite& api) {
  std::map<std::string, int> out;
  for (const auto& r : api.requests()) {
    const std::string p = r.value("path", "");
    if (r.value("verb", "") == "POST" && p.size() > 8 && p.ends_with("/binding") && r.value("status", 0) / 100 == 2) {
      ++out[r.value("user", "")];
    }
  }
  return out;
}

int forbidden_for(const KubeLite& api, const std::string& user) {
  int n = 0;
  for (const auto& r : api.requests()) n += r.value("user", "") == user && r.value("status", 0) == 403 ? 1 : 0;
  return n;
}

bool wait_until(const std::function<bool()>& done, milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(milliseconds(50));
  }
  return done();
}

json pending_pod(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"schedulerName", "weft"},
            {"containers", json::array({{{"name", "main"},
                                         {"image", "busybox"},
                                         {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}}}}}})}}}};
}

// A pod the core cannot take (here volcano.sh/preemptable "maybe", which Volcano's
// ParseBool refuses) is left pending with one warning per version, through the typed cache,
// and the rest is scheduled around it.
TEST(SchedulerRun, APodTheCoreCannotTakeIsSkippedWithOneWarningAndTheRestScheduled) {
  WEFT_SKIP_UNLESS(need_binaries());
  KubeLite api({.state = scenario("plain_pods.yaml")});
  ASSERT_EQ(api.error(), "");
  json bad = pending_pod("undecidable");
  bad["metadata"]["annotations"] = {{"volcano.sh/preemptable", "maybe"}};
  ASSERT_TRUE(api.client().create(kube::resources::pods(), "default", bad));
  ASSERT_TRUE(api.client().create(kube::resources::pods(), "default", pending_pod("fine")));
  auto [code, out] = weft::testing::run_command(run_args(api.kubeconfig(), {"--cycles", "4"}), seconds(60));
  ASSERT_EQ(code, 0) << out;
  auto node_of = [&](const std::string& name) {
    auto p = api.client().get(kube::resources::pods(), "default", name);
    return p ? (*p)["spec"].value("nodeName", "") : "<" + p.message() + ">";
  };
  EXPECT_NE(node_of("fine"), "");
  EXPECT_EQ(node_of("undecidable"), "");
  const std::string warning = "skipping Pod default/undecidable: Pod default/undecidable: "
                              "metadata.annotations.volcano.sh/preemptable: 'maybe' is not a boolean";
  size_t found = 0;
  for (size_t at = out.find(warning); at != std::string::npos; at = out.find(warning, at + 1)) ++found;
  EXPECT_EQ(found, 1u) << out;
}

// A pod created between two cycles of a long --period is placed once arrivals have been
// quiet for --early-cycle-after, not a period later; with 0, only the period starts a cycle.
TEST(SchedulerRun, ANewPendingPodStartsACycleBeforeThePeriodIsUp) {
  WEFT_SKIP_UNLESS(need_binaries());
  for (const std::string early : {"50ms", "0"}) {
    KubeLite api({.state = scenario("plain_pods.yaml")});
    ASSERT_EQ(api.error(), "");
    Process run({.argv = {scheduler_binary(), "run", "--kubeconfig", api.kubeconfig(), "--period", "60s",
                          "--early-cycle-after", early},
                 .keep_stdin_open = false});
    auto bound = [&](const std::string& name) {
      auto p = api.client().get(kube::resources::pods(), "default", name);
      return p && !(*p)["spec"].value("nodeName", "").empty();
    };
    // The first cycle runs at once; wait until it has bound the scenario's pods.
    ASSERT_TRUE(wait_until([&] { return bound("web-1"); }, seconds(20))) << run.output();
    ASSERT_TRUE(api.client().create(kube::resources::pods(), "default", pending_pod("late")));
    if (early == "0") {
      std::this_thread::sleep_for(seconds(3));
      EXPECT_FALSE(bound("late")) << "no early cycle with --early-cycle-after 0\n" << run.output();
    } else {
      EXPECT_TRUE(wait_until([&] { return bound("late"); }, seconds(5))) << run.output();
    }
  }
}

TEST(SchedulerRun, TwoReplicasOnlyTheLeaderBindsAndTheStandbyTakesOver) {
  WEFT_SKIP_UNLESS(need_binaries());
  TempDir dir("sched-run");
  weft::testing::write_file(dir.file("tokens.json"), tokens_from_deploy_rbac({"sched-a", "sched-b"}).dump());
  const std::string path = scenario("queues.yaml");
  const Placements expected = simulated_placements(simulate(path));
  KubeLite api({.state = path, .tokens = dir.file("tokens.json"), .fail_rate = 0.1, .drop_watch_after = 5,
                .extra_args = {"--retry-after", "0"}});
  ASSERT_EQ(api.error(), "");
  auto admin = api.client_for_token("token-admin");
  // deploy/scheduler/lease.yaml ships the Lease; the Role may only get and update it.
  ASSERT_TRUE(admin->create(kube::ResourceRef{"coordination.k8s.io", "v1", "leases", true}, "default",
                            json{{"apiVersion", "coordination.k8s.io/v1"},
                                 {"kind", "Lease"},
                                 {"metadata", {{"name", "weft-scheduler"}, {"namespace", "default"}}},
                                 {"spec", json::object()}}));
  auto replica = [&](const std::string& user) {
    std::vector<std::string> argv = run_args(
        api.kubeconfig_for_token("token-" + user, user),
        {"--leader-elect", "--lease-namespace", "default", "--identity", user, "--leader-elect-lease-duration", "2s",
         "--leader-elect-renew-deadline", "1500ms", "--leader-elect-retry-period", "200ms"});
    return std::make_unique<Process>(Process::Options{.argv = argv, .keep_stdin_open = false});
  };
  auto a = replica("sched-a");
  auto b = replica("sched-b");
  ASSERT_TRUE(wait_until([&] { return api_placements(*admin) == expected; }, seconds(30)))
      << a->output() << "\n----\n" << b->output();

  auto by_user = bindings_by_user(api);
  ASSERT_EQ(by_user.size(), 1u) << "bindings by more than one replica";
  const std::string leader = by_user.begin()->first;
  auto& leader_process = leader == "sched-a" ? a : b;
  auto& standby_process = leader == "sched-a" ? b : a;
  const std::string standby = leader == "sched-a" ? "sched-b" : "sched-a";

  // The leader stops (and gives the Lease up); the standby takes over and binds new work.
  EXPECT_EQ(leader_process->stop(milliseconds(5000)), 0) << leader_process->output();
  ASSERT_TRUE(admin->create(kube::resources::pods(), "default", pending_pod("late-1")));
  ASSERT_TRUE(wait_until(
      [&] {
        auto pods = api_placements(*admin);
        return !pods["default/late-1"].empty();
      },
      seconds(20)))
      << standby_process->output();
  // kube-lite logs a request once its handler returns: the binding may be seen bound first.
  wait_until([&] { return bindings_by_user(api)[standby] == 1; }, seconds(5));
  by_user = bindings_by_user(api);
  EXPECT_EQ(by_user[standby], 1) << standby_process->output();
  EXPECT_EQ(forbidden_for(api, "sched-a"), 0) << "deploy/scheduler/rbac.yaml lacks a permission";
  EXPECT_EQ(forbidden_for(api, "sched-b"), 0) << "deploy/scheduler/rbac.yaml lacks a permission";
  EXPECT_EQ(standby_process->stop(milliseconds(5000)), 0) << standby_process->output();
}

// Runs `weft-scheduler run` against `api` while the test plays the pods' controllers: a
// scenario pod that disappears (evicted, taken back) comes back pending under its name.
// `each` sees every poll's placements. Ends when the placements equal `expected` for 8
// polls in a row, or after 60 s; returns the last placements.
Placements run_as_controller(KubeLite& api, const std::string& path, const Placements& expected,
                             const std::function<void(kube::Client&, const Placements&)>& each, std::string* output,
                             std::vector<std::string> extra_args = {}) {
  auto objects = kube::load_objects_file(path);
  EXPECT_TRUE(objects) << objects.message();
  std::map<std::string, json> scenario_pods;   // what the controllers re-create
  for (const auto& so : objects ? *objects : std::vector<kube::SourcedObject>{}) {
    if (kube::kind_of(so.object) != "Pod") continue;
    json pod = so.object;
    pod["spec"].erase("nodeName");
    pod.erase("status");
    scenario_pods["default/" + kube::name_of(so.object)] = pod;
  }
  auto client = api.new_client();
  Process sched({.argv = run_args(api.kubeconfig(), extra_args), .keep_stdin_open = false});
  const auto until = std::chrono::steady_clock::now() + seconds(60);
  Placements now;
  int stable = 0;
  while (std::chrono::steady_clock::now() < until && stable < 8) {
    std::this_thread::sleep_for(milliseconds(100));
    auto pods = client->list(kube::resources::pods(), "default");
    if (!pods) continue;
    now.clear();
    for (const auto& p : pods->items) now[kube::key_of(p)] = p["spec"].value("nodeName", "");
    each(*client, now);
    for (const auto& [key, object] : scenario_pods)
      if (!now.count(key)) (void)client->create(kube::resources::pods(), "default", object);
    stable = now == expected ? stable + 1 : 0;
  }
  EXPECT_EQ(sched.stop(milliseconds(5000)), 0) << sched.output();
  *output = sched.output();
  return api_placements(api.client());
}

// Reclaim through the API: the late queue's IB-cluster gang evicts exactly the victims
// `simulate` picks (inside one fabric); the test re-creates them pending, as their
// controller would; they stay pending (their queue is at its share) and the gang binds
// where `simulate` puts it.
// kube-scheduler's PreBind through the API, within deploy/scheduler's RBAC: before the
// pod is bound, the static volume gets the claim's claimRef and the claim to provision
// gets volume.kubernetes.io/selected-node.
TEST(SchedulerRun, PreBindWritesTheVolumesClaimRefAndTheClaimsSelectedNode) {
  WEFT_SKIP_UNLESS(need_binaries());
  TempDir dir("sched-run-volumes");
  weft::testing::write_file(dir.file("tokens.json"), tokens_from_deploy_rbac({"sched"}).dump());
  KubeLite api({.state = scenario("volumes.yaml"), .tokens = dir.file("tokens.json")});
  ASSERT_EQ(api.error(), "");
  auto [code, out] = weft::testing::run_command(
      run_args(api.kubeconfig_for_token("token-sched", "sched"), {"--cycles", "3"}), seconds(60));
  ASSERT_EQ(code, 0) << out;
  auto admin = api.client_for_token("token-admin");
  const Placements placed = api_placements(*admin);
  EXPECT_EQ(placed.at("default/db-0"), "node-2") << out;
  EXPECT_EQ(placed.at("default/cache-0"), "node-3") << out;
  EXPECT_EQ(placed.at("default/scratch-0"), "node-1") << out;
  auto pv = admin->get(kube::resources::persistentvolumes(), "", "local-node-3");
  ASSERT_TRUE(pv) << pv.message();
  EXPECT_EQ((*pv)["spec"]["claimRef"]["name"], "cache-data");
  EXPECT_EQ((*pv)["spec"]["claimRef"]["namespace"], "default");
  EXPECT_FALSE((*pv)["spec"]["claimRef"].value("uid", "").empty());
  auto scratch = admin->get(kube::resources::persistentvolumeclaims(), "default", "scratch");
  ASSERT_TRUE(scratch) << scratch.message();
  EXPECT_EQ((*scratch)["metadata"]["annotations"]["volume.kubernetes.io/selected-node"], "node-1");
  // Each write came before its pod's binding.
  std::vector<std::string> order;
  for (const auto& r : api.requests())
    if (r.value("verb", "") != "GET" && r.value("status", 0) / 100 == 2) order.push_back(r.value("path", ""));
  auto at = [&](const std::string& tail) {
    auto it = std::find_if(order.begin(), order.end(), [&](const std::string& p) { return p.ends_with(tail); });
    return it - order.begin();
  };
  EXPECT_LT(at("/persistentvolumes/local-node-3"), at("/pods/cache-0/binding")) << writes_seen_by(api);
  EXPECT_LT(at("/persistentvolumeclaims/scratch"), at("/pods/scratch-0/binding")) << writes_seen_by(api);
}

TEST(SchedulerRun, ReclaimInOneFabricEvictsWhatSimulateEvicts) {
  WEFT_SKIP_UNLESS(need_binaries());
  const std::string path = scenario("reclaim_ib.yaml");
  json report = simulate(path);
  const Placements expected = simulated_placements(report);
  std::set<std::string> simulated_evictions;
  for (const auto& e : report["evictions"]) simulated_evictions.insert(e["pod"].get<std::string>());
  ASSERT_EQ(simulated_evictions.size(), 6u) << report.dump();

  KubeLite api({.state = path, .fail_rate = 0.1, .drop_watch_after = 5, .extra_args = {"--retry-after", "0"}});
  ASSERT_EQ(api.error(), "");
  std::string output;
  EXPECT_EQ(run_as_controller(api, path, expected, [](kube::Client&, const Placements&) {}, &output), expected)
      << output;
  static const std::regex eviction("/api/v1/namespaces/default/pods/([^/]+)/eviction");
  std::set<std::string> evicted;
  for (const auto& r : api.requests()) {
    std::smatch m;
    const std::string p = r.value("path", "");
    if (r.value("verb", "") == "POST" && std::regex_match(p, m, eviction) && r.value("status", 0) / 100 == 2) {
      EXPECT_TRUE(evicted.insert("default/" + m[1].str()).second) << m[1] << " evicted twice";
    }
  }
  EXPECT_EQ(evicted, simulated_evictions) << output;
}

// Gang rollback against a real API. While `run` binds the 8 members of gang "wide" one by
// one (kube-lite answers slowly and injects 500/429s), the test deletes the last member
// before its binding and re-creates it, as a controller would: its binding then fails
// (404, or 409 on the stale uid). `run` must evict the members it bound in that cycle
// instead of leaving a half-bound gang; the test, acting as the Job controller, re-creates
// evicted pods; in the end the gang is placed whole where `simulate` places it.
// One binding at a time (--bind-concurrency 1), so the test can catch the gang half-way;
// SixteenOrMoreBindingsInFlightKeepGangsWholeUnderFaults covers bindings in flight together.
TEST(SchedulerRun, GangWhoseBindingFailsHalfWayIsTakenBackAndPlacedWhole) {
  WEFT_SKIP_UNLESS(need_binaries());
  const std::string path = scenario("gang_rollback.yaml");
  const Placements expected = simulated_placements(simulate(path));
  ASSERT_EQ(expected.at("default/wide-0").rfind("fa-", 0), 0u);
  KubeLite api({.state = path, .fail_rate = 0.1, .latency_ms = 60, .extra_args = {"--retry-after", "0", "--seed", "7"}});
  ASSERT_EQ(api.error(), "");
  const std::string victim = "default/wide-7";   // bound last: the core binds a gang in key order
  bool sabotaged = false;
  std::string output;
  auto final_placements = run_as_controller(api, path, expected, [&](kube::Client& client, const Placements& now) {
    auto first = now.find("default/wide-0"), last = now.find(victim);
    if (!sabotaged && first != now.end() && !first->second.empty() && last != now.end() && last->second.empty()) {
      EXPECT_TRUE(client.remove(kube::resources::pods(), "default", "wide-7"));
      sabotaged = true;
    }
  }, &output, {"--bind-concurrency", "1"});
  ASSERT_TRUE(sabotaged) << "the gang was never seen half-way through its binding";
  EXPECT_EQ(final_placements, expected) << output << "\nthe API's writes:\n" << writes_seen_by(api);

  // Replay the API's log for the gang: which members were bound at each point. Members
  // are only ever evicted while the gang is short (taken back), never once it is whole.
  static const std::regex member("/api/v1/namespaces/default/pods/(wide-[0-9]+)(/binding|/eviction)?");
  std::set<std::string> bound, taken_back;
  bool victim_refused = false, victim_deleted = false;
  for (const auto& r : api.requests()) {
    std::smatch m;
    const std::string p = r.value("path", ""), verb = r.value("verb", "");
    if (!std::regex_match(p, m, member)) continue;
    const std::string pod = m[1].str(), sub = m[2].str();
    const int status = r.value("status", 0);
    if (verb == "POST" && sub == "/binding" && status / 100 == 2) {
      EXPECT_FALSE(bound.count(pod)) << pod << " bound twice";
      bound.insert(pod);
    } else if (verb == "POST" && sub == "/binding" && pod == "wide-7" && victim_deleted && !victim_refused) {
      victim_refused = status == 404 || status == 409;
    } else if (verb == "POST" && sub == "/eviction" && status / 100 == 2) {
      EXPECT_TRUE(bound.count(pod)) << pod << " evicted while not bound";
      EXPECT_LT(bound.size(), 8u) << "a whole gang was taken apart";
      bound.erase(pod);
      taken_back.insert(pod);
    } else if (verb == "DELETE" && sub.empty() && status / 100 == 2) {
      EXPECT_EQ(pod, "wide-7");
      EXPECT_FALSE(bound.count(pod)) << "the test deleted a bound member: the sabotage came too late";
      victim_deleted = true;
    }
  }
  EXPECT_TRUE(victim_refused) << "the API never refused the deleted member's binding";
  EXPECT_FALSE(taken_back.empty()) << "members bound before the refusal were not evicted";
  EXPECT_EQ(bound.size(), 8u) << "the gang ends below minMember";

  auto events = api.client().list(kube::resources::events(), "default");
  ASSERT_TRUE(events) << events.message();
  int gang_failed = 0;
  for (const auto& e : events->items)
    if (e.value("reason", "") == "GangBindingFailed" && e["involvedObject"].value("name", "") == "wide") ++gang_failed;
  EXPECT_GE(gang_failed, 1);
}

// 40 gangs of 8 bound with 32 calls in flight through a kube-lite that answers 15% of
// requests 500/429 and takes 150 ms per request; as soon as the first binding lands, the
// test binds the last member of every other gang elsewhere itself while it is still
// pending, so those gangs' bindings are refused (409) half-way. Every other gang ends
// whole; a sabotaged one ends with none of the scheduler's bindings kept; members are
// only ever evicted from a gang that is short; the API saw at least 16 bindings in flight.
TEST(SchedulerRun, SixteenOrMoreBindingsInFlightKeepGangsWholeUnderFaults) {
  WEFT_SKIP_UNLESS(need_binaries());
  TempDir dir("sched-concurrent");
  const int gangs = 40, size = 8;
  json items = json::array();
  for (int n = 0; n < 48; ++n) {
    const std::string name = "gpu-" + std::to_string(n);
    json res = {{"cpu", "192"}, {"memory", "1Ti"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}};
    items.push_back({{"apiVersion", "v1"}, {"kind", "Node"},
                     {"metadata", {{"name", name}, {"labels", {{"weft.dev/rdma", "ib"},
                                                               {"weft.dev/ib-fabric", n < 24 ? "0xa" : "0xb"},
                                                               {"weft.dev/ib-leaf", "0x" + std::to_string(n / 8)}}}}},
                     {"status", {{"allocatable", res}, {"capacity", res},
                                 {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}});
  }
  for (int g = 0; g < gangs; ++g) {
    const std::string group = "g" + std::to_string(100 + g);
    items.push_back({{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "PodGroup"},
                     {"metadata", {{"name", group}, {"namespace", "default"},
                                   {"annotations", {{"weft.dev/ib-cluster", "same"}}}}},
                     {"spec", {{"minMember", size}}}});
    for (int m = 0; m < size; ++m) {
      items.push_back({{"apiVersion", "v1"}, {"kind", "Pod"},
                       {"metadata", {{"name", group + "-" + std::to_string(m)}, {"namespace", "default"},
                                     {"annotations", {{"scheduling.k8s.io/group-name", group}}}}},
                       {"spec", {{"schedulerName", "weft"},
                                 {"containers", json::array({{{"name", "c"}, {"image", "x"},
                                                              {"resources", {{"requests", {{"cpu", "8"},
                                                                                           {"nvidia.com/gpu", "1"}}}}}}})}}}});
    }
  }
  weft::testing::write_file(dir.file("gangs.json"), json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}.dump());
  KubeLite api({.state = dir.file("gangs.json"), .fail_rate = 0.15, .latency_ms = 150,
                .extra_args = {"--retry-after", "0", "--seed", "11"}});
  ASSERT_EQ(api.error(), "");
  auto client = api.new_client();
  Process sched({.argv = run_args(api.kubeconfig(), {"--bind-concurrency", "32"}), .keep_stdin_open = false});
  auto group_of = [](const std::string& pod) { return pod.substr(0, pod.rfind('-')); };
  std::set<std::string> sabotaged;
  std::map<std::string, int> bound, members;
  const auto until = std::chrono::steady_clock::now() + seconds(90);
  int stable = 0;
  while (std::chrono::steady_clock::now() < until && stable < 10) {
    std::this_thread::sleep_for(milliseconds(50));
    auto pods = client->list(kube::resources::pods(), "default");
    if (!pods) continue;
    std::map<std::string, int> now_bound, now_members;
    for (const auto& p : pods->items) {
      const std::string g = group_of(kube::name_of(p));
      ++now_members[g];
      if (!p["spec"].value("nodeName", "").empty()) ++now_bound[g];
    }
    if (sabotaged.empty() && !now_bound.empty()) {
      // All at once: the scheduler's bindings are in flight. A binding succeeds only while
      // the pod is pending, so a steal never undoes one of the scheduler's.
      std::vector<std::thread> stealers;
      std::mutex mu;
      for (int g = 0; g < gangs; g += 2) {
        stealers.emplace_back([&, group = "g" + std::to_string(100 + g)] {
          auto own = api.new_client();
          if (!own->bind("default", group + "-7", "elsewhere")) return;
          std::lock_guard lock(mu);
          sabotaged.insert(group);
        });
      }
      for (auto& t : stealers) t.join();
      ASSERT_FALSE(sabotaged.empty()) << "every gang was bound before the first poll saw one";
    }
    stable = !sabotaged.empty() && now_bound == bound && now_members == members ? stable + 1 : 0;
    bound = now_bound;
    members = now_members;
  }
  // A stop finishes the writes in flight and any gang's roll-back first: at 150 ms a call
  // with 15 % refused and retried, that takes seconds on a loaded machine.
  EXPECT_EQ(sched.stop(milliseconds(20000)), 0) << sched.output();
  ASSERT_FALSE(sabotaged.empty());
  // Judged on what the API holds after the stop, not on the last poll: a poll loop that
  // saw nothing change for a while may have ended during a retry's back-off, with a gang
  // still short of its last binding or a sabotaged one not yet taken back.
  auto final_pods = client->list(kube::resources::pods(), "default");
  ASSERT_TRUE(final_pods) << final_pods.message();
  bound.clear();
  for (const auto& p : final_pods->items)
    if (!p["spec"].value("nodeName", "").empty()) ++bound[group_of(kube::name_of(p))];
  for (int g = 0; g < gangs; ++g) {
    const std::string group = "g" + std::to_string(100 + g);
    if (sabotaged.count(group)) EXPECT_EQ(bound[group], 1) << group << " is half-bound (1: the stolen member)";
    else EXPECT_EQ(bound[group], size) << group << " was not placed whole";
  }

  // Replay the API's log: evictions only of bound members of a gang that is short, and
  // at least 16 bindings answered within less than one request's latency of each other
  // (so they were all in flight at once).
  static const std::regex member("/api/v1/namespaces/default/pods/((g[0-9]+)-[0-9]+)/(binding|eviction)");
  std::map<std::string, int> live;
  std::vector<int64_t> answered_ms;
  int taken_back = 0;
  for (const auto& r : api.requests()) {
    std::smatch m;
    const std::string p = r.value("path", "");
    if (r.value("verb", "") != "POST" || r.value("status", 0) / 100 != 2 || !std::regex_match(p, m, member)) continue;
    const std::string pod = m[1], group = m[2];
    if (m[3] == "binding") {
      if (sabotaged.count(group) && pod == group + "-7") continue;   // the test's own steal
      ++live[group];
      const std::string at = r.value("at", "");   // 2026-11-24T18:00:00.123Z
      answered_ms.push_back((std::stoll(at.substr(11, 2)) * 3600 + std::stoll(at.substr(14, 2)) * 60 +
                             std::stoll(at.substr(17, 2))) * 1000 + std::stoll(at.substr(20, 3)));
    } else {
      EXPECT_LT(live[group], size) << "a whole gang " << group << " was taken apart";
      EXPECT_TRUE(sabotaged.count(group)) << group << " lost a member it did not lose";
      --live[group];
      ++taken_back;
    }
  }
  EXPECT_GT(taken_back, 0) << "no gang was bound half-way and taken back: the sabotage came too late";
  std::sort(answered_ms.begin(), answered_ms.end());
  size_t most = 0;
  for (size_t i = 0, j = 0; j < answered_ms.size(); ++j) {
    while (answered_ms[j] - answered_ms[i] >= 140) ++i;
    most = std::max(most, j - i + 1);
  }
  EXPECT_GE(most, 16u) << "bindings were not in flight together";
}

TEST(SchedulerRun, BadInputIsOneClearLineAndNonZeroExit) {
  WEFT_SKIP_UNLESS(need_binaries());
  TempDir dir("sched-run-bad");
  auto one_line = [](const std::string& out) { return std::count(out.begin(), out.end(), '\n') <= 1; };

  auto [c1, o1] = weft::testing::run_command({scheduler_binary(), "run", "--kubeconfig", dir.file("missing")});
  EXPECT_EQ(c1, 2) << o1;
  EXPECT_NE(o1.find(dir.file("missing")), std::string::npos) << o1;
  EXPECT_TRUE(one_line(o1)) << o1;

  weft::testing::write_file(dir.file("typo.conf"), "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gnag\n");
  auto [c2, o2] = weft::testing::run_command(
      {scheduler_binary(), "run", "--kubeconfig", dir.file("missing"), "--config", dir.file("typo.conf")});
  EXPECT_EQ(c2, 2) << o2;
  EXPECT_NE(o2.find("gnag"), std::string::npos) << o2;
  EXPECT_TRUE(one_line(o2)) << o2;

  auto [c3, o3] = weft::testing::run_command({scheduler_binary(), "run", "--period", "soon"});
  EXPECT_EQ(c3, 2) << o3;
  EXPECT_NE(o3.find("--period"), std::string::npos) << o3;

  // A kubeconfig that parses but points where nothing listens.
  const int port = weft::testing::free_port();
  weft::testing::write_file(dir.file("kubeconfig"),
                            "apiVersion: v1\nkind: Config\ncurrent-context: x\n"
                            "clusters: [{name: x, cluster: {server: 'http://127.0.0.1:" + std::to_string(port) +
                                "'}}]\ncontexts: [{name: x, context: {cluster: x, user: x}}]\nusers: [{name: x, user: {}}]\n");
  auto [c4, o4] = weft::testing::run_command({scheduler_binary(), "run", "--kubeconfig", dir.file("kubeconfig")},
                                             seconds(40));
  EXPECT_EQ(c4, 1) << o4;
  EXPECT_NE(o4.find(std::to_string(port)), std::string::npos) << o4;
  EXPECT_TRUE(one_line(o4)) << o4;
}

}  // namespace
}  // namespace weft::scheduler
