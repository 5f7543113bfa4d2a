#include "collectors/load/histogram.h"

#include <cmath>

namespace weft::load {

double bucket_lower_s(size_t b) { return b == 0 ? 0.0 : std::ldexp(1.0, static_cast<int>(b)) * 1e-9; }
double bucket_upper_s(size_t b) { return std::ldexp(1.0, static_cast<int>(b) + 1) * 1e-9; }

std::vector<uint64_t> bucket_delta(const std::vector<uint64_t>& before, const std::vector<uint64_t>& after) {
  std::vector<uint64_t> d(after.size(), 0);
  for (size_t i = 0; i < after.size(); i++) {
    uint64_t b = i < before.size() ? before[i] : 0;
    d[i] = after[i] >= b ? after[i] - b : 0;
  }
  return d;
}

std::optional<double> quantile_s(const std::vector<uint64_t>& buckets, double q) {
  uint64_t total = 0;
  for (uint64_t c : buckets) total += c;
  if (total == 0 || q <= 0 || q > 1) return std::nullopt;
  // Rank of the wanted observation, 1-based, as a real number for interpolation.
  double rank = q * static_cast<double>(total);
  uint64_t seen = 0;
  for (size_t b = 0; b < buckets.size(); b++) {
    if (buckets[b] == 0) continue;
    if (static_cast<double>(seen + buckets[b]) >= rank) {
      double within = (rank - static_cast<double>(seen)) / static_cast<double>(buckets[b]);
      return bucket_lower_s(b) + within * (bucket_upper_s(b) - bucket_lower_s(b));
    }
    seen += buckets[b];
  }
  return bucket_upper_s(buckets.size() - 1);
}

}  // namespace weft::load
