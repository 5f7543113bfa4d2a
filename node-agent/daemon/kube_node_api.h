// NodeApi over the shared Kubernetes client (kube/client): GET and merge-PATCH of
// /api/v1/nodes/NAME, with the client's retries, QPS limit and per-call deadline.
#pragma once

#include <memory>

#include "kube/client/client.h"
#include "node-agent/daemon/sources.h"

namespace weft::agent {

class KubeNodeApi : public NodeApi {
 public:
  explicit KubeNodeApi(std::unique_ptr<weft::kube::Client> client) : client_(std::move(client)) {}
  Result<nlohmann::json> get_node(const std::string& name) override;
  Result<nlohmann::json> patch_node(const std::string& name, const nlohmann::json& merge_patch) override;

 private:
  std::unique_ptr<weft::kube::Client> client_;
};

}  // namespace weft::agent
