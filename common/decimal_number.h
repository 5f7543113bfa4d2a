// Decimal number text to double, as std::from_chars reads it (the nearest double), fast for
// the short numbers that fill load files and API objects ("0.6375", "3816816640.0").
#pragma once

#include <charconv>

namespace weft {

// std::from_chars(first, last, value) in its result and value. A number of at most 19
// significant digits whose digits and power of ten are both exact doubles (digits up to
// 2^53, a power of ten up to 10^22) is one exact multiplication or division, which IEEE
// rounds to the nearest double as from_chars does; anything else is from_chars's to read.
std::from_chars_result read_decimal(const char* first, const char* last, double& value);

}  // namespace weft
