// Resource sums that do not overflow: a cluster of 10,000 nodes of 4 TiB holds 4.4e19
// milli-bytes, past int64. Per-node values stay int64 (kube::ResourceList); sums over
// nodes, queues and jobs are doubles in milli units, compared with a relative tolerance.
#pragma once

#include <map>
#include <string>

#include "kube/quantity.h"

namespace weft::scheduler {

using Quantities = std::map<std::string, double>;   // resource -> milli units

void add(Quantities& into, const kube::ResourceList& r);
void add(Quantities& into, const Quantities& r);
void subtract(Quantities& from, const kube::ResourceList& r);
void subtract(Quantities& from, const Quantities& r);
double get(const Quantities& q, const std::string& resource);
// a <= b within rounding (relative 1e-12, at least half a milli unit).
bool less_equal(double a, double b);
// The first resource, "pods" aside, on which `want` exceeds `limit` (absent limit: 0); "" when none.
std::string first_over(const Quantities& want, const Quantities& limit);
// Saturating conversion back to a ResourceList (for the public Decisions).
kube::ResourceList to_resource_list(const Quantities& q);

}  // namespace weft::scheduler
