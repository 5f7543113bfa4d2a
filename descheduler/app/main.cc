// weft-descheduler: load-aware rebalancing. `run` against the API (once or on an
// interval), `plan` offline on a scenario file.
#include <CLI/CLI.hpp>
#if WEFT_MIMALLOC
#include <mimalloc.h>
#endif

#include "common/log.h"
#include "descheduler/app/commands.h"

namespace {

void add_prometheus_auth(CLI::App* app, weft::descheduler::PrometheusAuthFlags& f) {
  app->add_option("--prometheus-bearer-token-file", f.bearer_token_file,
                  "file holding a bearer token for Prometheus (re-read every cycle)");
  app->add_option("--prometheus-ca-file", f.ca_file, "PEM CA bundle for an https Prometheus");
  app->add_option("--prometheus-username", f.username, "basic auth user for Prometheus");
  app->add_option("--prometheus-password-file", f.password_file, "file holding the basic auth password");
  app->add_flag("--prometheus-insecure-skip-verify", f.insecure_skip_verify,
                "do not verify Prometheus' certificate (tests only)");
}

// One-shot commands build a whole cluster's model (some 150 MiB of small records at
// 100,000 pods) and exit. Memory freed while the model is built (the decode's scratch) is
// kept for what comes next: returned to the OS, it would be zeroed again by the kernel
// when reused. The --interval daemon keeps the allocator's defaults (its freed memory is
// returned page by page). 2 MiB pages are not asked for: on a virtual machine whose host
// takes free memory back (free page reporting reports whole 2 MiB blocks), each fresh one
// costs the host's faults as well as its zeroing: a plan took 2.06 s of CPU on them
// against 1.80 s on 4 KiB pages (docs/benchmarks.md).
void keep_freed_memory() {
#if WEFT_MIMALLOC
  mi_option_disable(mi_option_allow_decommit);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  using namespace weft::descheduler;
  CLI::App app{"weft-descheduler: evicts pods from hot nodes so the scheduler re-places them on cool ones"};
  app.require_subcommand(1);
  app.set_version_flag("--version", WEFT_VERSION);
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace|debug|info|warn|error")->default_val("info");

  RunFlags run;
  auto* r = app.add_subcommand("run", "descheduling cycles against the Kubernetes API");
  r->add_option("--policy", run.policy, "DeschedulerPolicy file (descheduler/v1alpha2)")->required();
  r->add_option("--kubeconfig", run.kubeconfig, "kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  auto* once = r->add_flag("--once", run.once, "one cycle, state in a ConfigMap (CronJob form)");
  r->add_option("--interval", run.interval, "time between cycles (Deployment form)")->default_val("5m")->excludes(once);
  r->add_flag("--dry-run", run.dry_run, "evict nothing; print the plan");
  r->add_option("--load", run.load, "override the policy's metrics: prometheus=URL | annotations");
  r->add_option("--max-metric-age", run.max_metric_age, "older node metrics make the node unknown")->default_val("5m");
  r->add_option("--cooldown", run.cooldown, "a moved workload is not moved again for this long")->default_val("10m");
  r->add_option("--state-configmap", run.state_configmap, "NAMESPACE/NAME of the state ConfigMap (--once: state and rooms in progress; --interval: rooms in progress)");
  r->add_option("--metrics-listen", run.metrics_listen, "host:port for /metrics in --interval mode ('' = off)")
      ->default_val("0.0.0.0:9465");
  r->add_flag("--leader-elect,!--no-leader-elect", run.leader_elect, "hold a Lease while running (--interval)")
      ->default_val(true);
  r->add_option("--lease", run.lease, "NAMESPACE/NAME of the leader election Lease");
  r->add_option("--output", run.output, "plan format: json|table")->default_val("json");
  add_prometheus_auth(r, run.prometheus);

  PlanFlags plan;
  auto* p = app.add_subcommand("plan", "plan one cycle offline on a scenario file");
  p->add_option("SCENARIO", plan.scenario, "multi-document YAML or JSON List of Nodes, Pods, PodGroups")->required();
  p->add_option("--policy", plan.policy, "DeschedulerPolicy file")->required();
  p->add_option("--load", plan.load, "prometheus=URL | file=F | annotations (LowNodeUtilization or GangDefragment alone: not needed)");
  p->add_option("--output", plan.output, "json|table")->default_val("json");
  p->add_option("--max-metric-age", plan.max_metric_age, "older node metrics make the node unknown")->default_val("5m");
  p->add_option("--cooldown", plan.cooldown, "per-workload cooldown")->default_val("10m");
  p->add_option("--now", plan.now, "plan as of this RFC 3339 time (default: now)");
  add_prometheus_auth(p, plan.prometheus);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (auto s = weft::setup_logging("weft-descheduler", log_level); !s) {
    std::fprintf(stderr, "weft-descheduler: %s\n", s.message().c_str());
    return 1;
  }
  if (!*r || run.once) keep_freed_memory();
  if (*r) return run_command(run);
  return plan_command(plan);
}
