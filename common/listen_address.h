// The daemons' listen flags (--listen, --metrics-listen): "0.0.0.0:9464", "127.0.0.1:0"
// (a free port), "[::]:9464", ":9464" (every interface).
#pragma once

#include <string>

#include "common/result.h"

namespace weft {

struct ListenAddress {
  std::string host;
  int port = 0;
};

// `flag` names the option in errors: "--listen 'x': expected HOST:PORT".
Result<ListenAddress> parse_listen_address(const std::string& text, const std::string& flag);

}  // namespace weft
