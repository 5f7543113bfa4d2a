#include "descheduler/core/qos.h"

#include <array>
#include <optional>
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
  // Only cpu and memory decide the class; zero amounts count as unset. Summed in place:
  // every pod of a cluster is classed as it is decoded.
  struct Sum {
    int64_t amount = 0;
    bool set = false;
    void add(int64_t a) {
      amount += a;
      set = true;
    }
  };
  constexpr std::array<const char*, 2> kNames = {"cpu", "memory"};
  std::array<Sum, 2> requests, limits;
  bool guaranteed = true;
  for (const auto* list : {&resources.containers, &resources.init_containers}) {
    for (const auto& container : *list) {
      std::array<std::optional<int64_t>, 2> request, limit;   // this container's, by kNames
      for (size_t r = 0; r < kNames.size(); ++r) {
        if (auto it = container.requests.find(kNames[r]); it != container.requests.end()) request[r] = it->second;
        if (auto it = container.limits.find(kNames[r]); it != container.limits.end()) limit[r] = it->second;
        // The API server defaults a request to its limit when only the limit is given.
        if (!request[r]) request[r] = limit[r];
      }
      int limited = 0;
      for (size_t r = 0; r < kNames.size(); ++r) {
        if (request[r] && *request[r] > 0) requests[r].add(*request[r]);
        if (limit[r] && *limit[r] > 0) {
          limits[r].add(*limit[r]);
          ++limited;
        }
      }
      if (limited < 2) guaranteed = false;
    }
  }
  size_t requested = 0, limited = 0;
  for (size_t r = 0; r < kNames.size(); ++r) {
    requested += requests[r].set;
    limited += limits[r].set;
    if (requests[r].set && (!limits[r].set || limits[r].amount != requests[r].amount)) guaranteed = false;
  }
  if (requested == 0 && limited == 0) return QosClass::BestEffort;
  return guaranteed && requested == limited ? QosClass::Guaranteed : QosClass::Burstable;
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
