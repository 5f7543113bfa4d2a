// `weft-scheduler global run` end to end: one kube-lite as the Karmada control plane, two
// as members. It writes spec.clusters and clears spec.suspension.scheduling of the
// bindings that really fit, leaves the others suspended with a condition and an Event;
// the test plays Karmada's part (the workload's pods in the member), where
// `weft-scheduler run` binds them; a member that goes NotReady gets nothing new.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "kube/objects.h"
#include "scheduler/global/app/global_watch.h"
#include "tests/global/global_objects.h"
#include "tests/support/kube_lite.h"
#include "tests/support/process.h"

namespace weft::scheduler::global::testing {
namespace {

using weft::testing::KubeLite;
using weft::testing::KubeLiteOptions;
using weft::testing::TempDir;

std::string scheduler_binary() { return weft::testing::binary("scheduler/weft-scheduler"); }

std::string need_binaries() {
  if (auto r = KubeLite::need(); !r.empty()) return r;
  std::error_code ec;
  if (!std::filesystem::exists(scheduler_binary(), ec)) return "weft-scheduler not built at " + scheduler_binary();
  return "";
}

std::string state_file(const TempDir& dir, const std::string& name, const std::vector<json>& items) {
  std::string path = dir.file(name);
  weft::testing::write_file(path, json({{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}).dump());
  return path;
}

json member_node(const std::string& name) {
  json n = gpu_node("", name);
  n["metadata"].erase("annotations");
  return n;
}

std::pair<int, std::string> run_global(const KubeLite& cp, const KubeLite& m1, const KubeLite& m2) {
  return weft::testing::run_command({scheduler_binary(), "global", "run", "--kubeconfig", cp.kubeconfig(), "--member",
                                     "m1=" + m1.kubeconfig(), "--member", "m2=" + m2.kubeconfig(), "--cycles", "2",
                                     "--period", "0.3"});
}

json get_binding(KubeLite& cp, const std::string& name) {
  auto b = cp.client().get(refs::resource_bindings(), "ml", name);
  EXPECT_TRUE(b) << b.message();
  return b ? *b : json::object();
}

json dispatched_condition(const json& b) {
  for (const auto& c : b["status"].value("conditions", json::array()))
    if (c.value("type", "") == "Dispatched") return c;
  return json::object();
}

// Karmada's part: the Volcano Job's pods and PodGroup in the member it went to.
void create_workload(KubeLite& member, const std::string& job, int replicas) {
  json pg = {{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "PodGroup"},
             {"metadata", {{"name", job}, {"namespace", "ml"}}}, {"spec", {{"minMember", replicas}}}};
  auto created = member.client().create(kube::resources::podgroups(), "ml", pg);
  ASSERT_TRUE(created) << created.message();
  for (int i = 0; i < replicas; ++i) {
    json pod = job_pod("", "ml", job, i, "", 8);
    pod["metadata"]["annotations"] = {{"scheduling.k8s.io/group-name", job}};
    pod["spec"].erase("nodeName");
    pod["spec"]["schedulerName"] = "weft";
    pod.erase("status");
    auto r = member.client().create(kube::resources::pods(), "ml", pod);
    ASSERT_TRUE(r) << r.message();
  }
}

int bound_pods(KubeLite& member, const std::string& job) {
  auto pods = member.client().list(kube::resources::pods(), "ml");
  int n = 0;
  for (const auto& p : pods ? pods->items : std::vector<json>{})
    if (kube::label(p, "volcano.sh/job-name") == job && !p["spec"].value("nodeName", "").empty()) ++n;
  return n;
}

TEST(GlobalRun, DispatchesWhatReallyFitsAndTheMembersBindIt) {
  WEFT_SKIP_UNLESS(need_binaries());
  TempDir dir("weft-global");
  std::vector<json> cp_objects = {cluster("m1"), cluster("m2"), queue("team", 1)};
  // "wide" is the oldest: 4 x 8 GPUs, 48 free over both members but 24 in each.
  const std::vector<std::pair<std::string, int>> jobs = {{"wide", 4}, {"train-a", 2}, {"train-b", 2}};
  for (size_t i = 0; i < jobs.size(); ++i) {
    cp_objects.push_back(vcjob("ml", jobs[i].first, "team", jobs[i].second, 8));
    cp_objects.push_back(binding("ml", jobs[i].first, jobs[i].second, "2026-01-01T00:00:0" + std::to_string(i) + "Z"));
  }
  KubeLite cp({.state = state_file(dir, "cp.json", cp_objects)});
  const json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ml"}}}};
  KubeLite m1({.state = state_file(dir, "m1.json", {ns, member_node("a1"), member_node("a2"), member_node("a3")})});
  KubeLite m2({.state = state_file(dir, "m2.json", {ns, member_node("b1"), member_node("b2"), member_node("b3")})});
  ASSERT_EQ(cp.error() + m1.error() + m2.error(), "");

  auto [code, out] = run_global(cp, m1, m2);
  ASSERT_EQ(code, 0) << out;
  std::map<std::string, std::string> where;
  for (const auto& name : {"train-a", "train-b"}) {
    json b = get_binding(cp, std::string(name) + "-job");
    EXPECT_EQ(b["spec"]["suspension"]["scheduling"], false) << b.dump();
    ASSERT_EQ(b["spec"]["clusters"].size(), 1u) << b.dump();
    EXPECT_EQ(b["spec"]["clusters"][0]["replicas"], 2);
    where[name] = b["spec"]["clusters"][0]["name"];
    EXPECT_EQ(dispatched_condition(b).value("status", ""), "True") << b.dump();
  }
  EXPECT_EQ(where["train-a"], "m1");
  EXPECT_EQ(where["train-b"], "m2") << "best fit: m1 has one node left after train-a";
  json wide = get_binding(cp, "wide-job");
  EXPECT_EQ(wide["spec"]["suspension"]["scheduling"], true);
  EXPECT_FALSE(wide["spec"].contains("clusters") && !wide["spec"]["clusters"].empty()) << wide.dump();
  json cond = dispatched_condition(wide);
  EXPECT_EQ(cond.value("status", ""), "False");
  EXPECT_EQ(cond.value("reason", ""), "NoClusterFit");
  // First it was fragmentation (24 GPUs free in each member); once train-a and train-b hold
  // their members, plain lack of room. One Event per change, none for an unchanged reason.
  EXPECT_NE(cond.value("message", "").find("nvidia.com/gpu 8 free < 32"), std::string::npos) << cond.dump();
  auto wide_events = [&] {
    std::vector<std::string> out;
    auto events = cp.client().list(kube::resources::events(), "ml");
    EXPECT_TRUE(events);
    for (const auto& e : events ? events->items : std::vector<json>{})
      if (e["involvedObject"].value("name", "") == "wide-job" && e.value("reason", "") == "NoClusterFit")
        out.push_back(e.value("message", ""));
    return out;
  };
  auto events = wide_events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].rfind("fragmentation: the free capacity summed over the member clusters is enough", 0) +
                events[1].rfind("fragmentation: the free capacity summed over the member clusters is enough", 0),
            std::string::npos) << events[0] << "\n" << events[1];

  // Karmada propagates the Jobs; the members' schedulers bind their pods.
  std::map<std::string, KubeLite*> members = {{"m1", &m1}, {"m2", &m2}};
  for (const auto& [job, member] : where) create_workload(*members[member], job, 2);
  for (auto* m : {&m1, &m2}) {
    auto [c, o] = weft::testing::run_command({scheduler_binary(), "run", "--kubeconfig", m->kubeconfig(), "--cycles", "2",
                                              "--period", "200ms"});
    ASSERT_EQ(c, 0) << o;
  }
  EXPECT_EQ(bound_pods(*members[where["train-a"]], "train-a"), 2);
  EXPECT_EQ(bound_pods(*members[where["train-b"]], "train-b"), 2);

  // m2 goes NotReady: a new job for m2 waits, one that may go anywhere goes to m1.
  auto nr = cp.client().update_status_with_retry(refs::clusters(), "", "m2", [](json& o) -> Status {
    o["status"]["conditions"] = {{{"type", "Ready"}, {"status", "False"}, {"reason", "ClusterNotReachable"}}};
    return {};
  });
  ASSERT_TRUE(nr) << nr.message();
  json pinned = binding("ml", "late", 1, "2026-01-01T00:01:00Z");
  pinned["spec"]["placement"]["clusterAffinity"]["clusterNames"] = {"m2"};
  ASSERT_TRUE(cp.client().create(refs::volcano_jobs(), "ml", vcjob("ml", "late", "team", 1, 8)));
  ASSERT_TRUE(cp.client().create(refs::resource_bindings(), "ml", pinned));
  ASSERT_TRUE(cp.client().create(refs::volcano_jobs(), "ml", vcjob("ml", "later", "team", 1, 8)));
  ASSERT_TRUE(cp.client().create(refs::resource_bindings(), "ml", binding("ml", "later", 1, "2026-01-01T00:02:00Z")));
  std::tie(code, out) = run_global(cp, m1, m2);
  ASSERT_EQ(code, 0) << out;
  json late = get_binding(cp, "late-job");
  EXPECT_EQ(late["spec"]["suspension"]["scheduling"], true) << late.dump();
  EXPECT_NE(dispatched_condition(late).value("message", "").find("m2: NotReady"), std::string::npos) << late.dump();
  // Nothing changes any more: another run writes no Event and no condition.
  const size_t before = wide_events().size();
  const std::string version = get_binding(cp, "wide-job")["metadata"]["resourceVersion"];
  std::tie(code, out) = run_global(cp, m1, m2);
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(wide_events().size(), before);
  EXPECT_EQ(get_binding(cp, "wide-job")["metadata"]["resourceVersion"], version);
  json later = get_binding(cp, "later-job");
  ASSERT_EQ(later["spec"]["clusters"].size(), 1u) << later.dump();
  EXPECT_EQ(later["spec"]["clusters"][0]["name"], "m1");
  // The dispatched bindings stay where they are, counted from their bound pods.
  EXPECT_EQ(get_binding(cp, "train-a-job")["spec"]["clusters"][0]["name"], where["train-a"]);
}

TEST(GlobalRun, PreemptionAcrossClustersTakesBackWhatTheGangNeeds) {
  WEFT_SKIP_UNLESS(need_binaries());
  TempDir dir("weft-global");
  std::vector<json> cp_objects = {cluster("m1"), cluster("m2"), queue("team", 1, 24), priority_class("low", 1),
                                  priority_class("high", 100)};
  // Three one-pod jobs hold the queue's 24 GPUs: low-a on m1, low-b and low-c fill m2.
  const std::vector<std::pair<std::string, std::string>> low = {{"low-a", "m1"}, {"low-b", "m2"}, {"low-c", "m2"}};
  std::vector<json> m1_objects = {member_node("a1"), member_node("a2")};
  std::vector<json> m2_objects = {member_node("b1"), member_node("b2")};
  for (size_t i = 0; i < low.size(); ++i) {
    cp_objects.push_back(vcjob("ml", low[i].first, "team", 1, 8, "low"));
    cp_objects.push_back(binding("ml", low[i].first, 1, "2026-01-01T00:00:0" + std::to_string(i) + "Z", low[i].second));
    json pod = job_pod("", "ml", low[i].first, 0, low[i].second == "m1" ? "a1" : (i == 1 ? "b1" : "b2"), 8);
    pod["metadata"].erase("annotations");
    (low[i].second == "m1" ? m1_objects : m2_objects).push_back(pod);
  }
  cp_objects.push_back(vcjob("ml", "urgent", "team", 2, 8, "high"));
  cp_objects.push_back(binding("ml", "urgent", 2, "2026-01-01T00:00:09Z"));
  KubeLite cp({.state = state_file(dir, "cp.json", cp_objects)});
  KubeLite m1({.state = state_file(dir, "m1.json", m1_objects)});
  KubeLite m2({.state = state_file(dir, "m2.json", m2_objects)});
  ASSERT_EQ(cp.error() + m1.error() + m2.error(), "");

  auto [code, out] = run_global(cp, m1, m2);
  ASSERT_EQ(code, 0) << out;
  json urgent = get_binding(cp, "urgent-job");
  EXPECT_EQ(urgent["spec"]["suspension"]["scheduling"], false) << urgent.dump();
  ASSERT_EQ(urgent["spec"]["clusters"].size(), 1u) << urgent.dump();
  // Two victims either way; on m2 they are the newer jobs.
  EXPECT_EQ(urgent["spec"]["clusters"][0], json::parse(R"({"name": "m2", "replicas": 2})"));
  for (const char* name : {"low-b-job", "low-c-job"}) {
    json b = get_binding(cp, name);
    EXPECT_EQ(b["spec"]["suspension"]["scheduling"], true) << b.dump();
    EXPECT_EQ(b["spec"]["clusters"], json::array()) << b.dump();
    // Taken back in the first cycle (an Event says so); waiting for the queue in the next.
    EXPECT_EQ(dispatched_condition(b).value("reason", ""), "QueueCapability") << b.dump();
    auto events = cp.client().list(kube::resources::events(), "ml");
    ASSERT_TRUE(events);
    int preempted = 0;
    for (const auto& e : events->items)
      if (e["involvedObject"].value("name", "") == name && e.value("reason", "") == "Preempted" &&
          e.value("message", "").find("taken back for ml/urgent-job (priority 100 > 1)") != std::string::npos)
        ++preempted;
    EXPECT_EQ(preempted, 1) << name;
  }
  json kept = get_binding(cp, "low-a-job");
  EXPECT_EQ(kept["spec"]["suspension"]["scheduling"], false);
  EXPECT_EQ(kept["spec"]["clusters"][0]["name"], "m1");
}

TEST(GlobalRun, ReclaimWritesItsVictimsBackSuspendedWithAnEvent) {
  WEFT_SKIP_UNLESS(need_binaries());
  TempDir dir("weft-global");
  // Queue "a" holds both members with four one-pod jobs; "b" (same weight) asks a gang
  // of two: "a" is 16 GPUs above its share.
  std::vector<json> cp = {cluster("m1"), cluster("m2"), queue("a", 1), queue("b", 1)};
  std::map<std::string, std::vector<json>> member = {{"m1", {member_node("a1"), member_node("a2")}},
                                                     {"m2", {member_node("b1"), member_node("b2")}}};
  const std::vector<std::pair<std::string, std::string>> held = {{"m1", "a1"}, {"m2", "b1"}, {"m1", "a2"}, {"m2", "b2"}};
  for (size_t i = 0; i < held.size(); ++i) {
    const std::string job = "a-" + std::to_string(i);
    cp.push_back(vcjob("ml", job, "a", 1, 8));
    cp.push_back(binding("ml", job, 1, at_second(static_cast<int>(i)), held[i].first));
    json pod = job_pod("", "ml", job, 0, held[i].second, 8);
    pod["metadata"].erase("annotations");
    member[held[i].first].push_back(pod);
  }
  cp.push_back(vcjob("ml", "b-wide", "b", 2, 8));
  cp.push_back(binding("ml", "b-wide", 2, at_second(10)));
  KubeLite control({.state = state_file(dir, "cp.json", cp)});
  KubeLite m1({.state = state_file(dir, "m1.json", member["m1"])});
  KubeLite m2({.state = state_file(dir, "m2.json", member["m2"])});
  ASSERT_EQ(control.error() + m1.error() + m2.error(), "");

  auto [code, out] = run_global(control, m1, m2);
  ASSERT_EQ(code, 0) << out;
  json wide = get_binding(control, "b-wide-job");
  EXPECT_EQ(wide["spec"]["clusters"], json::parse(R"([{"name": "m2", "replicas": 2}])")) << wide.dump();
  EXPECT_EQ(wide["spec"]["suspension"]["scheduling"], false);
  auto events = control.client().list(kube::resources::events(), "ml");
  ASSERT_TRUE(events) << events.message();
  for (const char* name : {"a-1-job", "a-3-job"}) {
    json v = get_binding(control, name);
    EXPECT_EQ(v["spec"]["clusters"], json::array()) << v.dump();
    EXPECT_EQ(v["spec"]["suspension"]["scheduling"], true) << v.dump();
    int reclaimed = 0;
    for (const auto& e : events->items)
      if (e["involvedObject"].value("name", "") == name && e.value("reason", "") == "Reclaimed" &&
          e.value("message", "").find("reclaimed for ml/b-wide-job of queue b") != std::string::npos)
        ++reclaimed;
    EXPECT_EQ(reclaimed, 1) << name;
  }
  for (const char* name : {"a-0-job", "a-2-job"})
    EXPECT_EQ(get_binding(control, name)["spec"]["clusters"][0]["name"], "m1") << name;
}

}  // namespace
}  // namespace weft::scheduler::global::testing
