// Label and field selectors as a ?labelSelector= / ?fieldSelector= query carries them,
// and label selectors as JSON (matchLabels / matchExpressions).
#include <nlohmann/json.hpp>

#include "fuzz/fuzz.h"
#include "kube/selector.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string s = weft::fuzz::text(data, size);
  const weft::kube::Labels labels{{"app", "web"}, {"tier", ""}, {"weft.dev/ib-leaf", "l1"}};
  const nlohmann::json pod = {{"metadata", {{"name", "p"}, {"namespace", "ns"}, {"labels", {{"app", "web"}}}}},
                              {"spec", {{"nodeName", "n1"}}},
                              {"status", {{"phase", "Running"}}}};
  if (auto l = weft::kube::LabelSelector::parse(s)) (void)l->matches(labels);
  if (auto f = weft::kube::FieldSelector::parse(s)) (void)f->matches(pod);
  auto doc = nlohmann::json::parse(s, nullptr, false);
  if (!doc.is_discarded())
    if (auto l = weft::kube::LabelSelector::from_json(doc)) (void)l->matches(labels);
  return 0;
}
