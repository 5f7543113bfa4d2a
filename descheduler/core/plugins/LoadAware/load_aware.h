// The LoadAware balance plugin (Volcano's, on measured load) and, with requests_only, the
// Kubernetes descheduler's LowNodeUtilization as weft runs it today: the planner
// (descheduler/core/planner.h) under the profile's evictor. Args: its profile's load_aware.
#pragma once

#include "descheduler/core/framework/plugin.h"

namespace weft::descheduler::plugins {

class LoadAware final : public framework::BalancePlugin {
 public:
  LoadAware(LoadAwareArgs args, PlanOptions options) : args_(std::move(args)), options_(options) {}
  std::string name() const override { return load_plugin_name(args_); }
  Status balance(const std::vector<int>& nodes, framework::Handle& handle) override;

 private:
  const LoadAwareArgs args_;
  const PlanOptions options_;
};

}  // namespace weft::descheduler::plugins
