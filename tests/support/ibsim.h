// Test support for IB: a simulated fabric (ibsim) with real OpenSM subnet managers,
// and commands run as a host of that fabric under umad2sim.
//
//   auto fabric = IbSim::start(net_file_path);          // ibsim -s, own IBSIM_SOCKNAME
//   fabric->start_sm({.host = "f1-h0000", .priority = 14});
//   fabric->wait_subnet_up(std::chrono::seconds(20));   // the master logged SUBNET UP
//   auto r = fabric->run_as("f1-h0003", {binary("node-agent/weft-agent"), "probe"});
//   fabric->console("Unlink \"f1-h0003\" 1");            // ibsim console commands
// The destructor stops the SMs first (SIGTERM, short grace, SIGKILL), then ibsim.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace weft::testing {

inline constexpr const char* kUmad2simLibrary = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";

// "" when ibsim, opensm and umad2sim are all here, else why not.
std::string need_ibsim();

struct CommandResult {
  int code = -1;            // exit code; -1 on timeout (then the process was killed)
  std::string out;          // stdout
  std::string err;          // stderr
  double seconds = 0;       // wall time
};

// Runs argv to completion with extra env, stdout and stderr apart, killed at the timeout.
CommandResult run_capture(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                          std::chrono::milliseconds timeout);

class IbSim {
 public:
  struct SmOptions {
    std::string host;               // node of the net file the SM runs as
    int priority = 10;              // 0..15; a standby needs a lower one than the master
    bool fast_failover = true;      // poll the master often, give up on it quickly
    int sweep_interval_s = 2;       // light sweeps: a new master notices changes soon
  };

  // Starts `ibsim -s net_file` on a fresh socket name and waits until it is ready.
  // Returns null and sets *error when it does not come up.
  static std::unique_ptr<IbSim> start(const std::string& net_file, std::string* error,
                                      std::chrono::milliseconds timeout = std::chrono::seconds(30));
  ~IbSim();
  IbSim(const IbSim&) = delete;
  IbSim& operator=(const IbSim&) = delete;

  const std::string& sockname() const { return sockname_; }
  // Environment that makes a process attach to this fabric as `host`.
  std::map<std::string, std::string> env_for(const std::string& host) const;

  // Starts OpenSM as opts.host; returns its index for stop_sm/kill_sm/sm_log.
  size_t start_sm(const SmOptions& opts);
  // Waits until some running SM has logged "SUBNET UP" (after `since` lines of its log,
  // so a failover can wait for the new master's). True when it did in time.
  bool wait_subnet_up(std::chrono::milliseconds timeout);
  bool wait_sm_subnet_up(size_t sm, std::chrono::milliseconds timeout);
  void kill_sm(size_t sm);          // SIGKILL: the SM dies without a goodbye
  void stop_sms();                  // SIGTERM, short grace, SIGKILL, every SM
  std::string sm_log(size_t sm) const;
  std::string sm_output(size_t sm) const;   // what OpenSM printed

  // One ibsim console command (Unlink, ReLink, Error, PerformanceSet, ...).
  void console(const std::string& command);
  // Runs argv as `host` of this fabric (under umad2sim).
  CommandResult run_as(const std::string& host, const std::vector<std::string>& argv,
                       std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;

 private:
  IbSim() = default;
  struct Sm {
    std::unique_ptr<Process> process;
    std::string dir;
  };
  std::unique_ptr<TempDir> dir_;
  std::string sockname_;
  std::unique_ptr<Process> ibsim_;
  std::vector<Sm> sms_;
};

}  // namespace weft::testing
