#include "kube/client/leader_election.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <ctime>

namespace weft::kube {

using nlohmann::json;

LeaderElector::LeaderElector(Client& client, LeaderElectionConfig config)
    : client_(client), config_(std::move(config)) {}

std::string LeaderElector::now_micro_time() {
  auto now = std::chrono::system_clock::now();
  auto secs = std::chrono::system_clock::to_time_t(now);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[80];
  std::snprintf(out, sizeof out, "%s.%06lldZ", buf, static_cast<long long>(micros));
  return out;
}

std::string LeaderElector::observed_holder() const {
  std::lock_guard lock(mu_);
  return observed_holder_;
}

Result<bool> LeaderElector::try_acquire_or_renew() {
  const auto leases = resources::leases();
  const int duration_s = static_cast<int>(std::ceil(config_.lease_duration.count() / 1000.0));
  const std::string now = now_micro_time();
  auto current = client_.get(leases, config_.lease_namespace, config_.lease_name);
  if (!current && current.error().code == 404) {
    json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                  {"kind", "Lease"},
                  {"metadata", {{"name", config_.lease_name}, {"namespace", config_.lease_namespace}}},
                  {"spec",
                   {{"holderIdentity", config_.identity},
                    {"leaseDurationSeconds", duration_s},
                    {"acquireTime", now},
                    {"renewTime", now},
                    {"leaseTransitions", 0}}}};
    auto created = client_.create(leases, config_.lease_namespace, lease);
    if (!created) {
      leader_ = false;
      if (created.error().code == 409) return false;  // another candidate created it first
      return created.error();
    }
    std::lock_guard lock(mu_);
    observed_holder_ = config_.identity;
    observed_at_ = Clock::now();
    leader_ = true;
    return true;
  }
  if (!current) {
    return current.error();
  }
  json lease = std::move(*current);
  json spec = lease.value("spec", json::object());
  if (!spec.is_object()) spec = json::object();
  const std::string holder = spec.value("holderIdentity", "");
  const int64_t held_for_s = spec.value("leaseDurationSeconds", static_cast<int64_t>(duration_s));
  const int64_t transitions = spec.value("leaseTransitions", static_cast<int64_t>(0));
  const std::string record = holder + "|" + spec.value("renewTime", "") + "|" + std::to_string(transitions);
  bool expired;
  {
    std::lock_guard lock(mu_);
    if (record != observed_record_) {
      observed_record_ = record;
      observed_at_ = Clock::now();
    }
    observed_holder_ = holder;
    expired = holder.empty() || Clock::now() >= observed_at_ + std::chrono::seconds(held_for_s);
  }
  if (holder != config_.identity && !expired) {
    leader_ = false;
    return false;
  }
  spec["holderIdentity"] = config_.identity;
  spec["leaseDurationSeconds"] = duration_s;
  spec["renewTime"] = now;
  if (holder != config_.identity) {
    spec["acquireTime"] = now;
    spec["leaseTransitions"] = transitions + 1;
  }
  lease["spec"] = spec;
  auto updated = client_.update(leases, lease);  // conditional on the resourceVersion we read
  if (!updated) {
    leader_ = false;
    if (updated.error().code == 409) return false;
    return updated.error();
  }
  std::lock_guard lock(mu_);
  json new_spec = updated->value("spec", json::object());
  observed_record_ = config_.identity + "|" + new_spec.value("renewTime", "") + "|" +
                     std::to_string(new_spec.value("leaseTransitions", static_cast<int64_t>(0)));
  observed_at_ = Clock::now();
  observed_holder_ = config_.identity;
  leader_ = true;
  return true;
}

Status LeaderElector::release() {
  if (!leader_) return {};
  leader_ = false;
  auto released = client_.read_modify_write(resources::leases(), config_.lease_namespace, config_.lease_name,
                                            [&](json& lease) -> Status {
                                              json& spec = lease["spec"];
                                              if (spec.value("holderIdentity", "") != config_.identity) {
                                                return make_error("lease is held by someone else now");
                                              }
                                              spec["holderIdentity"] = "";
                                              spec["leaseDurationSeconds"] = 1;
                                              spec["renewTime"] = now_micro_time();
                                              return {};
                                            });
  if (!released) return released.error();
  return {};
}

bool LeaderElector::wait(Millis d) {
  std::unique_lock lock(mu_);
  return !wake_.wait_for(lock, d, [this] { return stopping_.load(); });
}

void LeaderElector::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
}

void LeaderElector::run(const std::function<void()>& on_started, const std::function<void()>& on_stopped) {
  while (!stopping_) {
    auto got = try_acquire_or_renew();
    if (got && *got) break;
    if (!got) spdlog::warn("leader election {}/{}: {}", config_.lease_namespace, config_.lease_name, got.message());
    if (!wait(config_.retry_period)) return;
  }
  if (stopping_) return;
  spdlog::info("leader election {}/{}: {} is the leader", config_.lease_namespace, config_.lease_name,
               config_.identity);
  if (on_started) on_started();
  auto last_renew = Clock::now();
  while (wait(config_.retry_period)) {
    auto renewed = try_acquire_or_renew();
    if (renewed && *renewed) {
      last_renew = Clock::now();
      continue;
    }
    if (renewed && !*renewed) break;  // someone else holds it now
    spdlog::warn("leader election {}/{}: renew failed: {}", config_.lease_namespace, config_.lease_name,
                 renewed.message());
    if (Clock::now() - last_renew >= config_.renew_deadline) break;
  }
  if (on_stopped) on_stopped();
  if (auto s = release(); !s) spdlog::warn("leader election: release failed: {}", s.message());
  leader_ = false;
}

}  // namespace weft::kube
