// GangDefragment as a Balance plugin of the profile (defragment.h says what it plans). It
// plans on a World whose cluster is the one the profile runs on (the same pod and node
// indices); the rooms it made stay readable, so `run` writes their reservations before
// their victims are evicted.
#pragma once

#include "descheduler/core/defragment/defragment.h"
#include "descheduler/core/framework/plugin.h"

namespace weft::descheduler::defragment {

class GangDefragment final : public framework::BalancePlugin {
 public:
  GangDefragment(const World& world, Args args, Options options) : world_(world), args_(std::move(args)), options_(options) {}
  std::string name() const override { return kPluginName; }
  Status balance(const std::vector<int>& nodes, framework::Handle& handle) override;
  const Outcome& outcome() const { return outcome_; }

 private:
  const World& world_;
  const Args args_;
  const Options options_;
  Outcome outcome_;
};

}  // namespace weft::descheduler::defragment
