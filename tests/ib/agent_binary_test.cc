// weft-agent is timed against ibnetdiscover as a whole process, so what the dynamic
// loader maps at its start is part of the probe's cost: libc and libibumad only
// (libibverbs is opened when verbs is needed). See cmake/WeftLeanTwin.cmake.
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/support/process.h"

namespace weft::testing {
namespace {

TEST(AgentBinary, LoadsOnlyLibcAndLibibumad) {
  if (auto why = need_tools({"readelf"}); !why.empty()) GTEST_SKIP() << why;
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "a sanitizer build links libasan and libubsan into every binary";
#endif
  auto [code, out] = run_command({"readelf", "-d", binary("node-agent/weft-agent")});
  ASSERT_EQ(code, 0) << out;
  const std::set<std::string> allowed = {"libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2", "libibumad.so.3"};
  std::istringstream lines(out);
  std::string line;
  int needed = 0;
  while (std::getline(lines, line)) {
    if (line.find("(NEEDED)") == std::string::npos) continue;
    const auto open = line.find('['), close = line.find(']');
    ASSERT_NE(open, std::string::npos) << line;
    const std::string lib = line.substr(open + 1, close - open - 1);
    EXPECT_TRUE(allowed.count(lib)) << "weft-agent needs " << lib;
    ++needed;
  }
  EXPECT_GE(needed, 2) << out;
}

}  // namespace
}  // namespace weft::testing
