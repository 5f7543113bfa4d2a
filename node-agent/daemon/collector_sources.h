// The real IB and load sources for --ib-backend / --load-backend (collectors/ib and
// collectors/load behind the daemon's interfaces).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "common/result.h"
#include "node-agent/daemon/sources.h"

namespace weft::agent {

// auto|umad|verbs. `why` says which backend was chosen and why.
Result<std::unique_ptr<IbSource>> make_ib_source(const std::string& backend, std::string* why);
// auto|ebpf|procfs; sampling starts at once (a reading every `period`), summaries span
// up to `window`.
Result<std::unique_ptr<LoadSource>> make_load_source(const std::string& backend, std::chrono::milliseconds period,
                                                     std::chrono::milliseconds window, std::string* why);

}  // namespace weft::agent
