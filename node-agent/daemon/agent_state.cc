#include "node-agent/daemon/agent_state.h"

#include "node-agent/daemon/node_metadata.h"

namespace weft::agent {

void AgentState::ib_ok(IbSnapshot snapshot) {
  std::lock_guard lock(mu_);
  view_.ib = std::move(snapshot);
  view_.ib_status.stale = false;
  view_.ib_status.last_error.clear();
  ++view_.ib_status.successes;
  view_.ib_status.last_success = std::chrono::system_clock::now();
}

void AgentState::ib_failed(const std::string& error) {
  std::lock_guard lock(mu_);
  view_.ib_status.stale = true;
  view_.ib_status.last_error = error;
  ++view_.ib_status.errors;
}

void AgentState::load_ok(LoadSnapshot snapshot, std::chrono::system_clock::time_point at) {
  std::lock_guard lock(mu_);
  view_.load = std::move(snapshot);
  view_.load_at = at;
  view_.load_status.stale = false;
  view_.load_status.last_error.clear();
  ++view_.load_status.successes;
  view_.load_status.last_success = at;
}

void AgentState::load_failed(const std::string& error) {
  std::lock_guard lock(mu_);
  view_.load_status.stale = true;
  view_.load_status.last_error = error;
  ++view_.load_status.errors;
}

StateView AgentState::view() const {
  std::lock_guard lock(mu_);
  return view_;
}

bool AgentState::ready() const {
  std::lock_guard lock(mu_);
  return view_.ib.has_value();
}

nlohmann::json probe_json(const StateView& v) {
  nlohmann::json j = nlohmann::json::object();
  j["node"] = v.node;
  j["rdma"] = v.ib ? v.ib->rdma : "none";
  j["ib"] = v.ib ? v.ib->json : nlohmann::json(nullptr);
  j["load"] = v.load ? v.load->json : nlohmann::json(nullptr);
  nlohmann::json labels = nlohmann::json::object();
  if (v.ib) {
    for (const auto& [k, val] : desired_ib_metadata(*v.ib).labels) labels[k] = val;
  }
  j["labels"] = labels;
  auto status = [](const CollectorStatus& s) {
    nlohmann::json o = {{"stale", s.stale}, {"errors", s.errors}, {"successes", s.successes}};
    if (!s.last_error.empty()) o["last_error"] = s.last_error;
    return o;
  };
  j["collectors"] = {{"ib", status(v.ib_status)}, {"load", status(v.load_status)}};
  return j;
}

}  // namespace weft::agent
