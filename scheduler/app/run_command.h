// `weft-scheduler run`: schedules pods with spec.schedulerName == --scheduler-name
// against the API (informers -> core -> pods/binding, evictions, PodGroup status,
// Events), with leader election on a Lease so that only one replica writes.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace weft::scheduler {

struct RunOptions {
  std::string kubeconfig;
  std::string config;                   // Volcano scheduler-conf; "" = Config::defaults()
  std::string scheduler_name = "weft";
  int cycles = 0;                       // 0 = until SIGTERM/SIGINT
  std::string period = "1s";
  std::string early_cycle_after = "50ms";
  bool leader_elect = false;
  std::string lease_namespace;          // "" = $POD_NAMESPACE, else kube-system
  std::string lease_name = "weft-scheduler";
  std::string identity;                 // "" = $POD_NAME, else hostname_pid
  std::string lease_duration = "15s";
  std::string renew_deadline = "10s";
  std::string retry_period = "2s";
  // Bindings, evictions and status writes. Sized for 5,000 GPU nodes, where one cycle
  // may place 40,000 pods (kube-scheduler's 50/100 would take minutes): a backstop
  // against a runaway loop, the API server's own flow control does the rest.
  double kube_api_qps = 10000;
  int kube_api_burst = 20000;
  int bind_concurrency = 16;            // API writes in flight together; 1 = one at a time
  double event_qps = 500;               // Events have a client and budget of their own
  int event_burst = 1000;
  // Events waiting to be posted; more are dropped. client-go's broadcaster hands each Event
  // to a goroutine of its own, which waits for the client's rate limit: a cycle that binds a
  // 4,096-pod gang keeps all its Scheduled Events there, and here.
  size_t event_queue = 10000;
  std::string log_level = "info";
  std::string metrics_listen;           // host:port for /metrics, /healthz, /readyz; "" = off
  // A gang left below minMember with running members is completed in its domain, else
  // taken back this long after its newest binding ("0": never taken back).
  std::string gang_repair_timeout = "60s";
};

// Runs until --cycles are done or SIGTERM/SIGINT; returns the process exit code
// (2 for bad flags, config or kubeconfig; 1 when the API is unreachable or leadership is lost).
int run_scheduler(const RunOptions& options);

namespace app {
// Adds the `run` subcommand and its flags; when it runs, its exit code goes to exit_code.
void add_run_command(CLI::App& app, int& exit_code);
}  // namespace app

}  // namespace weft::scheduler
