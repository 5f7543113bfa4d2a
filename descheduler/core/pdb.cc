#include "descheduler/core/pdb.h"

#include <algorithm>
#include <cctype>

#include "kube/objects.h"

namespace weft::descheduler {
namespace {

using nlohmann::json;

Result<std::optional<IntOrPercent>> int_or_percent(const json& v, const std::string& where) {
  if (v.is_null()) return std::optional<IntOrPercent>();
  IntOrPercent out;
  if (v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= 1'000'000'000) {
    out.value = v.get<int>();
    return std::optional<IntOrPercent>(out);
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.size() >= 2 && s.back() == '%' &&
        std::all_of(s.begin(), s.end() - 1, [](unsigned char c) { return std::isdigit(c); }) && s.size() <= 5) {
      out.value = std::stoi(s.substr(0, s.size() - 1));
      out.percent = true;
      if (out.value <= 100) return std::optional<IntOrPercent>(out);
    }
  }
  return make_error(where + ": must be a non-negative integer or a percentage such as \"50%\"");
}

}  // namespace

int IntOrPercent::scaled(int total) const {
  if (!percent) return value;
  return static_cast<int>((static_cast<int64_t>(value) * total + 99) / 100);
}

int PdbInfo::compute_allowed() const {
  if (status_allowed) return std::max(0, *status_allowed);
  int allowed = healthy;
  if (min_available) allowed = healthy - min_available->scaled(expected);
  else if (max_unavailable) allowed = healthy - (expected - max_unavailable->scaled(expected));
  return std::max(0, allowed);
}

Result<PdbInfo> parse_pdb(const json& obj) {
  PdbInfo p;
  p.ns = kube::namespace_of(obj);
  if (p.ns.empty()) p.ns = "default";
  p.name = kube::name_of(obj);
  const json empty = json::object();
  const json& spec = obj.contains("spec") && obj["spec"].is_object() ? obj["spec"] : empty;
  if (spec.contains("selector") && !spec["selector"].is_null()) {
    auto sel = kube::LabelSelector::from_json(spec["selector"]);
    if (!sel) return make_error("spec.selector: " + sel.message());
    p.selector = std::move(*sel);
  }
  auto min = int_or_percent(spec.value("minAvailable", json()), "spec.minAvailable");
  if (!min) return min.error();
  auto max = int_or_percent(spec.value("maxUnavailable", json()), "spec.maxUnavailable");
  if (!max) return max.error();
  if (*min && *max) return make_error("spec: set minAvailable or maxUnavailable, not both");
  p.min_available = *min;
  p.max_unavailable = *max;
  const json& status = obj.contains("status") && obj["status"].is_object() ? obj["status"] : empty;
  if (status.contains("disruptionsAllowed")) {
    const json& a = status["disruptionsAllowed"];
    if (!a.is_number_integer()) return make_error("status.disruptionsAllowed: must be an integer");
    p.status_allowed = a.get<int>();
  }
  return p;
}

}  // namespace weft::descheduler
