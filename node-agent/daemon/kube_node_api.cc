#include "node-agent/daemon/kube_node_api.h"

namespace weft::agent {

Result<nlohmann::json> KubeNodeApi::get_node(const std::string& name) {
  return client_->get(weft::kube::resources::nodes(), "", name);
}

Result<nlohmann::json> KubeNodeApi::patch_node(const std::string& name, const nlohmann::json& merge_patch) {
  return client_->patch(weft::kube::resources::nodes(), "", name, merge_patch, weft::kube::PatchType::Merge);
}

}  // namespace weft::agent
