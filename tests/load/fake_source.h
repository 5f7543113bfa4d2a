// A LoadSource that replays scripted readings, for unit tests.
#pragma once

#include <deque>
#include <mutex>

#include "collectors/load/source.h"

namespace weft::load::testing {

class FakeSource : public LoadSource {
 public:
  explicit FakeSource(std::string name = "fake") : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  Status watch_cgroup(const std::string& path) override {
    if (path == "/missing") return make_error("--cgroup /missing: does not exist");
    if (path == refuse_watch) return make_error("--cgroup " + path + ": at most 0 cgroups can be watched");
    watched.push_back(path);
    return {};
  }
  Status unwatch_cgroup(const std::string& path) override {
    unwatched.push_back(path);
    return {};
  }
  bool attributes_cgroups() const override { return counts_cgroups; }
  Result<LoadCounters> read() override {
    std::lock_guard lock(mu);
    reads++;
    if (readings.empty()) return make_error("fake: no more readings");
    auto r = readings.front();
    if (readings.size() > 1) readings.pop_front();
    return r;
  }
  std::mutex mu;
  std::deque<LoadCounters> readings;
  std::vector<std::string> watched, unwatched;
  bool counts_cgroups = false;
  std::string refuse_watch;
  int reads = 0;

 private:
  std::string name_;
};

}  // namespace weft::load::testing
