// global_bench [MEMBERS NODES BINDINGS]: decisions per second of the global dispatcher
// beside a naive one that dispatches on each member's summed free capacity, then how
// many dispatched jobs cannot start (every member's dispatched gangs placed at once by
// the single-cluster core on its real nodes). Then reclaim between queues at the same
// size, beside the same cycle without reclaim, and the cycle after it.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "scheduler/global/core/member.h"
#include "scheduler/global/core/dispatch.h"

namespace weft::scheduler::global {
namespace {

using nlohmann::json;
using Seconds = std::chrono::duration<double>;

struct Sizes {
  int members = 20, nodes = 1000, bindings = 2000;
};

json node(const std::string& member, int m, int i) {
  std::string name = member + "-n" + std::to_string(i);
  return {{"apiVersion", "v1"}, {"kind", "Node"},
          {"metadata", {{"name", name},
                        {"labels", {{"weft.dev/ib-fabric", "f" + std::to_string(m)},
                                    {"weft.dev/ib-spine", member + "-s" + std::to_string(i / 128)},
                                    {"weft.dev/ib-leaf", member + "-l" + std::to_string(i / 16)}}},
                        {"annotations", {{kMemberAnnotation, member}}}}},
          {"status", {{"allocatable", {{"cpu", "192"}, {"memory", "2Ti"}, {"nvidia.com/gpu", "8"}, {"pods", "110"}}}}}};
}

json running_pod(const std::string& member, const std::string& node, int k, int gpus) {
  return {{"apiVersion", "v1"}, {"kind", "Pod"},
          {"metadata", {{"name", node + "-p" + std::to_string(k)}, {"namespace", "busy"},
                        {"annotations", {{kMemberAnnotation, member}}}}},
          {"spec", {{"nodeName", node}, {"containers", {{{"name", "c"}, {"resources", {{"requests",
                   {{"cpu", std::to_string(gpus * 20)}, {"memory", std::to_string(gpus * 200) + "Gi"},
                    {"nvidia.com/gpu", std::to_string(gpus)}}}}}}}}}},
          {"status", {{"phase", "Running"}}}};
}

std::vector<json> scenario(const Sizes& z) {
  std::mt19937 rng(42);
  std::vector<json> o;
  for (int m = 0; m < z.members; ++m) {
    std::string member = "m" + std::to_string(m);
    o.push_back({{"apiVersion", "cluster.karmada.io/v1alpha1"}, {"kind", "Cluster"}, {"metadata", {{"name", member}}},
                 {"status", {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}});
    for (int i = 0; i < z.nodes; ++i) {
      o.push_back(node(member, m, i));
      // Most GPUs busy (about three quarters), in pieces of 1, 2 and 4: the free half is fragmented.
      int used = 0, k = 0;
      while (used < 8 && rng() % 100 < 90) {
        int g = 1 << (rng() % 3);
        if (used + g > 8) break;
        o.push_back(running_pod(member, member + "-n" + std::to_string(i), k++, g));
        used += g;
      }
    }
  }
  const char* queues[] = {"q1", "q2", "q3", "q4"};
  for (int q = 0; q < 4; ++q)
    o.push_back({{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "Queue"}, {"metadata", {{"name", queues[q]}}},
                 {"spec", {{"weight", q + 1}}}});
  for (int b = 0; b < z.bindings; ++b) {
    std::string name = "job-" + std::to_string(b);
    int gpus = 1 << (rng() % 4);              // 1, 2, 4, 8 per pod
    int replicas = 1 << (rng() % 5);          // 1..16 pods
    json j = {{"apiVersion", "batch.volcano.sh/v1alpha1"}, {"kind", "Job"}, {"metadata", {{"name", name}, {"namespace", "ml"}}},
              {"spec", {{"queue", queues[rng() % 4]}, {"minAvailable", replicas},
                        {"tasks", {{{"name", "worker"}, {"replicas", replicas}, {"template", {{"spec", {{"containers",
                            {{{"name", "w"}, {"resources", {{"requests", {{"cpu", std::to_string(gpus * 16)},
                                {"memory", std::to_string(gpus * 128) + "Gi"}, {"nvidia.com/gpu", std::to_string(gpus)}}}}}}}}}}}}}}}}}};
    if (replicas >= 8) j["spec"]["networkTopology"] = {{"mode", "hard"}, {"highestTierAllowed", 2}};
    o.push_back(j);
    char created[32];
    std::snprintf(created, sizeof created, "2026-01-01T%02d:%02d:%02dZ", b / 3600, b / 60 % 60, b % 60);
    o.push_back({{"apiVersion", "work.karmada.io/v1alpha2"}, {"kind", "ResourceBinding"},
                 {"metadata", {{"name", name}, {"namespace", "ml"}, {"creationTimestamp", created}}},
                 {"spec", {{"resource", {{"apiVersion", "batch.volcano.sh/v1alpha1"}, {"kind", "Job"}, {"name", name}, {"namespace", "ml"}}},
                           {"replicas", replicas}, {"suspension", {{"scheduling", true}}}}}});
  }
  return o;
}

// Volcano Global's model: release in order while the queue allows, to the first member
// whose summed free capacity (its resourceSummary) covers the job.
std::vector<const BindingInfo*> naive_dispatch(const GlobalState& s, std::map<std::string, std::string>& member_of) {
  std::map<std::string, kube::ResourceList> free;
  for (const auto& [name, snap] : s.members) {
    for (const auto& n : snap.nodes) kube::add_to(free[name], n.allocatable);
    for (const auto& p : snap.pods)
      if (p.bound()) kube::subtract_from(free[name], p.request);
  }
  std::vector<const BindingInfo*> order;
  for (const auto& b : s.bindings) order.push_back(&b);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->created < b->created; });
  std::vector<const BindingInfo*> out;
  for (const auto* b : order)
    for (auto& [name, f] : free)
      if (kube::fits(b->gang.total, f)) {
        kube::subtract_from(f, b->gang.total);
        out.push_back(b);
        member_of[b->key] = name;
        break;
      }
  return out;
}

// Gangs that cannot start: each member's dispatched gangs placed one after the other,
// in the order they were dispatched, by the single-cluster core on the member's real nodes.
int cannot_start(const GlobalState& s, const std::vector<const BindingInfo*>& order,
                 const std::map<std::string, std::string>& member_of) {
  std::map<std::string, std::unique_ptr<MemberState>> members;
  for (const auto& [name, snap] : s.members) members[name] = std::make_unique<MemberState>(name, snap);
  int stuck = 0;
  for (const auto* b : order) {
    MemberState& m = *members.at(member_of.at(b->key));
    FitResult f = m.fit(b->gang);
    if (f.fits) m.take(f.placement);
    else ++stuck;
  }
  return stuck;
}

// What `global run` writes back: each binding's clusters and suspension as decided, and
// Karmada removing a taken-back binding's pods from its member.
void write_back(std::vector<json>& objects, const GlobalDecisions& d) {
  std::map<std::string, const BindingDecision*> by_key;
  for (const auto& b : d.bindings) by_key[b.key] = &b;
  std::vector<json> kept;
  for (auto& o : objects) {
    if (o["kind"] == "Pod" && o["metadata"]["labels"].contains("volcano.sh/job-name")) {
      auto it = by_key.find("ml/" + o["metadata"]["labels"]["volcano.sh/job-name"].get<std::string>());
      if (it != by_key.end() && it->second->clusters.empty()) continue;
    }
    if (o["kind"] == "ResourceBinding") {
      const BindingDecision& b = *by_key.at("ml/" + o["metadata"]["name"].get<std::string>());
      json clusters = json::array();
      for (const auto& c : b.clusters) clusters.push_back({{"name", c.name}, {"replicas", c.replicas}});
      o["spec"]["clusters"] = clusters;
      o["spec"]["suspension"]["scheduling"] = b.suspended;
    }
    kept.push_back(std::move(o));
  }
  objects = std::move(kept);
}

GlobalDecisions decide(const std::vector<json>& objects, double* seconds) {
  GlobalBuilder builder;
  for (const auto& o : objects)
    if (auto st = builder.add(o); !st) std::fprintf(stderr, "%s\n", st.message().c_str()), std::exit(1);
  auto state = builder.build();
  if (!state) std::fprintf(stderr, "%s\n", state.message().c_str()), std::exit(1);
  auto t0 = std::chrono::steady_clock::now();
  GlobalDecisions d = dispatch(*state);
  if (seconds) *seconds = Seconds(std::chrono::steady_clock::now() - t0).count();
  return d;
}

json gang_job(const std::string& name, const std::string& queue) {
  return {{"apiVersion", "batch.volcano.sh/v1alpha1"}, {"kind", "Job"}, {"metadata", {{"name", name}, {"namespace", "ml"}}},
          {"spec", {{"queue", queue}, {"minAvailable", 2},
                    {"tasks", {{{"name", "worker"}, {"replicas", 2}, {"template", {{"spec", {{"containers",
                        {{{"name", "w"}, {"resources", {{"requests", {{"cpu", "96"}, {"memory", "1Ti"},
                                                                       {"nvidia.com/gpu", "8"}}}}}}}}}}}}}}}}}};
}

// Reclaim at size: queue "old" holds every GPU of the members with gangs of 2 x 8 GPUs
// (their pods bound), "new" (same weight) submits `count` such gangs: "old" is above its
// share by exactly what "new" asks. Beside the same cycle with "old" `reclaimable:
// false` (no reclaim), and the cycle after the reclaim, written back.
void reclaim_bench(const Sizes& z, int count) {
  std::vector<json> o;
  int gang = 0;
  for (int m = 0; m < z.members; ++m) {
    std::string member = "m" + std::to_string(m);
    o.push_back({{"apiVersion", "cluster.karmada.io/v1alpha1"}, {"kind", "Cluster"}, {"metadata", {{"name", member}}},
                 {"status", {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}});
    for (int i = 0; i < z.nodes; ++i) o.push_back(node(member, m, i));
    for (int i = 0; i + 1 < z.nodes; i += 2, ++gang) {
      std::string name = "old-" + std::to_string(gang);
      o.push_back(gang_job(name, "old"));
      char created[32];
      std::snprintf(created, sizeof created, "2026-01-01T%02d:%02d:%02dZ", gang / 3600 % 24, gang / 60 % 60, gang % 60);
      o.push_back({{"apiVersion", "work.karmada.io/v1alpha2"}, {"kind", "ResourceBinding"},
                   {"metadata", {{"name", name}, {"namespace", "ml"}, {"creationTimestamp", created}}},
                   {"spec", {{"resource", {{"apiVersion", "batch.volcano.sh/v1alpha1"}, {"kind", "Job"}, {"name", name},
                                           {"namespace", "ml"}}},
                             {"replicas", 2}, {"suspension", {{"scheduling", false}}},
                             {"clusters", {{{"name", member}, {"replicas", 2}}}}}}});
      for (int k = 0; k < 2; ++k) {
        json pod = running_pod(member, member + "-n" + std::to_string(i + k), k, 8);
        pod["metadata"]["name"] = name + "-worker-" + std::to_string(k);
        pod["metadata"]["namespace"] = "ml";
        pod["metadata"]["labels"] = {{"volcano.sh/job-name", name}, {"volcano.sh/task-spec", "worker"}};
        o.push_back(pod);
      }
    }
  }
  for (const char* q : {"old", "new"})
    o.push_back({{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "Queue"}, {"metadata", {{"name", q}}},
                 {"spec", {{"weight", 1}}}});
  for (int b = 0; b < count; ++b) {
    std::string name = "new-" + std::to_string(b);
    o.push_back(gang_job(name, "new"));
    char created[32];
    std::snprintf(created, sizeof created, "2026-01-02T%02d:%02d:%02dZ", b / 3600, b / 60 % 60, b % 60);
    o.push_back({{"apiVersion", "work.karmada.io/v1alpha2"}, {"kind", "ResourceBinding"},
                 {"metadata", {{"name", name}, {"namespace", "ml"}, {"creationTimestamp", created}}},
                 {"spec", {{"resource", {{"apiVersion", "batch.volcano.sh/v1alpha1"}, {"kind", "Job"}, {"name", name},
                                         {"namespace", "ml"}}},
                           {"replicas", 2}, {"suspension", {{"scheduling", true}}}}}});
  }
  auto gpus_of = [](const GlobalDecisions& d, const char* q) -> long long {
    for (const auto& r : d.queues)
      if (r.name == q && r.allocated.count("nvidia.com/gpu")) return r.allocated.at("nvidia.com/gpu") / 1000;
    return 0;
  };
  auto taken = [](const GlobalDecisions& d) {
    int n = 0;
    for (const auto& b : d.bindings) n += b.reason_code == "Reclaimed";
    return n;
  };
  std::vector<json> kept = o;
  for (auto& q : kept)
    if (q["kind"] == "Queue" && q["metadata"]["name"] == "old") q["spec"]["reclaimable"] = false;
  double with_s = 0, none_s = 0, after_s = 0;
  GlobalDecisions none = decide(kept, &none_s);
  GlobalDecisions with = decide(o, &with_s);
  write_back(o, with);
  GlobalDecisions after = decide(o, &after_s);
  std::printf("reclaim: %d gangs of 2 x 8 GPUs in queue new, %d in old holding every GPU: %.2f s (%.0f decisions/s), "
              "%d taken back, new holds %lld GPUs, %d core sessions; the next cycle: %.2f s, %d taken back, %d dispatched\n",
              count, gang, with_s, count / with_s, taken(with), gpus_of(with, "new"), with.stats.sessions, after_s,
              taken(after), after.stats.dispatched);
  std::printf("no reclaim (old reclaimable: false): %.2f s, new holds %lld GPUs\n", none_s, gpus_of(none, "new"));
}

int run(const Sizes& z) {
  auto objects = scenario(z);
  auto t0 = std::chrono::steady_clock::now();
  GlobalBuilder builder;
  for (const auto& o : objects)
    if (auto st = builder.add(o); !st) return std::fprintf(stderr, "%s\n", st.message().c_str()), 1;
  auto state = builder.build();
  if (!state) return std::fprintf(stderr, "%s\n", state.message().c_str()), 1;
  auto t1 = std::chrono::steady_clock::now();
  GlobalDecisions d = dispatch(*state);
  auto t2 = std::chrono::steady_clock::now();
  std::map<std::string, std::string> naive_member;
  auto naive = naive_dispatch(*state, naive_member);
  auto t3 = std::chrono::steady_clock::now();
  std::map<std::string, const BindingInfo*> by_key;
  for (const auto& bi : state->bindings) by_key[bi.key] = &bi;
  std::map<std::string, std::string> our_member;
  for (const auto& b : d.bindings)
    if (!b.clusters.empty()) our_member[b.key] = b.clusters.front().name;
  std::vector<const BindingInfo*> ours;
  for (const auto& k : d.dispatch_order) ours.push_back(by_key.at(k));
  const int naive_count = static_cast<int>(naive.size());
  const double ours_s = Seconds(t2 - t1).count(), naive_s = Seconds(t3 - t2).count();
  std::printf("%d members x %d nodes, %zu pods running, %d suspended bindings (build %.2f s)\n", z.members, z.nodes,
              objects.size() - static_cast<size_t>(z.members * (z.nodes + 1) + 4 + 2 * z.bindings), z.bindings,
              Seconds(t1 - t0).count());
  std::printf("weft global: %.2f s, %.0f decisions/s, %d dispatched, %d cannot start, %d core sessions\n", ours_s,
              z.bindings / ours_s, d.stats.dispatched, cannot_start(*state, ours, our_member), d.stats.sessions);
  std::printf("naive (summed capacity): %.4f s, %.0f decisions/s, %d dispatched, %d cannot start\n", naive_s,
              z.bindings / naive_s, naive_count, cannot_start(*state, naive, naive_member));
  reclaim_bench(z, z.bindings / 10);
  return 0;
}

}  // namespace
}  // namespace weft::scheduler::global

int main(int argc, char** argv) {
  weft::scheduler::global::Sizes z;
  if (argc == 4) z = {std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3])};
  return weft::scheduler::global::run(z);
}
