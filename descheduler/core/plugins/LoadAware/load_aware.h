// The LoadAware balance plugin (Volcano's, on measured load) and, with requests_only, the
// Kubernetes descheduler's LowNodeUtilization as weft runs it today: the planner
// (descheduler/core/planner.h) under the profile's evictor. Args: Policy::load_aware.
#pragma once

#include "descheduler/core/framework/plugin.h"

namespace weft::descheduler::plugins {

class LoadAware final : public framework::BalancePlugin {
 public:
  LoadAware(Policy policy, PlanOptions options) : policy_(std::move(policy)), options_(options) {}
  std::string name() const override { return load_plugin_name(policy_); }
  Status balance(const std::vector<int>& nodes, framework::Handle& handle) override;

 private:
  const Policy policy_;
  const PlanOptions options_;
};

}  // namespace weft::descheduler::plugins
