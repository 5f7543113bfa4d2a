// global_bench [MEMBERS NODES BINDINGS]: decisions per second of the global dispatcher
// beside a naive one that dispatches on each member's summed free capacity, then how
// many dispatched jobs cannot start (every member's dispatched gangs placed at once by
// the single-cluster core on its real nodes).
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
  return 0;
}

}  // namespace
}  // namespace weft::scheduler::global

int main(int argc, char** argv) {
  weft::scheduler::global::Sizes z;
  if (argc == 4) z = {std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3])};
  return weft::scheduler::global::run(z);
}
