#include "collectors/load/ebpf/kallsyms.h"

#include <gtest/gtest.h>

namespace weft::load {
namespace {

TEST(Kallsyms, FindsTheFirstListedNameThatIsATextSymbol) {
  const std::string text =
      "ffffffff81000000 T _stext\n"
      "ffffffff814332e0 t tick_nohz_handler\n"
      "ffffffff81433300 d tick_sched_timer\n"  // data, not a function
      "ffffffffc0001000 t helper\t[some_module]\n";
  auto a = find_kernel_function(text, {"tick_nohz_handler", "tick_sched_timer"});
  ASSERT_TRUE(a) << a.message();
  EXPECT_EQ(*a, 0xffffffff814332e0ULL);
  auto older = find_kernel_function("ffffffff81111110 T tick_sched_timer\n", {"tick_nohz_handler", "tick_sched_timer"});
  ASSERT_TRUE(older) << older.message();
  EXPECT_EQ(*older, 0xffffffff81111110ULL);
}

TEST(Kallsyms, HiddenAddressesAndMissingSymbolsAreErrorsThatSaySo) {
  auto hidden = find_kernel_function("0000000000000000 t tick_nohz_handler\n", {"tick_nohz_handler"}, "/x/kallsyms");
  ASSERT_FALSE(hidden);
  EXPECT_NE(hidden.message().find("/x/kallsyms"), std::string::npos);
  EXPECT_NE(hidden.message().find("CAP_SYSLOG"), std::string::npos);
  auto missing = find_kernel_function("ffffffff81000000 T _stext\n", {"tick_nohz_handler", "tick_sched_timer"});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.message().find("tick_nohz_handler or tick_sched_timer"), std::string::npos) << missing.message();
}

}  // namespace
}  // namespace weft::load
