// The two subcommands of weft-descheduler, flags already parsed. Each returns the
// process exit code and reports errors as one line on stderr.
#pragma once

#include <string>

namespace weft::descheduler {

// Prometheus client credentials; each set flag overrides LoadAware.metrics.auth.
struct PrometheusAuthFlags {
  std::string bearer_token_file, ca_file, username, password_file;
  bool insecure_skip_verify = false;
};

struct PlanFlags {
  std::string scenario;
  std::string policy;
  std::string load;            // prometheus=URL | file=F | annotations
  std::string output = "json";
  std::string max_metric_age = "5m";
  std::string cooldown = "10m";
  std::string now;             // RFC 3339; "" = the clock
  PrometheusAuthFlags prometheus;
};

struct RunFlags {
  std::string policy;
  std::string kubeconfig;
  bool once = false;
  std::string interval = "5m";
  bool dry_run = false;
  std::string load;            // overrides the policy's metrics source
  std::string max_metric_age = "5m";
  std::string cooldown = "10m";
  std::string state_configmap;       // ns/name; "" = <namespace>/weft-descheduler-state
  std::string metrics_listen = "0.0.0.0:9465";
  bool leader_elect = true;
  std::string lease;                 // ns/name; "" = <namespace>/weft-descheduler
  std::string output = "json";
  PrometheusAuthFlags prometheus;
};

int plan_command(const PlanFlags& flags);
int run_command(const RunFlags& flags);

}  // namespace weft::descheduler
