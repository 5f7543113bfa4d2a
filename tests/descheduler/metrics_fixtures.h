// metrics.k8s.io objects for descheduler tests: NodeMetrics and PodMetrics as the API
// serves them, dated by `timestamp` (t0 unless given).
#pragma once

#include <string>

#include "tests/descheduler/fixtures.h"

namespace weft::descheduler::test {

inline json node_metrics(const std::string& name, const std::string& cpu, const std::string& memory,
                         const std::string& at = "2026-11-23T10:00:00Z") {
  return {{"apiVersion", "metrics.k8s.io/v1beta1"}, {"kind", "NodeMetrics"}, {"metadata", {{"name", name}}},
          {"timestamp", at}, {"window", "20.01s"}, {"usage", {{"cpu", cpu}, {"memory", memory}}}};
}

inline json pod_metrics(const std::string& name, const std::string& cpu, const std::string& memory = "0",
                        const std::string& at = "2026-11-23T10:00:00Z") {
  return {{"apiVersion", "metrics.k8s.io/v1beta1"}, {"kind", "PodMetrics"},
          {"metadata", {{"name", name}, {"namespace", "default"}}}, {"timestamp", at}, {"window", "20.01s"},
          {"containers", json::array({{{"name", "c"}, {"usage", {{"cpu", cpu}, {"memory", memory}}}}})}};
}

}  // namespace weft::descheduler::test
