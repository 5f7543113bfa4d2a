// Scenario / object files (multi-document YAML or JSON, Lists), as kube-lite --state,
// weft-scheduler simulate and weft-descheduler plan read them.
#include "fuzz/fuzz.h"
#include "kube/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)weft::kube::load_objects_text(weft::fuzz::text(data, size), "fuzz.yaml");
  return 0;
}
