// Reading small kernel text files (procfs, cgroupfs, sysfs) behind an interface so
// the parsers and backends run on fixed text in unit tests.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"

namespace weft::load {

class TextFiles {
 public:
  virtual ~TextFiles() = default;
  virtual Result<std::string> read(const std::string& path) const = 0;
  virtual bool exists(const std::string& path) const = 0;
  // Names of the directories in dir (not "." or ".."), in no particular order.
  virtual Result<std::vector<std::string>> subdirs(const std::string& dir) const = 0;
};

// The real file system, paths used as given.
class HostFiles : public TextFiles {
 public:
  Result<std::string> read(const std::string& path) const override;
  bool exists(const std::string& path) const override;
  Result<std::vector<std::string>> subdirs(const std::string& dir) const override;
};

}  // namespace weft::load
