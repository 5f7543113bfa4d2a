#include "scheduler/global/app/global_run.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <memory>

#include <spdlog/spdlog.h>

#include "common/log.h"
#include "common/signals.h"
#include "kube/objects.h"
#include "scheduler/global/app/global_apply.h"
#include "scheduler/global/app/global_watch.h"
#include "scheduler/global/core/dispatch.h"

namespace weft::scheduler::global {
namespace {

kube::ClientOptions client_options() {
  kube::ClientOptions o;
  o.timeout = std::chrono::milliseconds(15000);
  return o;
}

struct Cycle {
  int bindings = 0, skipped = 0;
  GlobalDecisions decisions;
  ApplySummary applied;
  double seconds = 0;
};

Cycle run_cycle(GlobalWatch& watch, DecisionWriter& writer, std::map<std::string, std::string>& warned) {
  const auto started = std::chrono::steady_clock::now();
  Cycle c;
  auto objects = watch.objects();
  writer.overlay(objects);
  GlobalBuilder builder;
  std::map<std::string, nlohmann::json> bindings;
  auto warn_once = [&](const std::string& key, const std::string& version, const std::string& message) {
    if (warned[key] == version + message) return;
    warned[key] = version + message;
    spdlog::warn("{}", message);
  };
  for (const auto& o : objects) {
    if (auto st = builder.add(o.object, o.where); !st) {
      warn_once(o.where, kube::metadata_string(o.object, "resourceVersion"), st.message() + " (left out)");
      ++c.skipped;
      continue;
    }
    if (kube::kind_of(o.object) == "ResourceBinding") bindings[kube::key_of(o.object)] = o.object;
  }
  std::vector<std::string> skipped;
  auto state = builder.build(&skipped);
  for (const auto& s : skipped) warn_once(s, "", s + " (left out)");
  c.skipped += static_cast<int>(skipped.size());
  if (!state) {
    warn_once("cycle", "", "cycle: " + state.message());
    return c;
  }
  c.bindings = static_cast<int>(state->bindings.size());
  c.decisions = dispatch(*state);
  c.applied = writer.apply(c.decisions, bindings);
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return c;
}

}  // namespace

int run_global(const GlobalRunOptions& o) {
  if (auto s = setup_logging("weft-scheduler", o.log_level); !s) {
    spdlog::error("global run: {}", s.message());
    return 2;
  }
  auto control = kube::connect(o.kubeconfig, client_options());
  if (!control) {
    spdlog::error("global run: --kubeconfig: {}", control.message());
    return 2;
  }
  std::vector<std::unique_ptr<kube::Client>> owned;
  std::map<std::string, kube::Client*> members;
  for (const auto& m : o.members) {
    auto eq = m.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == m.size()) {
      spdlog::error("global run: --member '{}': not NAME=KUBECONFIG", m);
      return 2;
    }
    auto client = kube::connect(m.substr(eq + 1), client_options());
    if (!client) {
      spdlog::error("global run: --member {}: {}", m.substr(0, eq), client.message());
      return 2;
    }
    members[m.substr(0, eq)] = client->get();
    owned.push_back(std::move(*client));
  }
  for (const auto& [name, client] : members)
    if (auto probe = client->list_page(kube::resources::nodes(), "", kube::ListOptions{.limit = 1}); !probe) {
      spdlog::error("global run: member {} ({}): {}", name, client->address(), probe.message());
      return 1;
    }
  if (auto probe = (*control)->list_page(refs::clusters(), "", kube::ListOptions{.limit = 1}); !probe) {
    spdlog::error("global run: control plane {}: {}", (*control)->address(), probe.message());
    return 1;
  }
  StopSignal stop_signal;   // common/signals.h; before the watch's threads start
  GlobalWatch watch(**control, members);
  watch.start();
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  DecisionWriter writer(**control, host);
  std::map<std::string, std::string> warned;
  int cycles = 0;
  const auto period = std::chrono::milliseconds(static_cast<int64_t>(o.period_s * 1000));
  while (!stop_signal.stopped()) {
    if (!watch.synced()) {
      stop_signal.sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    const auto started = std::chrono::steady_clock::now();
    Cycle c = run_cycle(watch, writer, warned);
    const auto& st = c.decisions.stats;
    spdlog::log(c.applied.dispatched || c.applied.preempted || c.applied.errors ? spdlog::level::info : spdlog::level::debug,
                "cycle {}: {} bindings ({} objects left out), dispatched {}, taken back {}, suspended {}, "
                "core sessions {}, API errors {}, {:.3f}s",
                cycles + 1, c.bindings, c.skipped, c.applied.dispatched, c.applied.preempted, st.suspended, st.sessions,
                c.applied.errors, c.seconds);
    if (o.cycles > 0 && ++cycles >= o.cycles) break;
    if (o.cycles == 0) ++cycles;
    auto left = period - std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    stop_signal.sleep_for(std::max(left, std::chrono::milliseconds(1)));
  }
  if (int sig = stop_signal.signal(); sig > 0) spdlog::info("{}: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  watch.stop();
  spdlog::info("stopped after {} cycle(s)", cycles);
  return 0;
}

void add_global_run_command(CLI::App& global, int& exit_code) {
  auto o = std::make_shared<GlobalRunOptions>();
  CLI::App* run = global.add_subcommand("run", "Dispatch suspended ResourceBindings of a Karmada control plane");
  run->add_option("--kubeconfig", o->kubeconfig, "the control plane's kubeconfig (default: $KUBECONFIG, ~/.kube/config)");
  run->add_option("--member", o->members, "a member cluster: NAME=KUBECONFIG (NAME as its Cluster object)")->required();
  run->add_option("--cycles", o->cycles, "exit after this many cycles (0: run until stopped)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  run->add_option("--period", o->period_s, "seconds between the starts of two cycles")
      ->check(CLI::PositiveNumber)->capture_default_str();
  run->add_option("--log-level", o->log_level, "trace|debug|info|warn|error")->capture_default_str();
  run->callback([o, &exit_code] { exit_code = run_global(*o); });
}

}  // namespace weft::scheduler::global
