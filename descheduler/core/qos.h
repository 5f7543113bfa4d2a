// A pod's QoS class, which orders victims of one priority: BestEffort first, then
// Burstable, then Guaranteed (as the Kubernetes descheduler evicts them).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/objects.h"

namespace weft::descheduler {

enum class QosClass { BestEffort = 0, Burstable = 1, Guaranteed = 2 };

const char* to_string(QosClass q);

// status.qosClass when the API filled it in, else derived from the containers' and init
// containers' cpu/memory requests and limits as the kubelet does. Bad quantities and an
// unknown status.qosClass are errors naming the field.
Result<QosClass> pod_qos(const nlohmann::json& pod);
// The two halves: status.qosClass as given (nullopt when absent or empty) ...
Result<std::optional<QosClass>> given_qos(const std::string& qos_class);
// ... and the class the containers' cpu/memory requests and limits make.
QosClass qos_of(const kube::PodResources& resources);

}  // namespace weft::descheduler
