#include "bench/scheduler_run/phases.h"

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "kube/client/config.h"
#include "kube/client/resource.h"

namespace weft::bench {

using nlohmann::json;
using Steady = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

double since(Steady::time_point t) { return std::chrono::duration<double>(Steady::now() - t).count(); }

// kB figures of /proc/PID/status ("VmHWM:", "VmRSS:").
long proc_status_kb(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(field.size()));
  }
  return 0;
}

kube::ClientOptions fast_client() {
  kube::ClientOptions o;
  o.qps = 0;
  o.timeout = 60s;
  o.backoff.initial = 50ms;
  return o;
}

}  // namespace

double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i)
    if (i == 14 || i == 15) ticks += std::stod(field);
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

bool parallel(int n, int threads, const std::function<bool(int)>& fn, std::string* error) {
  std::atomic<int> next{0};
  std::atomic<bool> ok{true};
  std::mutex mu;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int i = next++; i < n && ok; i = next++) {
        if (!fn(i)) ok = false;
      }
    });
  }
  for (auto& t : pool) t.join();
  if (!ok && error && error->empty()) *error = "a request failed";
  return ok;
}

BindingWatch::BindingWatch(kube::Client& client, const std::string& label, int expect, const std::string& ns)
    : expect_(expect) {
  auto page = client.list_page(kube::resources::pods(), ns, kube::ListOptions{.limit = 1});
  std::string rv = page ? page->resource_version : "";
  thread_ = std::thread([this, &client, label, rv, ns] {
    kube::ListOptions o;
    o.label_selector = label;
    o.resource_version = rv;
    std::string from = rv;
    while (!cancel_.cancelled() && static_cast<int>(bound()) < expect_) {
      o.resource_version = from;
      auto end = client.watch(kube::resources::pods(), ns, o, [&](const kube::WatchEvent& e) {
        const auto& spec = e.object.contains("spec") ? e.object["spec"] : json::object();
        if (e.type == "BOOKMARK") return true;
        if (!spec.value("nodeName", "").empty()) {
          std::lock_guard lock(mu_);
          if (seen_.insert(e.object["metadata"].value("name", "")).second) last_ = Steady::now();
        }
        return static_cast<int>(bound()) < expect_;
      }, &cancel_);
      if (end) from = end->resource_version;
    }
  });
}

BindingWatch::~BindingWatch() {
  cancel_.cancel();
  thread_.join();
}

size_t BindingWatch::bound() {
  std::lock_guard lock(mu_);
  return seen_.size();
}

Steady::time_point BindingWatch::last() {
  std::lock_guard lock(mu_);
  return last_;
}

Api::Api(const Binaries& bin, const std::string& state, const std::string& dir) {
  kubeconfig_ = dir + "/kubeconfig";
  testing::Process::Options o;
  o.argv = {bin.kube_lite, "--listen", "127.0.0.1:0", "--state", state, "--kubeconfig-out", kubeconfig_};
  o.keep_stdin_open = false;
  process_ = std::make_unique<testing::Process>(o);
  if (!process_->wait_for_line(std::regex("listening on"), 300s)) {
    error_ = "kube-lite did not start: " + process_->output();
    return;
  }
  auto c = kube::connect(kubeconfig_, fast_client());
  if (!c) {
    error_ = c.message();
    return;
  }
  client_ = std::move(*c);
}

SchedulerRun run_scheduler(const Binaries& bin, const ClusterShape& shape, const std::string& state,
                           const std::string& dir, int pods, int gang_size, int concurrency, int client_threads) {
  SchedulerRun out;
  Api api(bin, state, dir);
  if (!api.error().empty()) {
    out.error = api.error();
    return out;
  }
  testing::Process::Options o;
  o.argv = {bin.scheduler, "run", "--kubeconfig", api.kubeconfig(), "--period", bin.scheduler_period,
            "--bind-concurrency", std::to_string(concurrency)};
  o.keep_stdin_open = false;
  o.log_file = dir + "/scheduler-" + (gang_size ? "gangs" : "jobs") + "-c" + std::to_string(concurrency) + ".log";
  testing::Process scheduler(o);
  if (!scheduler.wait_for_line(std::regex("caches synced"), 300s)) {
    out.error = "scheduler did not sync: " + scheduler.output();
    return out;
  }
  const std::string label = gang_size ? "app=gang" : "app=single";
  BindingWatch watch(api.client(), label, pods);
  auto& client = api.client();
  const auto start = Steady::now();
  if (gang_size) {
    const int gangs = pods / gang_size;
    parallel(gangs, client_threads, [&](int g) {
      const std::string group = "gang-" + std::to_string(g);
      if (!client.create(kube::resources::podgroups(), "bench", make_gang(group, gang_size))) return false;
      for (int m = 0; m < gang_size; ++m) {
        if (!client.create(kube::resources::pods(), "bench",
                           make_pending_pod(shape, group + "-" + std::to_string(m), group)))
          return false;
      }
      return true;
    }, &out.error);
  } else {
    parallel(pods, client_threads, [&](int i) {
      return static_cast<bool>(
          client.create(kube::resources::pods(), "bench", make_pending_pod(shape, "job-" + std::to_string(i), "")));
    }, &out.error);
  }
  out.created = {pods, since(start)};
  const auto deadline = Steady::now() + 600s;
  while (static_cast<int>(watch.bound()) < pods && Steady::now() < deadline && scheduler.running())
    std::this_thread::sleep_for(20ms);
  out.bound = {static_cast<int>(watch.bound()), std::chrono::duration<double>(watch.last() - start).count()};
  if (out.bound.objects < pods) out.error = "only " + std::to_string(out.bound.objects) + " of " +
                                            std::to_string(pods) + " pods bound";
  // Until a cycle has been logged with every pod in its snapshot (pipelined, a cycle is
  // logged once its writes have answered), then the peak RSS.
  std::smatch m;
  static const std::regex cycle(R"(cycle \d+: (\d+) pods)");
  const long all = shape.running_pods + pods;
  for (auto until = Steady::now() + 60s; Steady::now() < until && out.pods_in_cache < all;) {
    std::this_thread::sleep_for(200ms);
    for (const auto& line : scheduler.lines())
      if (std::regex_search(line, m, cycle)) out.pods_in_cache = std::stol(m[1]);
  }
  out.rss_mib = proc_status_kb(scheduler.pid(), "VmHWM:") / 1024.0;
  return out;
}

KubeLiteAlone measure_kube_lite(const Binaries& bin, const ClusterShape& shape, const std::string& state,
                                const std::string& dir, int pods, int threads) {
  KubeLiteAlone out;
  Api api(bin, state, dir);
  if (!api.error().empty()) {
    out.error = api.error();
    return out;
  }
  auto& client = api.client();
  const double cpu0 = cpu_seconds(api.pid());
  auto t = Steady::now();
  parallel(pods, threads, [&](int i) {
    return static_cast<bool>(
        client.create(kube::resources::pods(), "bench", make_pending_pod(shape, "alone-" + std::to_string(i), "")));
  }, &out.error);
  out.created = {pods, since(t)};
  t = Steady::now();
  parallel(pods, threads, [&](int i) {
    return static_cast<bool>(client.bind("bench", "alone-" + std::to_string(i), node_name(i % shape.nodes)));
  }, &out.error);
  out.bound = {pods, since(t)};
  out.cpu_seconds = cpu_seconds(api.pid()) - cpu0;
  return out;
}

DeschedulerRun measure_descheduler(const Binaries& bin, const ClusterShape&, const std::string& state,
                                   const std::string& dir, int) {
  DeschedulerRun out;
  Api api(bin, state, dir);
  if (!api.error().empty()) {
    out.error = api.error();
    return out;
  }
  const std::string policy = dir + "/policy.yaml";
  std::ofstream(policy) << "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
                           "  pluginConfig:\n  - name: DefaultEvictor\n    args: {nodeFit: true}\n"
                           "  - name: LoadAware\n    args:\n      thresholds: {cpu: 30, memory: 30}\n"
                           "      targetThresholds: {cpu: 70, memory: 85}\n"
                           "  plugins:\n    balance:\n      enabled: [LoadAware]\n";
  const double cpu0 = cpu_seconds(api.pid());
  // Timed from the start to the exit (seen within the 10 ms Process::wait polls at), as
  // `time weft-descheduler run --once` would show it.
  auto t = Steady::now();
  testing::Process run({.argv = {bin.descheduler, "run", "--policy", policy, "--kubeconfig", api.kubeconfig(),
                                 "--once", "--dry-run", "--load", "annotations"},
                        .keep_stdin_open = false});
  auto code = run.wait(300s);
  out.wall_s = since(t);
  out.serving_cpu_s = cpu_seconds(api.pid()) - cpu0;
  out.exit_code = code ? *code : -1;
  if (!code) run.stop();
  // Beside it, what a plain client takes to list the same (paged as kubectl pages).
  t = Steady::now();
  for (const auto& ref : {kube::resources::nodes(), kube::resources::pods()}) {
    auto l = api.client().list(ref, "", kube::ListOptions{.limit = 500});
    if (!l) out.error = l.message();
  }
  out.list_s = since(t);
  if (out.exit_code != 0)
    out.error = "weft-descheduler exit " + std::to_string(out.exit_code) + ": " + run.output().substr(0, 2000);
  return out;
}

}  // namespace weft::bench
