#include "scheduler/global/app/global_apply.h"

#include <spdlog/spdlog.h>

#include "kube/objects.h"
#include "kube/time.h"

namespace weft::scheduler::global {
namespace {

using nlohmann::json;
using Action = BindingDecision::Action;

constexpr const char* kConditionType = "Dispatched";

// A condition's field as text; of another type (the binding's status is not checked when
// it is read) it reads as absent.
std::string text_at(const json& condition, const char* key) {
  auto it = condition.is_object() ? condition.find(key) : condition.end();
  return it != condition.end() && it->is_string() ? it->get<std::string>() : "";
}

const json* condition_of(const json& binding) {
  auto s = binding.find("status");
  if (s == binding.end() || !s->contains("conditions") || !(*s)["conditions"].is_array()) return nullptr;
  for (const auto& c : (*s)["conditions"])
    if (text_at(c, "type") == kConditionType) return &c;
  return nullptr;
}

// "12" < "13"; opaque versions are only compared for equality.
bool caught_up(const std::string& cached, const std::string& written) {
  try {
    return std::stoll(cached) >= std::stoll(written);
  } catch (const std::exception&) {
    return cached == written;
  }
}

std::string version_of(const json& o) { return kube::metadata_string(o, "resourceVersion"); }

}  // namespace

DecisionWriter::DecisionWriter(kube::Client& client, const std::string& host)
    : client_(client), events_(client, "weft-scheduler-global", host) {}

Status DecisionWriter::write_condition(const json& binding, const BindingDecision& d) {
  const std::string status = d.suspended ? "False" : "True";
  std::string message = d.reason.size() > 4000 ? d.reason.substr(0, 3997) + "..." : d.reason;
  if (const json* c = condition_of(binding);
      c && text_at(*c, "status") == status && text_at(*c, "reason") == d.reason_code && text_at(*c, "message") == message)
    return {};
  auto r = client_.update_status_with_retry(
      refs::resource_bindings(), kube::namespace_of(binding), kube::name_of(binding), [&](json& o) -> Status {
        json& conds = o["status"]["conditions"];
        if (!conds.is_array()) conds = json::array();
        json c = {{"type", kConditionType}, {"status", status}, {"reason", d.reason_code}, {"message", message},
                  {"lastTransitionTime", kube::format_rfc3339(std::chrono::system_clock::now())}};
        for (auto& old : conds)
          if (text_at(old, "type") == kConditionType) {
            if (text_at(old, "status") == status) c["lastTransitionTime"] = text_at(old, "lastTransitionTime");
            old = c;
            return {};
          }
        conds.push_back(c);
        return {};
      });
  if (!r) return r.error();
  const bool warning = d.suspended;
  if (auto e = events_.record(binding, warning ? "Warning" : "Normal", d.reason_code, message); !e)
    spdlog::debug("event for ResourceBinding {}: {}", d.key, e.message());
  return {};
}

ApplySummary DecisionWriter::apply(const GlobalDecisions& d, const std::map<std::string, json>& bindings) {
  ApplySummary s;
  for (const auto& b : d.bindings) {
    auto it = bindings.find(b.key);
    if (it == bindings.end()) continue;
    const json& object = it->second;
    if (b.action == Action::Dispatch || b.action == Action::Preempt) {
      json clusters = json::array();
      for (const auto& c : b.clusters) clusters.push_back({{"name", c.name}, {"replicas", c.replicas}});
      json patch = {{"spec", {{"clusters", clusters}, {"suspension", {{"scheduling", b.suspended}}}}}};
      auto r = client_.patch(refs::resource_bindings(), kube::namespace_of(object), kube::name_of(object), patch);
      if (!r) {
        spdlog::warn("ResourceBinding {}: {}", b.key, r.message());
        ++s.errors;
        continue;
      }
      json shown = *r;
      shown["apiVersion"] = object.value("apiVersion", "");
      shown["kind"] = object.value("kind", "");
      written_[b.key] = shown;
      spdlog::info("ResourceBinding {} {}: {}", b.key, b.action == Action::Dispatch ? "dispatched" : "taken back", b.reason);
      ++(b.action == Action::Dispatch ? s.dispatched : s.preempted);
    }
    if (b.action == Action::Keep) continue;
    if (auto st = write_condition(written_.count(b.key) ? written_[b.key] : object, b); !st) {
      spdlog::warn("ResourceBinding {}: status: {}", b.key, st.message());
      ++s.errors;
    } else {
      ++s.conditions;
    }
  }
  return s;
}

void DecisionWriter::overlay(std::vector<WatchedObject>& objects) {
  for (auto& o : objects) {
    if (kube::kind_of(o.object) != "ResourceBinding") continue;
    auto it = written_.find(kube::key_of(o.object));
    if (it == written_.end()) continue;
    if (caught_up(version_of(o.object), version_of(it->second))) {
      written_.erase(it);
      continue;
    }
    json status = o.object.value("status", json::object());
    o.object = it->second;
    o.object["status"] = status;
  }
}

}  // namespace weft::scheduler::global
