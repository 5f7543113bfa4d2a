#include "bench/native_gang/api_run.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <future>
#include <regex>
#include <thread>

#include "kube/client/resource.h"
#include "kube/objects.h"
#include "kube/workload.h"

namespace weft::bench {

using nlohmann::json;
using Steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

double seconds(Steady::time_point from, Steady::time_point to) { return std::chrono::duration<double>(to - from).count(); }

kube::ResourceRef ref_of(const json& o) {
  const std::string kind = kube::kind_of(o);
  if (kind == "CompositePodGroup") return kube::resources::composite_podgroups();
  if (kind == "PodGroup")   // told apart by API group, as the scheduler does
    return kube::api_group_of(o) == kube::kWorkloadApiGroup ? kube::resources::native_podgroups()
                                                            : kube::resources::podgroups();
  return kube::resources::pods();
}

// The composites, then the PodGroups, then the pods (scheduler_perf's opcode order), each
// kind from many threads, each object in its own namespace.
bool create_all(kube::Client& client, const Case& c, int threads, std::string* error) {
  auto create = [&](const std::vector<json>& objects, const std::string& kind) {
    std::vector<const json*> of_kind;
    for (const auto& o : objects)
      if (kube::kind_of(o) == kind) of_kind.push_back(&o);
    return parallel(static_cast<int>(of_kind.size()), threads, [&](int i) {
      const json& o = *of_kind[i];
      auto r = client.create(ref_of(o), o["metadata"].value("namespace", c.ns), o);
      if (!r) std::fprintf(stderr, "%s %s: %s\n", kind.c_str(), kube::name_of(o).c_str(), r.message().c_str());
      return r.ok();
    }, error);
  };
  return create(c.group_objects, "CompositePodGroup") && create(c.group_objects, "PodGroup") && create(c.pods, "Pod");
}

// Waits for every pod of the case to be seen bound (or the deadline) and fills the timing.
// A placer that has ended has had its bindings accepted: the watch is given a few seconds
// more to show them.
void await_bound(BindingWatch& watch, const Case& c, Steady::time_point start, Timing& t,
                 const std::function<bool()>& alive) {
  const int pods = static_cast<int>(c.pods.size());
  auto deadline = Steady::now() + 300s;
  for (bool ended = false; static_cast<int>(watch.bound()) < pods && Steady::now() < deadline;) {
    if (!ended && !alive()) ended = true, deadline = std::min(deadline, Steady::now() + 5s);
    std::this_thread::sleep_for(5ms);
  }
  t.bound = static_cast<int>(watch.bound());
  t.bound_s = seconds(start, watch.last());
  if (t.bound < pods && t.error.empty())
    t.error = "only " + std::to_string(t.bound) + " of " + std::to_string(pods) + " pods bound";
}

}  // namespace

Timing run_weft(const RunOptions& o, const Case& c, const std::string& state, const Check& check) {
  Timing t;
  Api api(o.bin, state, o.work_dir);
  if (!api.error().empty()) return {.error = api.error()};
  testing::Process::Options p;
  p.argv = {o.bin.scheduler, "run", "--kubeconfig", api.kubeconfig(), "--period", o.bin.scheduler_period,
            "--bind-concurrency", std::to_string(o.concurrency)};
  p.argv.insert(p.argv.end(), o.scheduler_args.begin(), o.scheduler_args.end());
  p.keep_stdin_open = false;
  p.log_file = o.work_dir + "/scheduler-" + c.label + ".log";
  testing::Process scheduler(p);
  if (!scheduler.wait_for_line(std::regex("caches synced"), 300s)) return {.error = "scheduler did not sync"};
  BindingWatch watch(api.client(), "app=" + c.label, static_cast<int>(c.pods.size()), c.ns);
  const double placer0 = cpu_seconds(scheduler.pid()), api0 = cpu_seconds(api.pid());
  const auto start = Steady::now();
  if (create_all(api.client(), c, o.client_threads, &t.error)) t.created_s = seconds(start, Steady::now());
  await_bound(watch, c, start, t, [&] { return scheduler.running(); });
  t.placer_cpu_s = cpu_seconds(scheduler.pid()) - placer0;
  t.api_cpu_s = cpu_seconds(api.pid()) - api0;
  t.verdict = check(api.client(), c);
  // A pipelined cycle is logged once its writes have answered: wait for the lines that
  // account for every binding.
  static const std::regex cycle(R"(bound ([0-9]+),.* decide ([0-9.]+)s)");
  for (auto until = Steady::now() + 5s; Steady::now() < until;) {
    std::smatch m;
    int logged = 0;
    t.decide_s = 0;
    for (const auto& line : scheduler.lines())
      if (std::regex_search(line, m, cycle) && std::stoi(m[1]) > 0) logged += std::stoi(m[1]), t.decide_s += std::stod(m[2]);
    if (logged >= t.bound) break;
    std::this_thread::sleep_for(100ms);
  }
  return t;
}

Timing run_placer(const RunOptions& o, const Case& c, const std::string& state, const Check& check,
                  const MakePlacer& make) {
  Timing t;
  Api api(o.bin, state, o.work_dir);
  if (!api.error().empty()) return {.error = api.error()};
  auto placer = make(api.client(), c, o.concurrency);
  if (auto s = placer->sync(); !s) return {.error = s.message()};
  BindingWatch watch(api.client(), "app=" + c.label, static_cast<int>(c.pods.size()), c.ns);
  const double placer0 = cpu_seconds(getpid()), api0 = cpu_seconds(api.pid());
  const auto start = Steady::now();
  auto placing = std::async(std::launch::async, [&] { return placer->run(Steady::now() + 300s); });
  if (create_all(api.client(), c, o.client_threads, &t.error)) t.created_s = seconds(start, Steady::now());
  await_bound(watch, c, start, t, [&] {
    return placing.wait_for(0s) != std::future_status::ready;
  });
  t.placer_cpu_s = cpu_seconds(getpid()) - placer0;
  t.api_cpu_s = cpu_seconds(api.pid()) - api0;
  if (auto s = placing.get(); !s && t.error.empty()) t.error = s.message();
  t.verdict = check(api.client(), c);
  return t;
}

void print_row(const std::string& who, const Timing& t, int pods) {
  std::printf("  %-22s all bound %7.3f s (%6.0f pods/s), creates done %6.3f s, last create -> all bound %6.3f s; "
              "CPU s: placer %.2f, kube-lite %.2f; %s%s%s\n",
              who.c_str(), t.bound_s, t.bound_s > 0 ? pods / t.bound_s : 0.0, t.created_s, t.bound_s - t.created_s,
              t.placer_cpu_s, t.api_cpu_s,
              (t.verdict.summary() + (t.decide_s > 0 ? "; decide " + std::to_string(t.decide_s).substr(0, 5) + " s" : ""))
                  .c_str(),
              t.error.empty() ? "" : "  ERROR: ", t.error.c_str());
}

json row_json(const Timing& t) {
  return {{"bound_s", t.bound_s}, {"created_s", t.created_s}, {"bound", t.bound}, {"decide_s", t.decide_s}, {"placer_cpu_s", t.placer_cpu_s}, {"api_cpu_s", t.api_cpu_s}, {"ok", t.verdict.ok() && t.error.empty()},
          {"check", t.verdict.summary()}, {"rank_pairs_across_leaf", t.verdict.rank_pairs_across_leaf},
          {"error", t.error}};
}

}  // namespace weft::bench
