// Kubernetes resource quantities ("100m", "1Gi", "1e3", "1.5") and resource lists.
// Values are held in thousandths of the base unit (millicores, millibytes), rounded
// up as the API server does, so sums and comparisons are exact.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::kube {

// "500m" -> 500, "2" -> 2000, "1Ki" -> 1024000, "1e3" -> 1000000. Invalid -> error naming the text.
Result<int64_t> parse_quantity_milli(std::string_view text);
Result<int64_t> parse_quantity_milli(const std::string& text);
Result<int64_t> parse_quantity_milli(const char* text);
// Accepts a JSON string or number (as the API sometimes carries numbers).
Result<int64_t> parse_quantity_milli(const nlohmann::json& value);

// Resource name -> amount in thousandths ("cpu" -> millicores, "memory" -> millibytes, "pods" -> milli-pods).
using ResourceList = std::map<std::string, int64_t>;

// Parses {"cpu":"2","memory":"4Gi"}; an invalid entry is an error naming the resource.
Result<ResourceList> parse_resource_list(const nlohmann::json& obj);

void add_to(ResourceList& into, const ResourceList& other);
void subtract_from(ResourceList& from, const ResourceList& other);   // may go negative
ResourceList max_of(const ResourceList& a, const ResourceList& b);   // per resource
// True when every resource requested fits in available (missing in available counts as 0).
bool fits(const ResourceList& request, const ResourceList& available);
// The first resource of request that does not fit, or "" when all fit.
std::string first_shortage(const ResourceList& request, const ResourceList& available);

// For output: cpu as cores (double), memory and others in base units (double).
double to_base_units(int64_t milli);
nlohmann::json to_json(const ResourceList& list);
// "1500m" / "4Gi"-free plain form: cpu "1.5", memory "4294967296".
std::string format_quantity(int64_t milli);

}  // namespace weft::kube
