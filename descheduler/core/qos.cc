#include "descheduler/core/qos.h"

#include <map>
#include <string>

#include "kube/quantity.h"

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

Result<QosClass> pod_qos(const json& pod) {
  const json& given = member(member(pod, "status"), "qosClass");
  if (given.is_string() && !given.get<std::string>().empty()) {
    const std::string& q = given.get_ref<const std::string&>();
    for (QosClass c : {QosClass::BestEffort, QosClass::Burstable, QosClass::Guaranteed})
      if (q == to_string(c)) return c;
    return make_error("status.qosClass '" + q + "' is not BestEffort, Burstable or Guaranteed");
  }
  // Only cpu and memory decide the class; zero amounts count as unset.
  std::map<std::string, int64_t> requests, limits;
  bool guaranteed = true;
  const json& spec = member(pod, "spec");
  for (const char* list : {"containers", "initContainers"}) {
    const json& containers = member(spec, list);
    if (!containers.is_array()) continue;
    for (size_t i = 0; i < containers.size(); ++i) {
      const json& res = member(containers[i], "resources");
      std::map<std::string, int64_t> got[2];   // this container's requests, limits
      const char* kinds[2] = {"requests", "limits"};
      for (int k = 0; k < 2; ++k) {
        const json& amounts = member(res, kinds[k]);
        for (const char* name : {"cpu", "memory"}) {
          const json& v = member(amounts, name);
          if (v.is_null()) continue;
          auto q = kube::parse_quantity_milli(v);
          if (!q)
            return make_error(std::string("spec.") + list + "[" + std::to_string(i) + "].resources." + kinds[k] + "." +
                              name + ": " + q.message());
          got[k][name] = *q;
        }
      }
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

}  // namespace weft::descheduler
