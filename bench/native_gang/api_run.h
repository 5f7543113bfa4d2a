// One measured run of a bench case through kube-lite, shared by the API benches
// (native_gang, scheduler_affinity): a fresh kube-lite from the case's state file, either
// `weft-scheduler run` as a process or a baseline placer in the bench process, the case's
// objects created from many threads, timed from the first create to the last binding seen
// on a watch, then the placement checked from the API.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/native_gang/cases.h"
#include "bench/native_gang/checks.h"
#include "bench/scheduler_run/phases.h"
#include "common/result.h"

namespace weft::bench {

struct RunOptions {
  Binaries bin;
  std::string work_dir;
  int concurrency = 16, client_threads = 16;
  std::vector<std::string> scheduler_args;   // more flags of weft-scheduler run (e.g. --config)
};

struct Timing {
  double created_s = 0, bound_s = 0;   // from the first create: the last create, the last binding
  double decide_s = 0;                 // weft: the scheduler's decide time in the cycles that bound pods
  // CPU seconds from the first create to the last binding: the placer (weft-scheduler, or
  // this process for a baseline placer, client threads included) and kube-lite.
  double placer_cpu_s = 0, api_cpu_s = 0;
  int bound = 0;
  Verdict verdict;
  std::string error;
};

// A placer in the bench process, through the same API as the scheduler.
class Placer {
 public:
  virtual ~Placer() = default;
  virtual Status sync() = 0;                                          // before the clock
  virtual Status run(std::chrono::steady_clock::time_point deadline) = 0;   // until all are bound
};

using Check = std::function<Verdict(kube::Client&, const Case&)>;
using MakePlacer = std::function<std::unique_ptr<Placer>(kube::Client&, const Case&, int threads)>;

Timing run_weft(const RunOptions& o, const Case& c, const std::string& state, const Check& check);
Timing run_placer(const RunOptions& o, const Case& c, const std::string& state, const Check& check,
                  const MakePlacer& make);

void print_row(const std::string& who, const Timing& t, int pods);
nlohmann::json row_json(const Timing& t);

}  // namespace weft::bench
