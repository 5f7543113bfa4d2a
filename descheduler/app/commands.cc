#include "descheduler/app/commands.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/daemon_http.h"
#include "common/signals.h"
#include "descheduler/app/cluster_source.h"
#include "descheduler/app/cycle.h"
#include "descheduler/app/load_source.h"
#include "descheduler/app/state_store.h"
#include "descheduler/core/framework/runner.h"
#include "descheduler/core/plan_output.h"
#include "descheduler/core/profiles.h"
#include "kube/client/config.h"
#include "kube/client/leader_election.h"

namespace weft::descheduler {
namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "weft-descheduler: %s\n", message.c_str());
  return 1;
}

// What the profiles read: --load (checked whenever given) for each, else each one's own source.
Result<std::vector<LoadRead>> load_reads_of(const Policy& policy, const std::string& load_flag) {
  std::optional<LoadSpec> flag;
  if (!load_flag.empty()) {
    auto spec = parse_load_spec(load_flag);
    if (!spec) return spec.error();
    flag = *spec;
  }
  return load_reads(policy, flag);
}

Result<Policy> read_policy(const std::string& path, const PrometheusAuthFlags& flags) {
  std::ifstream in(path);
  if (!in) return make_error("policy " + path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  auto policy = parse_policy_text(text.str(), path);
  if (!policy) return policy;
  for (const auto& w : policy->warnings) spdlog::warn("policy {}: {}", path, w);
  for (PolicyProfile& profile : policy->profiles) {   // the flags hold for every profile's Prometheus
    PrometheusAuth& auth = profile.load_aware.metrics.auth;
    if (!flags.bearer_token_file.empty()) {
      auth.bearer_token_file = flags.bearer_token_file;
      auth.token_secret.reset();   // the flag overrides metricsProviders' authToken
    }
    if (!flags.ca_file.empty()) auth.ca_file = flags.ca_file;
    if (!flags.username.empty()) auth.username = flags.username;
    if (!flags.password_file.empty()) auth.password_file = flags.password_file;
    if (flags.insecure_skip_verify) auth.insecure_skip_verify = true;
    if (auth.username.empty() != auth.password_file.empty())
      return make_error("Prometheus basic auth needs both --prometheus-username and --prometheus-password-file");
    if (!auth.username.empty() && !auth.bearer_token_file.empty())
      return make_error("Prometheus: use a bearer token or basic auth, not both");
  }
  return policy;
}

Result<Seconds> duration_flag(const std::string& flag, const std::string& text) {
  auto d = kube::parse_duration_at_least(text, kube::Duration::zero());
  if (!d) return make_error(flag + ": " + d.message());
  return to_seconds(*d);
}

Status print_plan(const Plan& plan, const std::string& output) {
  if (output == "json") std::cout << plan_to_json(plan).dump() << std::endl;
  else if (output == "table") std::cout << plan_to_table(plan) << std::flush;
  else return make_error("--output '" + output + "': use json or table");
  return {};
}

std::string own_namespace() {
  const char* ns = std::getenv("POD_NAMESPACE");
  if (ns && *ns) return ns;
  std::ifstream in("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
  std::string text;
  if (in && std::getline(in, text) && !text.empty()) return text;
  return "kube-system";
}

Result<std::unique_ptr<kube::Client>> connect_client(const std::string& kubeconfig) {
  auto config = kube::resolve_config(kubeconfig, kube::current_environment());
  if (!config) return config.error();
  return kube::Client::from_config(*config);
}


struct Prepared {
  CycleConfig config;
  std::unique_ptr<kube::Client> client;
};

Result<Prepared> prepare_run(const RunFlags& f) {
  Prepared p;
  auto policy = read_policy(f.policy, f.prometheus);
  if (!policy) return policy.error();
  p.config.policy = std::move(*policy);
  auto reads = load_reads_of(p.config.policy, f.load);   // GangDefragment alone reads no load
  if (!reads) return reads.error();
  p.config.loads = std::move(*reads);
  auto age = duration_flag("--max-metric-age", f.max_metric_age);
  if (!age) return age.error();
  auto cool = duration_flag("--cooldown", f.cooldown);
  if (!cool) return cool.error();
  p.config.max_metric_age = *age;
  p.config.cooldown = *cool;
  p.config.dry_run = f.dry_run;
  if (f.output != "json" && f.output != "table") return make_error("--output '" + f.output + "': use json or table");
  auto client = connect_client(f.kubeconfig);
  if (!client) return client.error();
  p.client = std::move(*client);
  return p;
}

Result<ObjectRef> state_configmap(const RunFlags& f) {
  return parse_object_ref(f.state_configmap.empty() ? own_namespace() + "/weft-descheduler-state" : f.state_configmap,
                          "--state-configmap");
}

int run_once(const RunFlags& f, Prepared& p) {
  auto ref = state_configmap(f);
  if (!ref) return fail(ref.message());
  StateStore store(*p.client, *ref);
  auto state = store.load();
  if (!state) return fail(state.message());
  DeschedulerMetrics metrics;
  p.config.rooms = store.journal();
  Cycle cycle(*p.client, p.config, metrics);
  auto plan = cycle.run(*state);
  for (std::istringstream lines(metrics.text()); !lines.eof();) {
    std::string line;
    std::getline(lines, line);
    if (!line.empty() && line[0] != '#') spdlog::info("metric {}", line);
  }
  if (!plan) return fail(plan.message());
  if (!f.dry_run)
    if (auto s = store.save(*state); !s) return fail(s.message());
  if (auto s = print_plan(*plan, f.output); !s) return fail(s.message());
  spdlog::info("{} API requests", p.client->request_count());
  return 0;
}

int run_interval(const RunFlags& f, Prepared& p) {
  auto interval = duration_flag("--interval", f.interval);
  if (!interval) return fail(interval.message());
  if (interval->count() < 1) return fail("--interval must be at least 1s");
  StopSignal stop;   // common/signals.h; before any thread starts, so every thread has the signals blocked
  DeschedulerMetrics metrics;
  DaemonHttpServer http({.metrics = [&metrics] { return metrics.text(); }});
  if (!f.metrics_listen.empty()) {
    auto address = parse_listen_address(f.metrics_listen, "--metrics-listen");
    auto port = address ? http.start(*address, "--metrics-listen") : Result<int>(address.error());
    if (!port) return fail(port.message());
    std::printf("metrics on http://%s:%d/metrics\n", address->host.c_str(), *port);
    std::fflush(stdout);
  }
  DeschedulerState state;   // in memory: the same process plans every cycle
  // Rooms in progress outlive the process: a restarted one finishes them (defragment_step.h).
  auto rooms_ref = state_configmap(f);
  if (!rooms_ref) return fail(rooms_ref.message());
  StateStore rooms_store(*p.client, *rooms_ref);
  p.config.rooms = rooms_store.journal();
  // metrics-server's node usage averaged every 5 s between cycles, as upstream's metrics
  // collector, on a client of its own.
  std::unique_ptr<kube::Client> collector_client;
  if (reads_metrics_server(p.config.loads)) {
    auto client = connect_client(f.kubeconfig);
    if (!client) return fail(client.message());
    collector_client = std::move(*client);
  }
  auto loop = [&](const std::function<bool()>& still_leader) {
    // As upstream, the collector reads only while this replica runs cycles (leads).
    CycleConfig config = p.config;
    std::unique_ptr<NodeMetricsCollector> node_usage;
    if (collector_client) {
      node_usage = std::make_unique<NodeMetricsCollector>([c = collector_client.get()] { return list_node_metrics(*c); });
      node_usage->start();
      config.node_usage = node_usage.get();
    }
    Cycle cycle(*p.client, std::move(config), metrics);
    while (!stop.stopped() && still_leader()) {
      auto plan = cycle.run(state);
      if (!plan) spdlog::error("cycle failed: {}", plan.message());
      else if (f.dry_run) (void)print_plan(*plan, f.output);
      if (!stop.sleep_for(std::chrono::duration_cast<std::chrono::nanoseconds>(*interval))) break;
    }
  };
  if (!f.leader_elect) {
    loop([] { return true; });
    return 0;
  }
  auto lease = parse_object_ref(f.lease.empty() ? own_namespace() + "/weft-descheduler" : f.lease, "--lease");
  if (!lease) return fail(lease.message());
  char host[256] = "weft-descheduler";
  gethostname(host, sizeof host);
  kube::LeaderElectionConfig le;
  le.lease_namespace = lease->ns;
  le.lease_name = lease->name;
  le.identity = std::string(host) + "_" + std::to_string(getpid());
  kube::LeaderElector elector(*p.client, le);
  std::thread worker;
  std::atomic<bool> leading{false};
  std::thread stopper([&] {
    while (stop.sleep_for(std::chrono::milliseconds(200))) {
    }
    elector.stop();
  });
  elector.run(
      [&] {
        spdlog::info("leader election: {} holds lease {}; starting cycles", le.identity, lease->text());
        leading = true;
        worker = std::thread([&] { loop([&] { return leading.load(); }); });
      },
      [&] {
        spdlog::info("leader election: lease {} lost or released; cycles stop", lease->text());
        leading = false;
        stop.stop();
        if (worker.joinable()) worker.join();
      });
  stop.stop();
  stopper.join();
  if (worker.joinable()) worker.join();
  return 0;
}

// A plan's phases, logged at debug level (--log-level debug): where its time goes.
class PhaseClock {
 public:
  void lap(const char* phase) {
    const auto now = std::chrono::steady_clock::now();
    text_ += fmt::format("{}{} {:.3f}s", text_.empty() ? "" : ", ", phase,
                         std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }
  const std::string& text() const { return text_; }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::string text_;
};

// What a plan decides on. Held through a pointer so that a finished plan can leave it to
// the process' exit (plan_command).
struct PlanModel {
  std::optional<defragment::World> world;   // GangDefragment: pending pods, Queues and HyperNodes too
  std::optional<Cluster> listed;
  std::vector<LoadReport> loads;
  const Cluster& cluster() const { return world ? world->cluster : *listed; }
};

Result<std::unique_ptr<PlanModel>> read_model(const std::string& scenario, bool gang_defragment, TimePoint now) {
  auto model = std::make_unique<PlanModel>();
  if (gang_defragment) {
    auto w = world_from_file(scenario, now);
    if (!w) return w.error();
    model->world = std::move(*w);
  } else {
    auto c = cluster_from_file(scenario);
    if (!c) return c.error();
    model->listed = std::move(*c);
  }
  return model;
}

}  // namespace

int plan_command(const PlanFlags& f) {
  PhaseClock phases;
  auto policy = read_policy(f.policy, f.prometheus);
  if (!policy) return fail(policy.message());
  if (f.output != "json" && f.output != "table") return fail("--output '" + f.output + "': use json or table");
  PlanOptions options;
  options.now = std::chrono::system_clock::now();
  if (!f.now.empty()) {
    auto t = parse_rfc3339(f.now);
    if (!t) return fail("--now: " + t.message());
    options.now = *t;
  }
  auto age = duration_flag("--max-metric-age", f.max_metric_age);
  if (!age) return fail(age.message());
  auto cool = duration_flag("--cooldown", f.cooldown);
  if (!cool) return fail(cool.message());
  options.max_metric_age = *age;
  options.cooldown = *cool;
  // The loads' sources are settled before the scenario is read; their errors still come
  // after the scenario's, as they did when one was read after the other.
  Result<std::vector<LoadRead>> reads = std::vector<LoadRead>{};
  for (const PolicyProfile& profile : policy->profiles) {
    const bool kubernetes_metrics = profile.load_aware.metrics.type == MetricsType::KubernetesMetrics;
    if (profile.load_aware_enabled && f.load.empty() && !profile.load_aware.requests_only && !kubernetes_metrics)
      reads = make_error("--load is required (prometheus=URL, file=F or annotations) for a LoadAware policy");
  }
  if (reads) reads = load_reads_of(*policy, f.load);
  if (reads)
    for (LoadRead& read : *reads)   // metrics.k8s.io: the scenario's NodeMetrics and PodMetrics
      if (read.spec.kind == LoadSpec::Kind::KubernetesMetrics) read.spec.value = f.scenario;
  const Cluster no_cluster;
  const std::vector<LoadRead> none;
  LoadReader loads(
      reads ? *reads : none,
      [&](const LoadRead& read, const Cluster& c) {
        const auto start = std::chrono::steady_clock::now();
        auto fetched = fetch_load(read.spec, read.metrics, c, options.now);
        spdlog::debug("plan: load {} read in {:.3f}s", read.spec.describe(),
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        return fetched;
      },
      no_cluster);
  auto model = read_model(f.scenario, policy->gang_profile() != nullptr, options.now);
  phases.lap("scenario");
  if (!model) return fail(model.message());
  const Cluster& cluster = (*model)->cluster();
  const defragment::World* world = (*model)->world ? &*(*model)->world : nullptr;
  if (!reads) return fail(reads.message());
  auto profiles = profiles_from_policy(*policy, {options, world});
  if (!profiles) return fail(profiles.message());
  // The loads are awaited only when a plugin first reads one (the Balance plugins at the
  // latest): a load file still being read finishes beside the Deschedule plugins.
  auto later_loads = [&]() -> Result<std::vector<const LoadReport*>> {
    auto fetched = loads.finish(cluster);
    if (!fetched) return fetched.error();
    for (const LoadReport& load : *fetched)
      if (!load.source_error.empty())
        spdlog::error("load source {} is down: {}; every node it measures is unknown, its profiles evict nothing",
                      load.source_name, load.source_error);
    (*model)->loads = std::move(*fetched);
    return loads_by_profile(*reads, (*model)->loads, policy->profiles.size());
  };
  const DeschedulerState no_state;
  const LoadReport no_load;
  framework::CycleInputs inputs{cluster, no_load, no_state, options.now, options.cooldown};
  inputs.later_profile_loads = later_loads;
  auto plan = framework::run_profiles(*profiles, *policy, inputs);
  if (!plan) return fail(plan.message());
  phases.lap("plan");
  for (const auto& note : plan->notes) spdlog::info("plan: {}", note);
  if (auto s = print_plan(*plan, f.output); !s) return fail(s.message());
  phases.lap("output");
  spdlog::debug("plan phases: {}", phases.text());
  // The process exits next: freeing 100,000 pods' records one by one would only delay the
  // exit (a tenth of a second at that size), so the model is deliberately left to the OS.
  // A sanitizer build (scripts/test --sanitize) checks for leaks at exit: there it is freed.
#if !defined(__SANITIZE_ADDRESS__)
  (void)model->release();
#endif
  return 0;
}

int run_command(const RunFlags& f) {
  auto prepared = prepare_run(f);
  if (!prepared) return fail(prepared.message());
  return f.once ? run_once(f, *prepared) : run_interval(f, *prepared);
}

}  // namespace weft::descheduler
