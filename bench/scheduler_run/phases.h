// The steps of bench/scheduler_run, each against its own kube-lite so one step's objects
// do not slow the next: kube-lite alone (creates and bindings from a plain client), the
// scheduler with one binding at a time, the scheduler with bindings in flight together,
// gangs, and the descheduler's run --once.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "bench/scheduler_run/cluster.h"
#include "kube/client/client.h"
#include "tests/support/process.h"

namespace weft::bench {

struct Binaries {
  std::string kube_lite, scheduler, descheduler;
  std::string scheduler_period = "1s";   // weft-scheduler run --period (its default, as a user runs it)
};

// utime+stime of a process in seconds (/proc/PID/stat fields 14 and 15); getpid() for this one.
double cpu_seconds(pid_t pid);

// Runs fn(i) for i in [0, n) on `threads` threads; false when any call failed.
bool parallel(int n, int threads, const std::function<bool(int)>& fn, std::string* error);

// Counts the pods of one label selector in one namespace that a watch shows bound, and
// when the last of them was seen.
class BindingWatch {
 public:
  BindingWatch(kube::Client& client, const std::string& label, int expect, const std::string& ns = "bench");
  ~BindingWatch();
  size_t bound();
  std::chrono::steady_clock::time_point last();

 private:
  int expect_;
  kube::CancelToken cancel_;
  std::mutex mu_;
  std::set<std::string> seen_;
  std::chrono::steady_clock::time_point last_{};
  std::thread thread_;
};

// A kube-lite started from the state file, with a client on it.
class Api {
 public:
  Api(const Binaries& bin, const std::string& state, const std::string& dir);
  const std::string& error() const { return error_; }
  const std::string& kubeconfig() const { return kubeconfig_; }
  kube::Client& client() { return *client_; }
  pid_t pid() const { return process_->pid(); }

 private:
  std::unique_ptr<testing::Process> process_;
  std::string kubeconfig_;
  std::unique_ptr<kube::Client> client_;
  std::string error_;
};

struct Rate {
  int objects = 0;
  double seconds = 0;
  double per_second() const { return seconds > 0 ? objects / seconds : 0; }
};

struct SchedulerRun {
  Rate bound;                 // first create -> last binding seen
  Rate created;               // the creates alone
  double rss_mib = 0;         // the scheduler's peak RSS (VmHWM)
  long pods_in_cache = 0;     // pods in its last cycle's snapshot
  std::string error;
};

// Creates `pods` single-pod jobs (gang_size 0) or pods/gang_size gangs, with a scheduler
// running at --bind-concurrency `concurrency`, and waits for every pod to be bound.
SchedulerRun run_scheduler(const Binaries& bin, const ClusterShape& shape, const std::string& state,
                           const std::string& dir, int pods, int gang_size, int concurrency, int client_threads);

struct KubeLiteAlone {
  Rate created, bound;
  double cpu_seconds = 0;     // kube-lite's own CPU time for both
  std::string error;
};
// kube-lite with no scheduler: `pods` creates, then as many bindings, from `threads` threads.
KubeLiteAlone measure_kube_lite(const Binaries& bin, const ClusterShape& shape, const std::string& state,
                                const std::string& dir, int pods, int threads);

struct DeschedulerRun {
  double wall_s = 0;          // weft-descheduler run --once --dry-run, process start to exit
  double list_s = 0;          // the same lists (nodes, pods) from a plain client, parse included
  double serving_cpu_s = 0;   // kube-lite's CPU time during the descheduler's run: its serving part
  int exit_code = 0;
  std::string error;
};
DeschedulerRun measure_descheduler(const Binaries& bin, const ClusterShape& shape, const std::string& state,
                                   const std::string& dir, int extra_pods);

}  // namespace weft::bench
