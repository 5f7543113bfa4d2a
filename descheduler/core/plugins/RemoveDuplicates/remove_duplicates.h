// RemoveDuplicates (Balance): pods of one owner (ReplicaSet, StatefulSet, Job, ...) with the
// same images on one node are duplicates; each owner's pods are spread to at most
// ceil(pods / feasible nodes) per node by evicting the surplus duplicates. Nothing moves
// when fewer than two nodes could take them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/plugins/common/pod_filter.h"

namespace weft::descheduler::plugins::remove_duplicates {

inline constexpr const char* kName = "RemoveDuplicates";

struct Args {
  args::Namespaces namespaces;
  std::vector<std::string> exclude_owner_kinds;
};

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& args, const std::string& path);

class Plugin : public framework::BalancePlugin {
 public:
  explicit Plugin(Args args) : args_(std::move(args)) {}
  std::string name() const override { return kName; }
  Status balance(const std::vector<int>& nodes, framework::Handle& handle) override;

 private:
  Args args_;
};

}  // namespace weft::descheduler::plugins::remove_duplicates
