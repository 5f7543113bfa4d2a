// --request-log FILE: one JSON line per request, flushed at once, so tests can count
// what a client sent: {"verb","path","query","user","status","at"}.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>

#include "common/result.h"

namespace weft::kube_lite {

class RequestLog {
 public:
  RequestLog() = default;
  ~RequestLog();
  Status open(const std::string& path);
  void write(const std::string& verb, const std::string& path, const std::string& query, const std::string& user,
             int status);

 private:
  std::mutex mu_;
  FILE* file_ = nullptr;
};

// RFC 3339 with milliseconds, UTC.
std::string rfc3339_millis_now();

}  // namespace weft::kube_lite
