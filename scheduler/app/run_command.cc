#include "scheduler/app/run_command.h"

#include <malloc.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "common/daemon_http.h"
#include "common/log.h"
#include "common/signals.h"
#include "kube/client/client.h"
#include "kube/client/config.h"
#include "kube/client/leader_election.h"
#include "scheduler/app/run_api.h"
#include "scheduler/app/cycle_timing.h"
#include "scheduler/app/run_apply.h"
#include "scheduler/app/run_cache.h"
#include "scheduler/app/run_loop.h"
#include "scheduler/app/run_metrics.h"
#include "scheduler/core/config.h"

namespace weft::scheduler {

using std::chrono::milliseconds;

void app::add_run_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RunOptions>();
  RunOptions& o = *options;
  auto* run = app.add_subcommand("run", "Schedule pods against the API server (leader-elected)");
  run->add_option("--kubeconfig", o.kubeconfig, "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  run->add_option("--config", o.config, "scheduler configuration in Volcano's format (default: built-in)");
  run->add_option("--scheduler-name", o.scheduler_name, "schedule pods whose spec.schedulerName is this")
      ->capture_default_str();
  run->add_option("--cycles", o.cycles, "exit after this many scheduling cycles (0: run until stopped)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  run->add_option("--period", o.period, "time between the starts of two cycles")->capture_default_str();
  run->add_option("--early-cycle-after", o.early_cycle_after,
                  "start a cycle before --period is up once new pending pods have stopped arriving for this long "
                  "(a gang's last member is placed without waiting out the period), and put a period's cycle off "
                  "while they still arrive, by at most one more period (0: every --period only)")
      ->capture_default_str();
  run->add_flag("--leader-elect", o.leader_elect, "only the holder of the Lease schedules");
  run->add_option("--lease-namespace", o.lease_namespace, "namespace of the Lease (default: $POD_NAMESPACE or kube-system)");
  run->add_option("--lease-name", o.lease_name, "name of the Lease")->capture_default_str();
  run->add_option("--identity", o.identity, "holder identity (default: $POD_NAME or hostname_pid)");
  run->add_option("--leader-elect-lease-duration", o.lease_duration, "how long a standby waits before taking over")
      ->capture_default_str();
  run->add_option("--leader-elect-renew-deadline", o.renew_deadline, "a leader that cannot renew for this long stops")
      ->capture_default_str();
  run->add_option("--leader-elect-retry-period", o.retry_period, "how often to try to acquire or renew")
      ->capture_default_str();
  run->add_option("--kube-api-qps", o.kube_api_qps, "client-side request rate limit")->capture_default_str();
  run->add_option("--kube-api-burst", o.kube_api_burst, "client-side burst")->capture_default_str();
  run->add_option("--bind-concurrency", o.bind_concurrency,
                  "bindings, evictions and status writes in flight together (1: one at a time)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  run->add_option("--event-qps", o.event_qps, "request rate limit of the separate Event client")->capture_default_str();
  run->add_option("--event-burst", o.event_burst, "burst of the Event client")->capture_default_str();
  run->add_option("--event-queue", o.event_queue, "Events waiting to be posted; beyond this they are dropped")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  run->add_option("--log-level", o.log_level, "trace|debug|info|warn|error")->capture_default_str();
  run->add_option("--metrics-listen", o.metrics_listen, "host:port for /metrics, /healthz, /readyz ('' = off)");
  run->add_option("--gang-repair-timeout", o.gang_repair_timeout,
                  "a gang left below minMember with running members (after a crash, a lost node or member) is "
                  "completed in its domain first, else its members are evicted this long after its newest binding "
                  "(0: never)")
      ->capture_default_str();
  run->callback([options, &exit_code] { exit_code = run_scheduler(*options); });
}

namespace {

// "1s", "500ms", "2m", "1m30s": the Go durations the flags take.
Result<milliseconds> parse_period(const std::string& flag, const std::string& text) {
  double total_ms = 0;
  size_t i = 0;
  auto bad = [&] { return make_error(flag + " '" + text + "': not a duration (like 500ms, 1s, 2m)"); };
  if (text.empty()) return bad();
  while (i < text.size()) {
    size_t used = 0;
    double n = 0;
    try {
      n = std::stod(text.substr(i), &used);
    } catch (...) {
      return bad();
    }
    if (n < 0) return bad();
    i += used;
    std::string unit;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) unit += text[i++];
    if (unit == "ms") total_ms += n;
    else if (unit == "s") total_ms += n * 1000;
    else if (unit == "m") total_ms += n * 60000;
    else if (unit == "h") total_ms += n * 3600000;
    else return bad();
  }
  if (total_ms < 1) return make_error(flag + " '" + text + "': must be at least 1ms");
  return milliseconds(static_cast<int64_t>(total_ms));
}

Result<Config> load_config(const std::string& path) {
  if (path.empty()) return Config::defaults();
  std::ifstream in(path);
  if (!in) return make_error("--config " + path + ": cannot read it");
  std::stringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path);
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string default_identity() {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return env_or("POD_NAME", std::string(host) + "_" + std::to_string(getpid()));
}

struct Timings {
  milliseconds period, lease_duration, renew_deadline, retry_period, gang_repair_timeout{0}, early_cycle_after{0};
};

Result<Timings> parse_timings(const RunOptions& o) {
  Timings t{};
  // The last field: "0" turns the feature off (any other value parses as a duration).
  const std::tuple<const char*, const std::string*, milliseconds*, bool> all[] = {
      {"--period", &o.period, &t.period, false},
      {"--leader-elect-lease-duration", &o.lease_duration, &t.lease_duration, false},
      {"--leader-elect-renew-deadline", &o.renew_deadline, &t.renew_deadline, false},
      {"--leader-elect-retry-period", &o.retry_period, &t.retry_period, false},
      {"--early-cycle-after", &o.early_cycle_after, &t.early_cycle_after, true},
      {"--gang-repair-timeout", &o.gang_repair_timeout, &t.gang_repair_timeout, true}};
  for (const auto& [flag, text, into, zero_is_off] : all) {
    if (zero_is_off && *text == "0") continue;
    auto d = parse_period(flag, *text);
    if (!d) return d.error();
    *into = *d;
  }
  if (t.renew_deadline >= t.lease_duration) {
    return make_error("--leader-elect-renew-deadline must be shorter than --leader-elect-lease-duration");
  }
  return t;
}

// Sleeps until `due` holds (cycle_timing.h; checked every few milliseconds: pods arrive
// from the informers' threads, which know nothing of this loop).
void wait_for_next_cycle(StopSignal& stop, const std::function<bool()>& due) {
  constexpr milliseconds kPoll(10);
  while (!stop.stopped() && !due()) stop.sleep_for(kPoll);
}

void log_cycle(int n, const CycleSummary& s) {
  const bool busy = s.bound || s.bind_failed || s.evicted || s.status_written || s.errors || s.rolled_back;
  auto level = busy ? spdlog::level::info : spdlog::level::debug;
  spdlog::log(level,
              "cycle {}: {} pods ({} pending), bound {}, bind failed {}, rolled back {}, evicted {}, "
              "status writes {}, unschedulable {}, events {} ({} not queued), API errors {}, {:.3f}s "
              "(snapshot {:.3f}s, decide {:.3f}s, apply {:.3f}s)",
              n, s.pods, s.pending, s.bound, s.bind_failed, s.rolled_back, s.evicted, s.status_written,
              s.unschedulable, s.events, s.events_failed, s.errors, s.seconds, s.snapshot_seconds, s.decide_seconds,
              s.apply_seconds);
}

}  // namespace

int run_scheduler(const RunOptions& o) {
  // Binding threads each get a malloc arena of their own by default; their freed memory
  // stays in them and the process grows by arenas, not by what it holds.
  mallopt(M_ARENA_MAX, 2);
  if (auto s = setup_logging("weft-scheduler", o.log_level); !s) {
    spdlog::error("run: {}", s.message());
    return 2;
  }
  auto timings = parse_timings(o);
  if (!timings) {
    spdlog::error("run: {}", timings.message());
    return 2;
  }
  auto config = load_config(o.config);
  if (!config) {
    spdlog::error("run: {}", config.message());
    return 2;
  }
  auto api_config = kube::resolve_config(o.kubeconfig, kube::current_environment());
  if (!api_config) {
    spdlog::error("run: API config: {}", api_config.message());
    return 2;
  }
  kube::ClientOptions client_options;
  client_options.qps = o.kube_api_qps;
  client_options.burst = o.kube_api_burst;
  client_options.timeout = milliseconds(15000);
  auto client = kube::Client::from_config(*api_config, client_options);
  kube::ClientOptions best_effort_options = client_options;
  best_effort_options.max_attempts = 3;
  best_effort_options.timeout = milliseconds(5000);
  best_effort_options.backoff.max = milliseconds(1000);
  auto best_effort = kube::Client::from_config(*api_config, best_effort_options);
  kube::ClientOptions event_options = best_effort_options;
  event_options.qps = o.event_qps;
  event_options.burst = o.event_burst;
  auto event_client = kube::Client::from_config(*api_config, event_options);
  for (const auto* c : {&client, &best_effort, &event_client}) {
    if (!*c) {
      spdlog::error("run: {}: {}", api_config->source, c->message());
      return 2;
    }
  }
  kube::Client& api = **client;
  if (auto probe = api.list_page(kube::resources::nodes(), "", kube::ListOptions{.limit = 1}); !probe) {
    spdlog::error("run: API server {} ({}): {}", api.address(), api_config->source, probe.message());
    return 1;
  }
  spdlog::info("scheduling pods with schedulerName {} via {} ({})", o.scheduler_name, api.address(),
               api_config->source);

  StopSignal stop;   // common/signals.h: SIGTERM/SIGINT, SIGPIPE ignored
  RunMetrics metrics(WEFT_VERSION);
  // /healthz fails when the leader finished no cycle for 10 periods (at least 60 s).
  const milliseconds stall = std::max(milliseconds(60000), timings->period * 10);
  DaemonHttpServer http({.metrics = [&metrics] { return metrics.text(); },
                         .healthy = [&metrics, stall] {
                           return ProbeResult{metrics.healthy(stall), "no scheduling cycle finished recently"};
                         },
                         .ready = [&metrics] { return ProbeResult{metrics.ready(), "caches not synced yet"}; }});
  if (!o.metrics_listen.empty()) {
    auto address = parse_listen_address(o.metrics_listen, "--metrics-listen");
    auto port = address ? http.start(*address, "--metrics-listen") : Result<int>(address.error());
    if (!port) {
      spdlog::error("run: {}", port.message());
      return 2;
    }
    spdlog::info("metrics on http://{}:{}/metrics", address->host, *port);
  }
  ClusterCache cache(api);
  (void)cache.start();

  std::atomic<bool> leading{!o.leader_elect};
  std::atomic<bool> lost{false};
  std::unique_ptr<kube::LeaderElector> elector;
  std::thread election;
  if (o.leader_elect) {
    kube::LeaderElectionConfig lec;
    lec.lease_namespace = o.lease_namespace.empty() ? env_or("POD_NAMESPACE", "kube-system") : o.lease_namespace;
    lec.lease_name = o.lease_name;
    lec.identity = o.identity.empty() ? default_identity() : o.identity;
    lec.lease_duration = timings->lease_duration;
    lec.renew_deadline = timings->renew_deadline;
    lec.retry_period = timings->retry_period;
    spdlog::info("leader election on Lease {}/{} as {}", lec.lease_namespace, lec.lease_name, lec.identity);
    elector = std::make_unique<kube::LeaderElector>(api, lec);
    election = std::thread([&] {
      elector->run([&] { leading = true; stop.wake(); },
                   [&] {
                     if (leading.exchange(false)) lost = true;
                     stop.wake();
                   });
    });
  }

  kube::EventRecorder event_poster(**event_client, "weft-scheduler",
                                   o.identity.empty() ? default_identity() : o.identity);
  kube::AsyncEventRecorder events(event_poster, o.event_queue);
  KubeSchedulerApi writer(api, **best_effort, events);
  ApplyOptions apply_options;
  apply_options.concurrency = o.bind_concurrency;
  apply_options.may_write = [&] { return leading.load() && (!elector || elector->is_leader()); };
  apply_options.on_evicted = [&cache](const std::string& pod, const std::string& uid) { cache.assume_evicted(pod, uid); };
  DecisionApplier applier(writer, apply_options);
  SessionOptions session;
  session.scheduler_names = {o.scheduler_name};
  session.gang_repair_timeout = timings->gang_repair_timeout;
  SchedulerLoop loop(cache, applier, *config, session, /*pipelined=*/o.bind_concurrency > 1);
  loop.set_metrics(&metrics);

  const CycleTiming cycle_timing{timings->period, timings->early_cycle_after};
  int exit_code = 0;
  int cycles = 0, logged = 0;   // cycles decided; cycles whose decisions were applied
  bool announced_sync = false;
  while (!stop.stopped()) {
    metrics.set_leader(leading.load());
    metrics.set_synced(cache.synced());
    if (lost) {
      spdlog::error("run: leadership of the Lease lost; exiting so a fresh start rebuilds the caches");
      exit_code = 1;
      break;
    }
    if (!leading || !cache.synced()) {
      stop.sleep_for(milliseconds(100), [&] { return lost.load(); });
      continue;
    }
    if (!announced_sync) {
      spdlog::info("caches synced; scheduling every {} ms", timings->period.count());
      announced_sync = true;
    }
    const auto started = std::chrono::steady_clock::now();
    const Arrivals at_start{cache.arrivals(), cache.last_arrival()};
    ++cycles;
    if (auto done = loop.run_cycle(); done.complete) log_cycle(++logged, done);
    if (o.cycles > 0 && cycles >= o.cycles) break;
    wait_for_next_cycle(stop, [&] {
      return lost || cycle_due(cycle_timing, started, at_start, std::chrono::steady_clock::now(),
                               Arrivals{cache.arrivals(), cache.last_arrival()});
    });
  }
  if (stop.signal()) spdlog::info("{}: stopping", stop.signal() == SIGTERM ? "SIGTERM" : "SIGINT");
  if (auto done = loop.finish(); done.complete) log_cycle(++logged, done);
  if (elector) {
    elector->stop();
    election.join();
  }
  cache.stop();
  events.close(events.drain_timeout);
  if (auto n = events.counts(); n.dropped || n.failed)
    spdlog::warn("events: {} posted, {} failed, {} dropped (queue full)", n.posted, n.failed, n.dropped);
  spdlog::info("stopped after {} cycle(s)", cycles);
  return exit_code;
}

}  // namespace weft::scheduler
