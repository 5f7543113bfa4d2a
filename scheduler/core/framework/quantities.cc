#include "scheduler/core/framework/quantities.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace weft::scheduler {

void add(Quantities& into, const kube::ResourceList& r) {
  for (const auto& [k, v] : r) into[k] += static_cast<double>(v);
}

void add(Quantities& into, const Quantities& r) {
  for (const auto& [k, v] : r) into[k] += v;
}

void subtract(Quantities& from, const kube::ResourceList& r) {
  for (const auto& [k, v] : r) from[k] -= static_cast<double>(v);
}

void subtract(Quantities& from, const Quantities& r) {
  for (const auto& [k, v] : r) from[k] -= v;
}

double get(const Quantities& q, const std::string& resource) {
  auto it = q.find(resource);
  return it == q.end() ? 0.0 : it->second;
}

bool less_equal(double a, double b) {
  return a <= b + std::max(0.5, 1e-12 * std::max(std::fabs(a), std::fabs(b)));
}

std::string first_over(const Quantities& want, const Quantities& limit) {
  for (const auto& [k, v] : want) {
    if (v <= 0 || k == "pods") continue;
    if (!less_equal(v, get(limit, k))) return k;
  }
  return "";
}

kube::ResourceList to_resource_list(const Quantities& q) {
  constexpr double kMax = static_cast<double>(std::numeric_limits<int64_t>::max() / 2);
  kube::ResourceList out;
  for (const auto& [k, v] : q) out[k] = static_cast<int64_t>(std::clamp(std::round(v), -kMax, kMax));
  return out;
}

}  // namespace weft::scheduler
