#include "node-agent/daemon/http_server.h"

namespace weft::agent {

Result<ListenAddress> parse_listen(const std::string& text) { return parse_listen_address(text, "--listen"); }

HttpServer::HttpServer(HttpHandlers handlers)
    : server_({.metrics = handlers.metrics,
               .ready = [ready = handlers.ready] { return ProbeResult{ready(), "waiting for the first IB probe"}; },
               .json_routes = {{"/probe", handlers.probe}}}) {}

}  // namespace weft::agent
