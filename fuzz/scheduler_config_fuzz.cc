// Volcano's volcano-scheduler.conf (actions, tiers, plugins, arguments).
#include "fuzz/fuzz.h"
#include "scheduler/core/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)weft::scheduler::parse_config(weft::fuzz::text(data, size), "fuzz.conf");
  return 0;
}
