#include "kube/client/events.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "kube/objects.h"

namespace weft::kube {

using nlohmann::json;

EventRecorder::EventRecorder(Client& client, std::string component, std::string host)
    : client_(client), component_(std::move(component)), host_(std::move(host)) {}

json EventRecorder::build(const json& involved, const std::string& type, const std::string& reason,
                          const std::string& message) const {
  auto now = std::chrono::system_clock::now();
  auto secs = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".%llx", static_cast<unsigned long long>(nanos));

  std::string ns = namespace_of(involved);
  if (ns.empty()) ns = "default";  // events about cluster-scoped objects (Nodes) live here
  const json& meta = involved.contains("metadata") ? involved["metadata"] : json::object();
  json ref = {{"apiVersion", involved.value("apiVersion", "v1")},
              {"kind", involved.value("kind", "")},
              {"name", name_of(involved)}};
  if (!namespace_of(involved).empty()) ref["namespace"] = namespace_of(involved);
  if (meta.contains("uid")) ref["uid"] = meta["uid"];
  if (meta.contains("resourceVersion")) ref["resourceVersion"] = meta["resourceVersion"];
  json source = {{"component", component_}};
  if (!host_.empty()) source["host"] = host_;
  return json{{"apiVersion", "v1"},
              {"kind", "Event"},
              {"metadata", {{"name", name_of(involved) + suffix}, {"namespace", ns}}},
              {"involvedObject", ref},
              {"type", type},
              {"reason", reason},
              {"message", message.substr(0, 1024)},
              {"source", source},
              {"reportingComponent", component_},
              {"reportingInstance", host_.empty() ? component_ : host_},
              {"firstTimestamp", stamp},
              {"lastTimestamp", stamp},
              {"count", 1}};
}

Result<json> EventRecorder::post(const json& event) {
  return client_.create(resources::events(), event["metadata"].value("namespace", "default"), event);
}

Result<json> EventRecorder::record(const json& involved, const std::string& type, const std::string& reason,
                                   const std::string& message) {
  return post(build(involved, type, reason, message));
}

AsyncEventRecorder::AsyncEventRecorder(EventRecorder& recorder, size_t capacity, int workers)
    : recorder_(recorder), capacity_(capacity) {
  for (int i = 0; i < std::max(workers, 1); ++i) workers_.emplace_back([this] { work(); });
}

AsyncEventRecorder::~AsyncEventRecorder() { close(drain_timeout); }

void AsyncEventRecorder::close(Millis timeout) {
  flush(timeout);
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    counts_.dropped += queue_.size();
    queue_.clear();
  }
  ready_.notify_all();
  for (auto& t : workers_)
    if (t.joinable()) t.join();
}

bool AsyncEventRecorder::record(const json& involved, const std::string& type, const std::string& reason,
                                const std::string& message) {
  json event = recorder_.build(involved, type, reason, message);
  {
    std::lock_guard lock(mu_);
    if (stopping_ || queue_.size() >= capacity_) {
      ++counts_.dropped;
      return false;
    }
    queue_.push_back(std::move(event));
  }
  ready_.notify_one();
  return true;
}

bool AsyncEventRecorder::flush(Millis timeout) {
  std::unique_lock lock(mu_);
  return idle_.wait_for(lock, timeout, [this] { return queue_.empty() && posting_ == 0; });
}

AsyncEventRecorder::Counts AsyncEventRecorder::counts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

void AsyncEventRecorder::work() {
  std::unique_lock lock(mu_);
  while (true) {
    ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;   // stopping with nothing left
    json event = std::move(queue_.front());
    queue_.pop_front();
    ++posting_;
    lock.unlock();
    bool ok = static_cast<bool>(recorder_.post(event));
    lock.lock();
    --posting_;
    ++(ok ? counts_.posted : counts_.failed);
    if (queue_.empty() && posting_ == 0) idle_.notify_all();
  }
}

}  // namespace weft::kube
