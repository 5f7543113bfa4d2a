// Kubernetes Events (core/v1) about an object, for `kubectl describe` to show why the
// scheduler did or did not place a pod.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "kube/client/client.h"

namespace weft::kube {

class EventRecorder {
 public:
  EventRecorder(Client& client, std::string component, std::string host = "");
  // type "Normal" or "Warning"; reason a CamelCase word ("Scheduled", "FailedScheduling").
  Result<nlohmann::json> record(const nlohmann::json& involved, const std::string& type, const std::string& reason,
                                const std::string& message);

  // The Event object that record() posts (exposed for tests).
  nlohmann::json build(const nlohmann::json& involved, const std::string& type, const std::string& reason,
                       const std::string& message) const;

 private:
  Client& client_;
  std::string component_;
  std::string host_;
};

}  // namespace weft::kube
