// The crash tests' common knobs: which daemon binary runs (WEFT_CRASH_SCHEDULER,
// WEFT_CRASH_DESCHEDULER: another build, say an older one), and after which API writes it
// is killed: WEFT_CRASH_SEED picks them (printed, so a failure can be replayed), the short
// form a few, WEFT_CRASH_LONG=1 every one.
#pragma once

#include <string>
#include <vector>

namespace weft::testing::crash {

// The binary named by the environment variable `env`, else the built `relative` one.
std::string daemon_binary(const char* env, const std::string& relative);

// "" when kube-lite and `path` are there, else why the test skips.
std::string need_binaries(const std::string& path);

// Values of k in [first, last]: all of them in the long form, else `short_count` drawn with
// the seed (always including `always`, when in range). Prints the seed and the values.
std::vector<int> crash_points(int first, int last, int short_count, int always = 0);

}  // namespace weft::testing::crash
