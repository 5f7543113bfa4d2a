#include "common/listen_address.h"

#include <charconv>

namespace weft {

Result<ListenAddress> parse_listen_address(const std::string& text, const std::string& flag) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) return make_error(flag + " '" + text + "': expected HOST:PORT");
  std::string host = text.substr(0, colon);
  const std::string port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  int port = -1;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 0 || port > 65535)
    return make_error(flag + " '" + text + "': port '" + port_text + "' is not 0..65535");
  return ListenAddress{host, port};
}

}  // namespace weft
