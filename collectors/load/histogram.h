// Log2 histograms of nanoseconds, as the BPF program counts them: bucket b holds
// values in [2^b, 2^(b+1)) ns (bucket 0 also holds 0).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace weft::load {

// Lower and upper bound of bucket b in seconds.
double bucket_lower_s(size_t b);
double bucket_upper_s(size_t b);

// Element-wise after - before; a counter that went backwards (map reset) counts as 0.
std::vector<uint64_t> bucket_delta(const std::vector<uint64_t>& before, const std::vector<uint64_t>& after);

// The q-quantile (0 < q <= 1) in seconds, interpolated linearly inside its bucket;
// nullopt when the histogram is empty.
std::optional<double> quantile_s(const std::vector<uint64_t>& buckets, double q);

}  // namespace weft::load
