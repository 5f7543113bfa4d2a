// Objects as `weft-scheduler global` decodes them (simulate's file, what run's watch hands
// over): every object of a file through GlobalBuilder::add, then the state built as
// simulate builds it (the first bad binding fails it) and as run builds it (bad bindings
// left out), and a dispatch cycle over run's state. A field of any shape is an error or a
// value, never an exception.
#include <optional>

#include "fuzz/fuzz.h"
#include "kube/scenario.h"
#include "scheduler/global/core/dispatch.h"

namespace {

using weft::scheduler::global::GlobalState;

bool gangs_whole(const GlobalState& s) {
  for (const auto& b : s.bindings)
    if (b.gang.pods.size() != static_cast<size_t>(b.gang.replicas) || b.gang.tasks.size() != b.gang.pods.size() ||
        b.gang.min_member > b.gang.replicas)
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto objects = weft::kube::load_objects_text(weft::fuzz::text(data, size), "fuzz.yaml");
  if (!objects) return 0;
  weft::scheduler::global::GlobalBuilder builder;
  for (const auto& o : *objects) (void)builder.add(o.object, o.where());
  std::optional<size_t> simulated_bindings;   // the state itself is let go: one at a time in memory
  if (auto simulated = builder.build()) simulated_bindings = simulated->bindings.size();
  std::vector<std::string> skipped;
  auto run = builder.build(&skipped);
  if (simulated_bindings)
    weft::fuzz::check(run && skipped.empty() && run->bindings.size() == *simulated_bindings,
                      "what simulate builds, run builds the same with nothing left out");
  if (!run) return 0;
  weft::fuzz::check(gangs_whole(*run), "a binding's gang has a pod and a task per replica, min_member at most replicas");
  auto decisions = weft::scheduler::global::dispatch(*run);
  weft::fuzz::check(decisions.bindings.size() == run->bindings.size(), "one decision per binding");
  return 0;
}
