// Standard base64 (RFC 4648) decoding for kubeconfig *-data fields.
#pragma once

#include <string>

#include "common/result.h"

namespace weft::kube {

// Whitespace is ignored; any other character outside the alphabet is an error.
Result<std::string> base64_decode(const std::string& text);
std::string base64_encode(const std::string& bytes);

}  // namespace weft::kube
