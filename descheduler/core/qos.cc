#include "descheduler/core/qos.h"

#include <map>
#include <string>


namespace weft::descheduler {
namespace {

using nlohmann::json;

const json& member(const json& obj, const char* key) {
  static const json null_value;
  if (!obj.is_object()) return null_value;
  auto it = obj.find(key);
  return it == obj.end() ? null_value : *it;
}

}  // namespace

const char* to_string(QosClass q) {
  switch (q) {
    case QosClass::BestEffort: return "BestEffort";
    case QosClass::Burstable: return "Burstable";
    case QosClass::Guaranteed: return "Guaranteed";
  }
  return "?";
}

Result<std::optional<QosClass>> given_qos(const std::string& q) {
  if (q.empty()) return std::optional<QosClass>();
  for (QosClass c : {QosClass::BestEffort, QosClass::Burstable, QosClass::Guaranteed})
    if (q == to_string(c)) return std::optional<QosClass>(c);
  return make_error("status.qosClass '" + q + "' is not BestEffort, Burstable or Guaranteed");
}

QosClass qos_of(const kube::PodResources& resources) {
  // Only cpu and memory decide the class; zero amounts count as unset.
  std::map<std::string, int64_t> requests, limits;
  bool guaranteed = true;
  for (const auto* list : {&resources.containers, &resources.init_containers}) {
    for (const auto& container : *list) {
      std::map<std::string, int64_t> got[2];   // this container's requests, limits
      const kube::ResourceList* given[2] = {&container.requests, &container.limits};
      for (int k = 0; k < 2; ++k)
        for (const char* name : {"cpu", "memory"})
          if (auto it = given[k]->find(name); it != given[k]->end()) got[k][name] = it->second;
      // The API server defaults a request to its limit when only the limit is given.
      for (const auto& [name, amount] : got[1]) got[0].emplace(name, amount);
      int limited = 0;
      for (const auto& [name, amount] : got[0])
        if (amount > 0) requests[name] += amount;
      for (const auto& [name, amount] : got[1])
        if (amount > 0) {
          limits[name] += amount;
          ++limited;
        }
      if (limited < 2) guaranteed = false;
    }
  }
  if (requests.empty() && limits.empty()) return QosClass::BestEffort;
  if (guaranteed) {
    for (const auto& [name, amount] : requests) {
      auto l = limits.find(name);
      if (l == limits.end() || l->second != amount) guaranteed = false;
    }
  }
  return guaranteed && requests.size() == limits.size() ? QosClass::Guaranteed : QosClass::Burstable;
}

Result<QosClass> pod_qos(const json& pod) {
  const json& given = member(member(pod, "status"), "qosClass");
  auto stated = given_qos(given.is_string() ? given.get<std::string>() : "");
  if (!stated) return stated.error();
  if (*stated) return **stated;
  auto resources = kube::pod_resources(pod);
  if (!resources) return resources.error();
  return qos_of(*resources);
}

}  // namespace weft::descheduler
