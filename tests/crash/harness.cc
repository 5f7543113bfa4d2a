#include "tests/crash/harness.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "tests/support/kube_lite.h"
#include "tests/support/process.h"

namespace weft::testing::crash {

std::string daemon_binary(const char* env, const std::string& relative) {
  const char* other = std::getenv(env);
  return other && *other ? other : binary(relative);
}

std::string need_binaries(const std::string& path) {
  if (auto r = KubeLite::need(); !r.empty()) return r;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return "not built: " + path;
  return "";
}

std::vector<int> crash_points(int first, int last, int short_count, int always) {
  const char* seed_text = std::getenv("WEFT_CRASH_SEED");
  const unsigned seed = seed_text && *seed_text ? static_cast<unsigned>(std::atoi(seed_text)) : 33u;
  const char* long_form = std::getenv("WEFT_CRASH_LONG");
  std::vector<int> ks;
  for (int k = first; k <= last; ++k) ks.push_back(k);
  std::mt19937 rng(seed);
  std::shuffle(ks.begin(), ks.end(), rng);
  if (!(long_form && std::string(long_form) == "1")) {
    if (always >= first && always <= last) std::partition(ks.begin(), ks.end(), [&](int k) { return k == always; });
    ks.resize(std::min<size_t>(ks.size(), static_cast<size_t>(short_count)));
  }
  std::string listed;
  for (int k : ks) listed += " " + std::to_string(k);
  std::printf("crash points (WEFT_CRASH_SEED=%u%s):%s\n", seed, long_form ? ", WEFT_CRASH_LONG" : "", listed.c_str());
  std::fflush(stdout);
  return ks;
}

}  // namespace weft::testing::crash
