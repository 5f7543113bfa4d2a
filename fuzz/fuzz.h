// Shared by the fuzz targets: the input as text, and a property check that makes
// libFuzzer report (and keep) the input when a codec's promise does not hold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace weft::fuzz {

inline std::string text(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

inline void check(bool holds, const char* promise) {
  if (holds) return;
  std::fprintf(stderr, "property failed: %s\n", promise);
  std::abort();
}

}  // namespace weft::fuzz
