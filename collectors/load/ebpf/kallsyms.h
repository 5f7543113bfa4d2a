// Kernel function addresses from /proc/kallsyms (the tick mode needs the tick timer's
// function). Addresses read as 0 without CAP_SYSLOG unless kptr_restrict is 0 and
// perf_event_paranoid <= 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace weft::load {

// The address of the first of `names` found as a text symbol in a kallsyms listing.
// Errors name the file and say whether the symbols are missing or hidden (all zeros).
Result<uint64_t> find_kernel_function(const std::string& kallsyms, const std::vector<std::string>& names,
                                      const std::string& where = "/proc/kallsyms");

}  // namespace weft::load
