#include "common/decimal_number.h"

#include <cstdint>

namespace weft {

namespace {
constexpr double kPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
constexpr int kLargestExactPower = 22;
constexpr uint64_t kLargestExactInteger = uint64_t{1} << 53;
constexpr int kMostDigits = 19;   // fit in 64 bits whatever they are

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// -?digits[.digits][(e|E)[+-]digits] spanning the whole text, into digits and a power of ten;
// false for anything else, or too many significant digits.
bool split_decimal(const char* p, const char* last, bool& negative, uint64_t& digits, int& power) {
  negative = p < last && *p == '-';
  if (negative) ++p;
  int significant = 0;
  auto take_digit = [&](char c) {
    if (digits == 0 && c == '0') return true;   // a leading zero is not significant
    if (++significant > kMostDigits) return false;
    digits = digits * 10 + static_cast<uint64_t>(c - '0');
    return true;
  };
  const char* int_start = p;
  for (; p < last && is_digit(*p); ++p)
    if (!take_digit(*p)) return false;
  if (p == int_start) return false;
  if (p < last && *p == '.') {
    const char* frac_start = ++p;
    for (; p < last && is_digit(*p); ++p) {
      if (!take_digit(*p)) return false;
      --power;
    }
    if (p == frac_start) return false;
  }
  if (p < last && (*p == 'e' || *p == 'E')) {
    ++p;
    const bool negative_exponent = p < last && *p == '-';
    if (p < last && (*p == '-' || *p == '+')) ++p;
    const char* exp_start = p;
    int exponent = 0;
    for (; p < last && is_digit(*p); ++p) {
      if (exponent > 1000) return false;   // far out of the fast range; from_chars decides
      exponent = exponent * 10 + (*p - '0');
    }
    if (p == exp_start) return false;
    power += negative_exponent ? -exponent : exponent;
  }
  return p == last;
}
}  // namespace

std::from_chars_result read_decimal(const char* first, const char* last, double& value) {
  bool negative = false;
  uint64_t digits = 0;
  int power = 0;
  if (split_decimal(first, last, negative, digits, power) && digits <= kLargestExactInteger &&
      power >= -kLargestExactPower && power <= kLargestExactPower) {
    double v = static_cast<double>(digits);
    v = power < 0 ? v / kPowersOfTen[-power] : v * kPowersOfTen[power];
    value = negative ? -v : v;
    return {last, std::errc()};
  }
  return std::from_chars(first, last, value);
}

}  // namespace weft
