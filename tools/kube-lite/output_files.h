// Files kube-lite writes: the kubeconfig for its address (--kubeconfig-out) and the
// state dump (--dump), both written whole to a temporary file and renamed into place.
#pragma once

#include <string>

#include "common/result.h"
#include "tools/kube-lite/registry.h"

namespace weft::kube_lite {

Status write_file_atomically(const std::string& path, const std::string& content);
std::string kubeconfig_for(const std::string& server_url);
Status write_dump(const std::string& path, Registry& registry);

}  // namespace weft::kube_lite
