// Hands `weft-agent run ...` to the weft-agent-daemon binary installed beside weft-agent.
#pragma once

namespace weft::agent {

inline constexpr const char* kDaemonBinary = "weft-agent-daemon";

// Replaces this process with <dir of this executable>/weft-agent-daemon and the same
// argv. Returns only on failure: prints what was missing and returns exit code 2.
int exec_daemon(int argc, char** argv);

}  // namespace weft::agent
