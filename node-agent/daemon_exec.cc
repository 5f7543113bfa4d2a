#include "node-agent/daemon_exec.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

namespace weft::agent {

int exec_daemon(int argc, char** argv) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    std::cerr << "weft-agent run: cannot find this executable (/proc/self/exe): " << ec.message() << "\n";
    return 2;
  }
  const std::string daemon = (self.parent_path() / kDaemonBinary).string();
  (void)argc;
  argv[0] = const_cast<char*>(daemon.c_str());
  ::execv(daemon.c_str(), argv);
  std::cerr << "weft-agent run: cannot start " << daemon << ": " << std::strerror(errno)
            << " (install it beside weft-agent)\n";
  return 2;
}

}  // namespace weft::agent
