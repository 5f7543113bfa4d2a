#include "descheduler/core/plan_output.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace weft::descheduler {
namespace {

std::string ratio_text(const std::optional<double>& v) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", *v * 100);
  return buf;
}

std::string pad(const std::string& s, size_t width) { return s.size() >= width ? s + " " : s + std::string(width - s.size() + 1, ' '); }

// Whether more than one balance plugin classified the nodes: each verdict then names its
// "profile/plugin"; one classification keeps the one-profile form.
bool several_classifications(const Plan& plan) {
  return std::any_of(plan.nodes.begin(), plan.nodes.end(),
                     [&](const NodeVerdict& n) { return n.by != plan.nodes.front().by; });
}

}  // namespace

nlohmann::json plan_to_json(const Plan& plan) {
  nlohmann::json nodes = nlohmann::json::array();
  const bool by = several_classifications(plan);
  for (const auto& n : plan.nodes) {
    nodes.push_back({{"name", n.name},
                     {"cpu", n.cpu ? nlohmann::json(*n.cpu) : nlohmann::json(nullptr)},
                     {"memory", n.memory ? nlohmann::json(*n.memory) : nlohmann::json(nullptr)},
                     {"class", to_string(n.cls)}});
    if (by) nodes.back()["by"] = n.by.text();
  }
  nlohmann::json evictions = nlohmann::json::array();
  for (const auto& e : plan.evictions)
    evictions.push_back({{"pod", e.pod()}, {"from", e.from}, {"to", e.to}, {"reason", e.reason},
                         {"sized_by", e.sized_by}, {"cpu", e.cpu / 1000.0}, {"memory", e.memory / 1000.0}});
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& s : plan.skipped) skipped.push_back({{"pod", s.pod()}, {"reason", s.reason}});
  nlohmann::json out = {{"nodes", nodes}, {"evictions", evictions}, {"skipped", skipped}};
  for (const auto& [podgroup, annotation] : plan.reservations)
    out["reservations"].push_back({{"podgroup", podgroup}, {"annotation", annotation}});
  return out;
}

std::string plan_to_table(const Plan& plan) {
  std::string out;
  size_t w = 4;
  for (const auto& n : plan.nodes) w = std::max(w, n.name.size());
  const bool several = several_classifications(plan);
  size_t bw = 2;
  for (const auto& n : plan.nodes) bw = std::max(bw, n.by.text().size());
  auto by = [&](const std::string& text) { return several ? pad(text, bw) : std::string(); };
  out += pad("NODE", w) + by("BY") + pad("CPU", 7) + pad("MEMORY", 7) + pad("CLASS", 8) + "NOTE\n";
  for (const auto& n : plan.nodes)
    out += pad(n.name, w) + by(n.by.text()) + pad(ratio_text(n.cpu), 7) + pad(ratio_text(n.memory), 7) + pad(to_string(n.cls), 8) +
           n.why + "\n";
  out += "\n";
  size_t pw = 3;
  for (const auto& e : plan.evictions) pw = std::max(pw, e.pod().size());
  for (const auto& s : plan.skipped) pw = std::max(pw, s.pod().size());
  out += std::to_string(plan.evictions.size()) + " eviction(s)\n";
  if (!plan.evictions.empty()) {
    out += pad("POD", pw) + pad("FROM", w) + pad("TO", w) + "REASON\n";
    for (const auto& e : plan.evictions) out += pad(e.pod(), pw) + pad(e.from, w) + pad(e.to, w) + e.reason + "\n";
  }
  out += "\n" + std::to_string(plan.skipped.size()) + " skipped\n";
  if (!plan.skipped.empty()) {
    out += pad("POD", pw) + pad("NODE", w) + "REASON\n";
    for (const auto& s : plan.skipped) out += pad(s.pod(), pw) + pad(s.node, w) + s.reason + "\n";
  }
  for (const auto& note : plan.notes) out += "note: " + note + "\n";
  return out;
}

}  // namespace weft::descheduler
