// In-memory TextFiles for unit tests.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "collectors/load/text_files.h"

namespace weft::load::testing {

class FakeFiles : public TextFiles {
 public:
  std::map<std::string, std::string> files;
  Result<std::string> read(const std::string& path) const override {
    auto it = files.find(path);
    if (it == files.end()) return make_error(path + ": No such file or directory", 2);
    return it->second;
  }
  bool exists(const std::string& path) const override {
    if (files.count(path)) return true;
    auto prefix = path + "/";
    for (const auto& [p, _] : files) {
      if (p.rfind(prefix, 0) == 0) return true;
    }
    return false;
  }
  // Directories are implied by the files under them.
  Result<std::vector<std::string>> subdirs(const std::string& dir) const override {
    const std::string prefix = dir + "/";
    std::set<std::string> names;
    for (const auto& [p, _] : files) {
      if (p.rfind(prefix, 0) != 0) continue;
      auto slash = p.find('/', prefix.size());
      if (slash != std::string::npos) names.insert(p.substr(prefix.size(), slash - prefix.size()));
    }
    if (names.empty() && !exists(dir)) return make_error(dir + ": No such file or directory", 2);
    return std::vector<std::string>(names.begin(), names.end());
  }
};

}  // namespace weft::load::testing
