// kubeconfig files (YAML or JSON), as kubectl reads them.
#include "fuzz/fuzz.h"
#include "kube/client/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)weft::kube::parse_kubeconfig(weft::fuzz::text(data, size), "/nonexistent/fuzz/kubeconfig");
  return 0;
}
