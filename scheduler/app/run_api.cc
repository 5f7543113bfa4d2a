#include "scheduler/app/run_api.h"

#include "kube/client/resource.h"

namespace weft::scheduler {

using nlohmann::json;

KubeSchedulerApi::KubeSchedulerApi(kube::Client& client, kube::Client& best_effort, kube::AsyncEventRecorder& events)
    : client_(client), best_effort_(best_effort), events_(events) {}

Status KubeSchedulerApi::bind(const std::string& ns, const std::string& pod, const std::string& uid,
                              const std::string& node) {
  auto bound = client_.bind(ns, pod, node, uid);
  if (bound || bound.error().code != 409) return bound;
  // A retried POST whose first attempt did reach the server answers 409: look whether
  // the pod is where we wanted it.
  auto current = client_.get(kube::resources::pods(), ns, pod);
  if (current && current->contains("spec") && (*current)["spec"].value("nodeName", "") == node) return {};
  return bound;
}

Result<EvictOutcome> KubeSchedulerApi::evict(const std::string& ns, const std::string& pod, std::string* why) {
  auto r = client_.evict(ns, pod);
  if (!r) return r.error();
  if (why) *why = r->message;
  switch (r->outcome) {
    case kube::EvictionResult::Outcome::Evicted: return EvictOutcome::Evicted;
    case kube::EvictionResult::Outcome::Blocked: return EvictOutcome::Blocked;
    case kube::EvictionResult::Outcome::NotFound: return EvictOutcome::Gone;
  }
  return EvictOutcome::Evicted;
}

Status KubeSchedulerApi::write_podgroup_status(const std::string& ns, const std::string& name, const json& status) {
  auto written = best_effort_.update_status_with_retry(kube::resources::podgroups(), ns, name, [&](json& object) -> Status {
    object["status"] = status;
    return {};
  });
  if (!written) return written.error();
  return {};
}

Status KubeSchedulerApi::nominate(const std::string& ns, const std::string& pod, const std::string& node) {
  auto patched = best_effort_.patch(kube::resources::pods(), ns, pod, json{{"status", {{"nominatedNodeName", node}}}},
                                    kube::PatchType::Merge, "status");
  if (!patched) return patched.error();
  return {};
}

Status KubeSchedulerApi::write_native_group_status(const std::string& ns, const std::string& name, const json& status) {
  auto written = best_effort_.update_status_with_retry(kube::resources::native_podgroups(), ns, name, [&](json& object) -> Status {
    object["status"] = status;
    return {};
  });
  if (!written) return written.error();
  return {};
}

Status KubeSchedulerApi::record_event(const json& involved, const std::string& type, const std::string& reason,
                                      const std::string& message) {
  if (!events_.record(involved, type, reason, message))
    return make_error("event " + reason + " dropped: the event queue is full (the API is slower than the scheduler)");
  return {};
}

Status KubeSchedulerApi::write_claim(const ClaimWrite& w) {
  const auto slash = w.claim.find('/');
  const std::string ns = w.claim.substr(0, slash), name = w.claim.substr(slash + 1);
  if (!w.volume.empty()) {
    // The PV controller completes the binding from the volume's claimRef.
    auto written = client_.read_modify_write(kube::resources::persistentvolumes(), "", w.volume, [&](json& pv) -> Status {
      const json ref = pv["spec"].value("claimRef", json());
      if (ref.is_object() && (ref.value("namespace", "") != ns || ref.value("name", "") != name))
        return make_error("volume " + w.volume + " was bound to " + ref.value("namespace", "") + "/" +
                          ref.value("name", "") + " meanwhile");
      pv["spec"]["claimRef"] = {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}, {"namespace", ns},
                                {"name", name}, {"uid", w.claim_uid}};
      pv["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] = "yes";
      return {};
    });
    return written ? Status{} : written.error();
  }
  auto written = client_.read_modify_write(kube::resources::persistentvolumeclaims(), ns, name, [&](json& pvc) -> Status {
    if (!w.claim_uid.empty() && pvc["metadata"].value("uid", "") != w.claim_uid)
      return make_error("claim " + w.claim + " was replaced");
    pvc["metadata"]["annotations"][kSelectedNodeAnnotation] = w.selected_node;
    return {};
  });
  return written ? Status{} : written.error();
}

}  // namespace weft::scheduler
