#include "tools/kube-lite/request_log.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

#include <nlohmann/json.hpp>

namespace weft::kube_lite {

RequestLog::~RequestLog() {
  if (file_) std::fclose(file_);
}

Status RequestLog::open(const std::string& path) {
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) return make_error("request log " + path + ": " + std::strerror(errno));
  return {};
}

std::string rfc3339_millis_now() {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof(out), "%s.%03dZ", buf, static_cast<int>(ms));
  return out;
}

void RequestLog::write(const std::string& verb, const std::string& path, const std::string& query,
                       const std::string& user, int status) {
  if (!file_) return;
  nlohmann::json line = {{"verb", verb}, {"path", path},     {"query", query},
                         {"user", user}, {"status", status}, {"at", rfc3339_millis_now()}};
  std::string text = line.dump() + "\n";
  std::lock_guard lock(mu_);
  std::fwrite(text.data(), 1, text.size(), file_);
  std::fflush(file_);
}

}  // namespace weft::kube_lite
