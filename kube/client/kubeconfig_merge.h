// Several kubeconfig files ($KUBECONFIG=a:b:c) merged into one, with kubectl's rules: the
// first file that names a cluster, user or context wins (later entries of that name are
// ignored, not merged field by field), and so does the first current-context. File paths
// inside each file (certificate-authority, client-certificate, client-key, tokenFile, an
// exec command with a '/') are made absolute against that file's folder first.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"

namespace weft::kube {

// The merged kubeconfig as YAML text; errors name the file.
Result<std::string> merge_kubeconfigs(const std::vector<std::string>& paths);

}  // namespace weft::kube
