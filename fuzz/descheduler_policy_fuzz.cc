// The Kubernetes descheduler's v1alpha2 DeschedulerPolicy (YAML or JSON).
#include "descheduler/core/policy.h"
#include "fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)weft::descheduler::parse_policy_text(weft::fuzz::text(data, size), "fuzz.yaml");
  return 0;
}
