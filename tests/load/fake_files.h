// In-memory TextFiles for unit tests.
#pragma once

#include <map>
#include <string>

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
};

}  // namespace weft::load::testing
