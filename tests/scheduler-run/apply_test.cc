// DecisionApplier against a fake API: gang bindings all-or-nothing as the API sees them,
// retries of transient errors, 429 evictions as results, status and Event de-duplication,
// nothing written once leadership is lost.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "scheduler/app/run_apply.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

struct FakeApi : SchedulerApi {
  // Scripted answers per pod ("ns/name"): consumed one per call; empty = success.
  std::map<std::string, std::deque<Error>> bind_errors;
  std::map<std::string, std::deque<EvictOutcome>> evict_outcomes;
  std::deque<Error> status_errors;
  std::vector<std::string> calls;   // "bind ns/p node", "evict ns/p", "status ns/g", "event Reason kind/name"
  std::vector<json> statuses;
  std::chrono::microseconds bind_latency{0};   // > 0: bindings overlap when the applier runs them together
  std::atomic<int> in_flight{0}, max_in_flight{0};
  std::recursive_mutex mu;                     // the applier may call from several threads

  Status bind(const std::string& ns, const std::string& pod, const std::string&, const std::string& node) override {
    if (bind_latency.count() > 0) {
      int now = ++in_flight;
      for (int seen = max_in_flight; now > seen && !max_in_flight.compare_exchange_weak(seen, now);) {
      }
      std::this_thread::sleep_for(bind_latency);
      --in_flight;
    }
    std::lock_guard lock(mu);
    calls.push_back("bind " + ns + "/" + pod + " " + node);
    auto& q = bind_errors[ns + "/" + pod];
    if (q.empty()) return {};
    Error e = q.front();
    q.pop_front();
    return e;
  }
  Result<EvictOutcome> evict(const std::string& ns, const std::string& pod, std::string* why) override {
    std::lock_guard lock(mu);
    calls.push_back("evict " + ns + "/" + pod);
    auto& q = evict_outcomes[ns + "/" + pod];
    if (q.empty()) return EvictOutcome::Evicted;
    auto o = q.front();
    q.pop_front();
    if (o == EvictOutcome::Blocked && why) *why = "Cannot evict pod as it would violate the pod's disruption budget.";
    return o;
  }
  Status write_podgroup_status(const std::string& ns, const std::string& name, const json& status) override {
    std::lock_guard lock(mu);
    calls.push_back("status " + ns + "/" + name);
    if (!status_errors.empty()) {
      Error e = status_errors.front();
      status_errors.pop_front();
      return e;
    }
    statuses.push_back(status);
    return {};
  }
  Status record_event(const json& involved, const std::string&, const std::string& reason,
                      const std::string&) override {
    std::lock_guard lock(mu);
    calls.push_back("event " + reason + " " + involved.value("kind", "") + "/" +
                    involved["metadata"].value("name", ""));
    return {};
  }
  Status nominate(const std::string& ns, const std::string& pod, const std::string& node) override {
    std::lock_guard lock(mu);
    calls.push_back("nominate " + ns + "/" + pod + " " + node);
    return {};
  }
  size_t count(const std::string& prefix) {
    std::lock_guard lock(mu);
    size_t n = 0;
    for (const auto& c : calls) n += c.rfind(prefix, 0) == 0 ? 1 : 0;
    return n;
  }
};

PodInfo pod(const std::string& name, const std::string& group = "", const std::string& node = "") {
  PodInfo p;
  p.key = "ns/" + name;
  p.namespace_name = "ns";
  p.name = name;
  p.group = group.empty() ? "" : "ns/" + group;
  p.node = node;
  p.phase = node.empty() ? "Pending" : "Running";
  return p;
}

Snapshot gang_snapshot(int min_member, int members, int already_bound = 0) {
  Snapshot s;
  PodGroupInfo pg;
  pg.key = "ns/job";
  pg.min_member = min_member;
  s.podgroups[pg.key] = pg;
  for (int i = 0; i < members; ++i) {
    s.pods.push_back(pod("job-" + std::to_string(i), "job", i < already_bound ? "n0" : ""));
  }
  return s;
}

ObjectIndex index_of(const Snapshot& s) {
  ObjectIndex index;
  for (const auto& p : s.pods) {
    index[object_index_key("Pod", p.key)] = {{"apiVersion", "v1"}, {"kind", "Pod"},
                                             {"metadata", {{"name", p.name}, {"namespace", "ns"}, {"uid", "u-" + p.name}}}};
  }
  for (const auto& [key, pg] : s.podgroups) {
    index[object_index_key("PodGroup", key)] = {{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "PodGroup"},
                                                {"metadata", {{"name", key.substr(3)}, {"namespace", "ns"}}}};
  }
  return index;
}

Decisions bind_all(const Snapshot& s) {
  Decisions d;
  int i = 0;
  for (const auto& p : s.pods) {
    if (p.node.empty()) d.bindings.push_back({p.key, "n" + std::to_string(++i)});
  }
  d.status_writes.push_back({"ns/job", {{"phase", "Running"}}});
  return d;
}

struct Fixture : ::testing::Test {
  FakeApi api;
  std::vector<milliseconds> slept;
  ApplyOptions options() {
    ApplyOptions o;
    o.sleep = [this](milliseconds d) { slept.push_back(d); };
    return o;
  }
};

TEST_F(Fixture, WholeGangIsBoundAndItsStatusWritten) {
  DecisionApplier applier(api, options());
  auto s = gang_snapshot(3, 3);
  auto report = applier.apply(bind_all(s), s, index_of(s));
  EXPECT_EQ(report.bound.size(), 3u);
  EXPECT_TRUE(report.rolled_back.empty());
  EXPECT_EQ(report.status_written.size(), 1u);
  EXPECT_EQ(api.count("bind "), 3u);
  EXPECT_EQ(report.errors, 0);
}

TEST_F(Fixture, RefusedMemberRollsBackTheMembersBoundThisCycle) {
  DecisionApplier applier(api, options());
  auto s = gang_snapshot(3, 3);
  api.bind_errors["ns/job-2"] = {make_error("POST .../binding: HTTP 404 NotFound", 404)};
  auto report = applier.apply(bind_all(s), s, index_of(s));
  EXPECT_TRUE(report.bound.empty());
  EXPECT_EQ(report.bind_failed, std::vector<std::string>{"ns/job-2"});
  EXPECT_EQ(report.rolled_back, (std::vector<std::string>{"ns/job-0", "ns/job-1"}));
  EXPECT_EQ(api.count("evict ns/job-0"), 1u);
  EXPECT_EQ(api.count("evict ns/job-1"), 1u);
  EXPECT_EQ(api.count("event GangBindingFailed PodGroup/job"), 1u);
  EXPECT_EQ(api.count("status "), 0u) << "a rolled-back gang's status is recomputed next cycle";
  EXPECT_TRUE(slept.empty()) << "404 is not transient: no retry";
}

// Taking a member back is retried like a binding: a 429 (budget or overloaded server) or a
// 5xx on the eviction does not leave the gang half-bound; only a lasting refusal does.
TEST_F(Fixture, RollbackEvictionIsRetriedUntilTheMemberIsTakenBack) {
  DecisionApplier applier(api, options());
  auto s = gang_snapshot(3, 3);
  api.bind_errors["ns/job-2"] = {make_error("POST .../binding: HTTP 404 NotFound", 404)};
  api.evict_outcomes["ns/job-0"] = {EvictOutcome::Blocked, EvictOutcome::Blocked};
  auto report = applier.apply(bind_all(s), s, index_of(s));
  EXPECT_EQ(report.rolled_back, (std::vector<std::string>{"ns/job-0", "ns/job-1"}));
  EXPECT_TRUE(report.bound.empty());
  EXPECT_EQ(api.count("evict ns/job-0"), 3u);
  EXPECT_EQ(slept, (std::vector<milliseconds>{milliseconds(200), milliseconds(400)}));

  FakeApi stuck;
  DecisionApplier stubborn(stuck, options());
  stuck.bind_errors["ns/job-2"] = {make_error("POST .../binding: HTTP 404 NotFound", 404)};
  stuck.evict_outcomes["ns/job-0"] = {EvictOutcome::Blocked, EvictOutcome::Blocked, EvictOutcome::Blocked,
                                      EvictOutcome::Blocked};
  auto r2 = stubborn.apply(bind_all(s), s, index_of(s));
  EXPECT_EQ(stuck.count("evict ns/job-0"), 4u) << "one try and three more rounds";
  EXPECT_EQ(r2.rolled_back, std::vector<std::string>{"ns/job-1"});
  ASSERT_EQ(r2.bound.size(), 1u) << "a member that stays bound is reported bound (its node is taken)";
  EXPECT_EQ(r2.bound[0].pod, "ns/job-0");
}

TEST_F(Fixture, AnEarlyPermanentRefusalStopsBindingTheRest) {
  DecisionApplier applier(api, options());
  auto s = gang_snapshot(4, 4);
  api.bind_errors["ns/job-0"] = {make_error("HTTP 409 Conflict", 409)};
  auto report = applier.apply(bind_all(s), s, index_of(s));
  EXPECT_EQ(api.count("bind "), 1u);
  EXPECT_EQ(api.count("evict "), 0u);
  EXPECT_TRUE(report.bound.empty());
  // Nothing to take back, and no more placed than a rolled-back gang: no status written
  // (found by the 16-in-flight test under the sanitizers' timing).
  EXPECT_EQ(api.count("status "), 0u);
  EXPECT_TRUE(report.status_written.empty());
  EXPECT_EQ(report.not_whole, std::vector<std::string>{"ns/job"});
}

TEST_F(Fixture, TransientErrorsAreRetriedWithBackoff) {
  DecisionApplier applier(api, options());
  auto s = gang_snapshot(2, 2);
  api.bind_errors["ns/job-1"] = {make_error("HTTP 500", 500), make_error("connection refused", 0)};
  auto report = applier.apply(bind_all(s), s, index_of(s));
  EXPECT_EQ(report.bound.size(), 2u);
  EXPECT_TRUE(report.rolled_back.empty());
  EXPECT_EQ(slept, (std::vector<milliseconds>{milliseconds(200), milliseconds(400)}));
}

TEST_F(Fixture, TransientErrorsThatOutlastTheRetriesRollBack) {
  DecisionApplier applier(api, options());
  auto s = gang_snapshot(2, 2);
  api.bind_errors["ns/job-1"] = {make_error("503", 503), make_error("503", 503), make_error("503", 503),
                                 make_error("503", 503)};
  auto report = applier.apply(bind_all(s), s, index_of(s));
  EXPECT_EQ(api.count("bind ns/job-1"), 4u);
  EXPECT_EQ(report.rolled_back, std::vector<std::string>{"ns/job-0"});
}

TEST_F(Fixture, MembersBeyondMinMemberMayFailAlone) {
  DecisionApplier applier(api, options());
  auto s = gang_snapshot(2, 3);
  api.bind_errors["ns/job-2"] = {make_error("HTTP 404", 404)};
  auto report = applier.apply(bind_all(s), s, index_of(s));
  EXPECT_EQ(report.bound.size(), 2u);
  EXPECT_EQ(report.bind_failed, std::vector<std::string>{"ns/job-2"});
  EXPECT_TRUE(report.rolled_back.empty());
  EXPECT_EQ(api.count("status ns/job"), 1u);
}

TEST_F(Fixture, MembersAlreadyRunningCountTowardsMinMember) {
  DecisionApplier applier(api, options());
  auto s = gang_snapshot(3, 4, 3);   // three run already; the fourth is extra
  api.bind_errors["ns/job-3"] = {make_error("HTTP 404", 404)};
  auto report = applier.apply(bind_all(s), s, index_of(s));
  EXPECT_TRUE(report.rolled_back.empty());
  EXPECT_EQ(api.count("evict "), 0u);
}

// A member being deleted is no longer one of the gang's running pods (as the core counts
// it): a refusal among the new members takes them back instead of leaving the gang short.
TEST_F(Fixture, MembersBeingDeletedDoNotCountTowardsMinMember) {
  DecisionApplier applier(api, options());
  auto s = gang_snapshot(3, 4, 1);   // job-0 bound, but leaving; job-1..3 to bind
  s.pods[0].terminating = true;
  api.bind_errors["ns/job-3"] = {make_error("HTTP 404", 404)};
  auto report = applier.apply(bind_all(s), s, index_of(s));
  EXPECT_EQ(report.rolled_back, (std::vector<std::string>{"ns/job-1", "ns/job-2"}));
}

TEST_F(Fixture, BlockedEvictionIsAResultTriedOncePerCycle) {
  DecisionApplier applier(api, options());
  Snapshot s;
  s.pods.push_back(pod("victim", "", "n1"));
  Decisions d;
  d.evictions.push_back({"ns/victim", "n1", "reclaim: queue a above its share"});
  api.evict_outcomes["ns/victim"] = {EvictOutcome::Blocked, EvictOutcome::Blocked};
  auto first = applier.apply(d, s, index_of(s));
  EXPECT_EQ(first.eviction_blocked, std::vector<std::string>{"ns/victim"});
  EXPECT_EQ(api.count("evict "), 1u);
  EXPECT_EQ(api.count("event EvictionBlocked Pod/victim"), 1u);
  EXPECT_TRUE(slept.empty());
  auto second = applier.apply(d, s, index_of(s));
  EXPECT_EQ(api.count("evict "), 2u);
  EXPECT_EQ(api.count("event EvictionBlocked"), 1u) << "the same refusal is not reported twice";
}

TEST_F(Fixture, AnAcceptedEvictionIsNotRepeatedWhileThePodLeaves) {
  DecisionApplier applier(api, options());
  Snapshot s;
  s.pods.push_back(pod("victim", "", "n1"));
  Decisions d;
  d.evictions.push_back({"ns/victim", "n1", "reclaim"});
  EXPECT_EQ(applier.apply(d, s, index_of(s)).evicted.size(), 1u);
  EXPECT_TRUE(applier.apply(d, s, index_of(s)).evicted.empty());
  EXPECT_EQ(api.count("evict "), 1u);
  Snapshot gone;   // once the pod is gone, a new pod of the same name may be evicted again
  applier.apply({}, gone, index_of(gone));
  EXPECT_EQ(applier.apply(d, s, index_of(s)).evicted.size(), 1u);
}

// The cache is told of every eviction as the API accepts it, with the pod's uid: gang
// members taken back and victims alike (so the next snapshot shows them leaving).
TEST_F(Fixture, EveryAcceptedEvictionIsToldWithItsUid) {
  std::vector<std::pair<std::string, std::string>> told;
  auto o = options();
  o.on_evicted = [&](const std::string& pod, const std::string& uid) { told.emplace_back(pod, uid); };
  DecisionApplier applier(api, o);
  auto s = gang_snapshot(3, 3);
  s.pods.push_back(pod("victim", "", "n9"));
  s.pods.push_back(pod("kept", "", "n9"));
  Decisions d = bind_all(s);
  d.evictions.push_back({"ns/victim", "n9", "reclaim"});
  d.evictions.push_back({"ns/kept", "n9", "reclaim"});
  api.evict_outcomes["ns/kept"] = {EvictOutcome::Blocked};
  api.bind_errors["ns/job-2"] = {make_error("POST .../binding: HTTP 404 NotFound", 404)};
  applier.apply(d, s, index_of(s));
  std::sort(told.begin(), told.end());
  EXPECT_EQ(told, (std::vector<std::pair<std::string, std::string>>{
                      {"ns/job-0", "u-job-0"}, {"ns/job-1", "u-job-1"}, {"ns/victim", "u-victim"}}));
}

TEST_F(Fixture, UnschedulableEventsAreRecordedOncePerMessage) {
  DecisionApplier applier(api, options());
  auto s = gang_snapshot(2, 2);
  Decisions d;
  d.events.push_back({"PodGroup", "ns/job", "Warning", "Unschedulable", "2 node(s) Insufficient cpu"});
  applier.apply(d, s, index_of(s));
  applier.apply(d, s, index_of(s));
  EXPECT_EQ(api.count("event Unschedulable"), 1u);
  d.events[0].message = "3 node(s) had untolerated taint {gpu: true}";
  applier.apply(d, s, index_of(s));
  EXPECT_EQ(api.count("event Unschedulable"), 2u);
}

TEST_F(Fixture, ScheduledEventOnlyForBindingsTheApiAccepted) {
  DecisionApplier applier(api, options());
  Snapshot s;
  s.pods = {pod("a"), pod("b")};
  Decisions d;
  d.bindings = {{"ns/a", "n1"}, {"ns/b", "n2"}};
  d.events = {{"Pod", "ns/a", "Normal", "Scheduled", "to n1"}, {"Pod", "ns/b", "Normal", "Scheduled", "to n2"}};
  api.bind_errors["ns/b"] = {make_error("HTTP 404", 404)};
  auto report = applier.apply(d, s, index_of(s));
  EXPECT_EQ(report.bound.size(), 1u);
  EXPECT_EQ(api.count("event Scheduled Pod/a"), 1u);
  EXPECT_EQ(api.count("event Scheduled Pod/b"), 0u);
}

TEST_F(Fixture, NothingIsWrittenWithoutLeadership) {
  auto o = options();
  o.may_write = [] { return false; };
  DecisionApplier applier(api, o);
  auto s = gang_snapshot(2, 2);
  auto d = bind_all(s);
  d.evictions.push_back({"ns/x", "n1", "reclaim"});
  auto report = applier.apply(d, s, index_of(s));
  EXPECT_TRUE(report.stopped);
  EXPECT_TRUE(api.calls.empty());
}

TEST_F(Fixture, LeadershipLostHalfWayLeavesTheRestAlone) {
  auto o = options();
  int allowed = 1;
  o.may_write = [&] { return allowed-- > 0; };
  DecisionApplier applier(api, o);
  auto s = gang_snapshot(3, 3);
  auto report = applier.apply(bind_all(s), s, index_of(s));
  EXPECT_TRUE(report.stopped);
  EXPECT_EQ(api.count("bind "), 1u);
  EXPECT_EQ(api.count("evict "), 0u) << "a former leader does not write, not even to roll back";
}

TEST_F(Fixture, FailedStatusWriteIsCountedNotFatal) {
  DecisionApplier applier(api, options());
  auto s = gang_snapshot(1, 1);
  api.status_errors = {make_error("PUT .../status: HTTP 500", 500)};
  auto report = applier.apply(bind_all(s), s, index_of(s));
  EXPECT_EQ(report.status_failed, 1);
  EXPECT_TRUE(report.status_written.empty());
  EXPECT_EQ(report.bound.size(), 1u);
}

// Many gangs bound with 16 calls in flight: every gang with a member the API refuses
// for good (404), or that keeps failing (503 beyond the retries), ends with none of its
// members bound (the accepted ones taken back); every other gang ends whole, retried
// transient errors included; status only for the whole ones.
TEST_F(Fixture, SixteenBindingsInFlightKeepEveryGangAllOrNothing) {
  auto o = options();
  std::mutex slept_mu;
  o.sleep = [&](milliseconds d) {
    std::lock_guard lock(slept_mu);
    slept.push_back(d);
  };
  o.concurrency = 16;
  DecisionApplier applier(api, o);
  api.bind_latency = std::chrono::microseconds(2000);
  Snapshot s;
  Decisions d;
  const int gangs = 40, size = 8;
  std::set<std::string> broken, refused;
  for (int g = 0; g < gangs; ++g) {
    const std::string group = "job" + std::to_string(g);
    s.podgroups["ns/" + group] = PodGroupInfo{.key = "ns/" + group, .min_member = size};
    for (int m = 0; m < size; ++m) {
      PodInfo p = pod(group + "-" + std::to_string(m), group);
      s.pods.push_back(p);
      d.bindings.push_back({p.key, "n" + std::to_string(g * size + m)});
    }
    d.status_writes.push_back({"ns/" + group, {{"phase", "Running"}}});
    const std::string member = "ns/" + group + "-" + std::to_string((g * 5) % size);
    if (g % 3 == 0 || g % 7 == 1) refused.insert(member);
    if (g % 3 == 0) {
      api.bind_errors[member] = {make_error("HTTP 404 NotFound", 404)};
      broken.insert("ns/" + group);
    } else if (g % 7 == 1) {
      api.bind_errors[member] = std::deque<Error>(4, make_error("HTTP 503", 503));
      broken.insert("ns/" + group);
    } else if (g % 5 == 2) {
      api.bind_errors[member] = {make_error("HTTP 429", 429), make_error("HTTP 500", 500)};
    }
  }
  auto report = applier.apply(d, s, index_of(s));
  EXPECT_GE(api.max_in_flight.load(), 16);
  EXPECT_FALSE(report.stopped);
  std::map<std::string, int> bound;
  for (const auto& b : report.bound) ++bound[b.pod.substr(0, b.pod.rfind('-'))];
  std::set<std::string> rolled(report.rolled_back.begin(), report.rolled_back.end());
  for (int g = 0; g < gangs; ++g) {
    const std::string group = "ns/job" + std::to_string(g);
    if (broken.count(group)) {
      EXPECT_EQ(bound[group], 0) << group;
      for (int m = 0; m < size; ++m) {
        const std::string member = group + "-" + std::to_string(m);
        // Every member the API accepted is taken back; none is evicted that was not bound.
        const bool accepted = api.count("bind " + member + " ") > 0 && !refused.count(member);
        EXPECT_EQ(rolled.count(member), accepted ? 1u : 0u) << member;
        EXPECT_EQ(api.count("evict " + member), accepted ? 1u : 0u) << member;
      }
    } else {
      EXPECT_EQ(bound[group], size) << group;
    }
  }
  std::set<std::string> written;
  for (const auto& w : report.status_written) written.insert(w.podgroup);
  for (int g = 0; g < gangs; ++g) {
    const std::string group = "ns/job" + std::to_string(g);
    EXPECT_EQ(written.count(group), broken.count(group) ? 0u : 1u) << group;
  }
  // The same order as one call at a time would give.
  EXPECT_TRUE(std::is_sorted(report.bound.begin(), report.bound.end(), [](const Binding& a, const Binding& b) {
    auto n = [](const std::string& node) { return std::stoi(node.substr(1)); };
    return n(a.node) < n(b.node);
  }));
}

}  // namespace
}  // namespace weft::scheduler
