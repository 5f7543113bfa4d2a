// Objects as the scheduler and the descheduler decode them (scenario files, kube-lite
// --state, and what the API returns): every object of a file through SnapshotBuilder::add
// and ClusterBuilder::add, then the builds. A field of any shape is an error or a value,
// never an exception.
#include "descheduler/core/cluster.h"
#include "fuzz/fuzz.h"
#include "kube/scenario.h"
#include "scheduler/core/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto objects = weft::kube::load_objects_text(weft::fuzz::text(data, size), "fuzz.yaml");
  if (!objects) return 0;
  weft::scheduler::SnapshotBuilder snapshot;
  weft::scheduler::DecodePools pools;
  weft::descheduler::ClusterBuilder cluster;
  for (const auto& o : *objects) {
    (void)snapshot.add(o.object, o.where());
    (void)cluster.add(o.object, o.where());
    auto pooled = weft::scheduler::pod_info_of(o.object, o.where(), &pools);
    auto alone = weft::scheduler::pod_info_of(o.object, o.where());
    weft::fuzz::check(pooled.ok() == alone.ok(), "a pod decodes through the pools exactly when it decodes alone");
    if (pooled.ok())
      weft::fuzz::check(pooled->filter_signature == alone->filter_signature &&
                            pooled->tolerations().size() == alone->tolerations().size(),
                        "a pooled pod reads as the pod decoded alone");
  }
  (void)snapshot.build();
  (void)cluster.finish();
  return 0;
}
