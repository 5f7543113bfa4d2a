#include "node-agent/daemon/daemon.h"

#include <spdlog/spdlog.h>

#include "common/keys.h"
#include "node-agent/daemon/pod_directory.h"

namespace weft::agent {

namespace {
using SteadyClock = std::chrono::steady_clock;

double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}
}  // namespace

Daemon::Daemon(IbSource& ib, LoadSource& load, NodeApi* api, AgentState& state, AgentMetrics& metrics,
               std::string node_name, DaemonOptions options)
    : ib_(ib), load_(load), api_(api), state_(state), metrics_(metrics), node_(std::move(node_name)),
      options_(options) {
  if (api_) publisher_ = std::make_unique<Publisher>(*api_, node_, options_.publisher);
}

Daemon::~Daemon() { stop(std::chrono::milliseconds(4000)); }

void Daemon::start() {
  std::lock_guard lock(mu_);
  auto run = [this](void (Daemon::*loop)()) {
    return std::thread([this, loop] {
      (this->*loop)();
      std::lock_guard l(mu_);
      --running_;
      cv_.notify_all();
    });
  };
  running_ = publisher_ ? 3 : 2;
  ib_thread_ = run(&Daemon::ib_loop);
  load_thread_ = run(&Daemon::load_loop);
  if (publisher_) publish_thread_ = run(&Daemon::publish_loop);
}

bool Daemon::stop(std::chrono::milliseconds grace) {
  std::unique_lock lock(mu_);
  stopping_ = true;
  cv_.notify_all();
  const bool done = cv_.wait_for(lock, grace, [this] { return running_ == 0; });
  lock.unlock();
  for (auto* t : {&ib_thread_, &load_thread_, &publish_thread_}) {
    if (!t->joinable()) continue;
    if (done) t->join();
    else t->detach();
  }
  return done;
}

bool Daemon::sleep_until(SteadyClock::time_point until) {
  std::unique_lock lock(mu_);
  cv_.wait_until(lock, until, [this] { return stopping_; });
  return !stopping_;
}

void Daemon::probe_ib() {
  const auto start = SteadyClock::now();
  std::string error;
  try {
    auto snapshot = ib_.probe();
    if (snapshot) {
      const bool first = !state_.ready();
      snapshot->probe_seconds = seconds_since(start);
      spdlog::log(first ? spdlog::level::info : spdlog::level::debug, "ib probe: rdma={} fabric={} leaf={} ports={}",
                  snapshot->rdma, snapshot->fabric, snapshot->leaf, snapshot->ports.size());
      state_.ib_ok(std::move(snapshot.value()));
    } else {
      error = snapshot.message();
    }
  } catch (const std::exception& e) {
    error = std::string("exception: ") + e.what();
  } catch (...) {
    error = "unknown exception";
  }
  metrics_.ib_probe(seconds_since(start), error.empty());
  if (!error.empty()) {
    state_.ib_failed(error);
    spdlog::warn("ib probe failed (keeping the last good values, marked stale): {}", error);
  }
  std::lock_guard lock(mu_);
  dirty_ = true;
  cv_.notify_all();
}

void Daemon::sample_load() {
  std::string error;
  try {
    auto snapshot = load_.sample();
    if (snapshot) {
      name_pods(pods_, snapshot->pods);
      state_.load_ok(std::move(snapshot.value()), std::chrono::system_clock::now());
    } else {
      error = snapshot.message();
    }
  } catch (const std::exception& e) {
    error = std::string("exception: ") + e.what();
  } catch (...) {
    error = "unknown exception";
  }
  metrics_.load_sample(error.empty());
  if (!error.empty()) {
    state_.load_failed(error);
    spdlog::warn("load sample failed (keeping the last good values, marked stale): {}", error);
  }
  std::lock_guard lock(mu_);
  dirty_ = true;
  cv_.notify_all();
}

// A restarted agent starts from the places it last published: a port that is down now
// keeps its last leaf, so the first patch does not move the node.
void Daemon::recall_ib_places() {
  if (!api_) return;
  try {
    auto node = api_->get_node(node_);
    if (!node) {
      spdlog::warn("ib: cannot read node {} to recall its ports' last places: {}", node_, node.message());
      return;
    }
    const auto annotation = node->value(nlohmann::json::json_pointer("/metadata/annotations"), nlohmann::json::object())
                                .value(keys::kPortsAnnotation, std::string());
    if (annotation.empty()) return;
    auto ports = nlohmann::json::parse(annotation, nullptr, false);
    if (ports.is_discarded() || !ports.is_array()) {
      spdlog::warn("ib: node {}: {} is not a JSON array; not recalled", node_, keys::kPortsAnnotation);
      return;
    }
    ib_.recall(ports);
  } catch (const std::exception& e) {
    spdlog::warn("ib: recalling the ports' last places: {}", e.what());
  }
}

void Daemon::ib_loop() {
  recall_ib_places();
  std::string ports;
  auto fingerprint = [this]() -> std::string {
    try {
      auto p = ib_.port_states();
      return p ? p.value() : std::string();
    } catch (...) {
      return std::string();
    }
  };
  ports = fingerprint();
  // Without local RDMA ports at start there is nothing to watch between probes (an HCA
  // that appears later is found by the next periodic probe).
  const bool watch_ports = !ports.empty();
  while (true) {
    probe_ib();
    const auto next = SteadyClock::now() + options_.ib_interval;
    while (true) {
      const auto wake = watch_ports ? std::min(next, SteadyClock::now() + options_.port_poll) : next;
      if (!sleep_until(wake)) return;
      if (SteadyClock::now() >= next) break;
      auto now_ports = fingerprint();
      if (!now_ports.empty() && now_ports != ports) {
        spdlog::info("ib port state changed ({} -> {}): probing now", ports, now_ports);
        ports = now_ports;
        break;
      }
    }
    ports = fingerprint();
  }
}

void Daemon::load_loop() {
  do {
    sample_load();
  } while (sleep_until(SteadyClock::now() + options_.load_interval));
}

void Daemon::publish_once() {
  const StateView v = state_.view();
  std::optional<NodeMetadata> ib;
  if (v.ib) {
    std::string skipped;
    ib = desired_ib_metadata(*v.ib, &skipped);
    if (!skipped.empty()) spdlog::warn("not a valid label value, left out: {}", skipped);
  }
  std::optional<std::string> load;
  if (v.load) load = load_annotation(*v.load, v.load_at);
  auto r = publisher_->publish(ib ? &*ib : nullptr, load, v.load_at);
  switch (r.outcome) {
    case Publisher::Outcome::Patched:
      metrics_.publish(true, false);
      spdlog::info("patched node {}: {}", node_, r.detail);
      break;
    case Publisher::Outcome::Failed:
      metrics_.publish(false, true);
      spdlog::warn("node {}: {} (retry in {} ms)", node_, r.detail,
                   std::chrono::duration_cast<std::chrono::milliseconds>(publisher_->next_attempt() -
                                                                         SteadyClock::now())
                       .count());
      break;
    default:
      break;
  }
  if (r.outcome == Publisher::Outcome::Failed && publisher_->next_attempt() <= SteadyClock::now()) {
    std::lock_guard lock(mu_);  // a 409/410: re-read and try again at once
    dirty_ = true;
  }
}

void Daemon::publish_loop() {
  while (true) {
    {
      std::unique_lock lock(mu_);
      // Wake on new values, at the next retry after an error, and at least every load
      // interval (so the heartbeat and the periodic re-read happen without new data).
      auto until = SteadyClock::now() + options_.load_interval;
      const auto retry = publisher_->next_attempt();
      if (publisher_->consecutive_failures() > 0 && retry < until) until = retry;
      cv_.wait_until(lock, until, [this] { return stopping_ || dirty_; });
      if (stopping_) return;
      dirty_ = false;
    }
    publish_once();
  }
}

}  // namespace weft::agent
