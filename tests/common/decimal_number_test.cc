#include "common/decimal_number.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <string>

namespace weft {
namespace {

// Same result, same end and the same bits (sign of zero included) as std::from_chars.
void expect_as_from_chars(const std::string& text) {
  double mine = -1.5, theirs = -1.5;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto a = read_decimal(first, last, mine);
  const auto b = std::from_chars(first, last, theirs);
  ASSERT_EQ(a.ec, b.ec) << text;
  ASSERT_EQ(a.ptr, b.ptr) << text;
  ASSERT_EQ(std::bit_cast<uint64_t>(mine), std::bit_cast<uint64_t>(theirs)) << text;
}

TEST(ReadDecimal, ReadsWhatFromCharsReadsOnEveryShape) {
  for (const char* text :
       {"0", "-0", "0.0", "-0.0", "1", "-1", "0.1", "0.2", "0.3", "0.6375", "3816816640.0", "9007199254740992",
        "9007199254740993", "9007199254740993.0", "1e22", "1e23", "1e-22", "1e-23", "123456789012345678",
        "1234567890123456789", "12345678901234567890", "0.000000000000000000000001", "1.7976931348623157e308",
        "1e309", "-1e309", "4.9e-324", "1e-400", "2.2250738585072014e-308", "1E5", "1e+5", "1e-5", "007", "00.5",
        "1.", ".5", "-", "", "e5", "1e", "1e+", "1.5x", "1.5 ", " 1.5", "+1", "inf", "nan", "0x10", "1_0",
        "123.456e-7", "99999999999999999999e-20", "0e400", "0.0000000000000000000000000000001e40"})
    expect_as_from_chars(text);
}

TEST(ReadDecimal, ReadsWhatFromCharsReadsOnRandomNumbers) {
  std::mt19937_64 random(20261128);
  std::uniform_int_distribution<int> digits(1, 21), fraction(0, 20), exponent(-30, 30), coin(0, 3);
  for (int i = 0; i < 200000; ++i) {
    std::string text = coin(random) == 0 ? "-" : "";
    const int whole = digits(random), part = coin(random) ? fraction(random) : 0;
    for (int d = 0; d < whole; ++d) text += static_cast<char>('0' + random() % 10);
    if (part > 0) text += '.';
    for (int d = 0; d < part; ++d) text += static_cast<char>('0' + random() % 10);
    if (coin(random) == 0) text += "e" + std::to_string(exponent(random));
    expect_as_from_chars(text);
  }
}

}  // namespace
}  // namespace weft
