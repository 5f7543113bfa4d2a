#include "node-agent/daemon/publisher.h"

#include <algorithm>

namespace weft::agent {

Publisher::Publisher(NodeApi& api, std::string node_name, PublisherOptions options)
    : api_(api), node_(std::move(node_name)), options_(options) {}

Publisher::Result Publisher::fail(const Error& e, Clock::time_point now, bool reread_now) {
  // After any failure the Node is read again: a patch whose answer was lost may have
  // been applied, and a 409/410 means our copy is stale.
  cached_.reset();
  if (reread_now) {
    next_attempt_ = now;
    failures_ = 0;
  } else {
    ++failures_;
    auto delay = options_.backoff_min * (1LL << std::min(failures_ - 1, 16));
    next_attempt_ = now + std::min<std::chrono::milliseconds>(
                              std::chrono::duration_cast<std::chrono::milliseconds>(delay), options_.backoff_max);
  }
  return {Outcome::Failed, e.message, e.code};
}

Publisher::Result Publisher::publish(const NodeMetadata* ib, const std::optional<std::string>& load,
                                     std::chrono::system_clock::time_point load_at, Clock::time_point now) {
  if (now < next_attempt_) return {Outcome::Waiting, "backing off after an API error", 0};
  if (!ib && !load) return {Outcome::NoChange, "nothing probed yet", 0};
  try {
    if (!cached_ || now - cached_at_ >= options_.resync) {
      auto node = api_.get_node(node_);
      if (!node) return fail(node.error(), now, false);
      cached_ = std::move(node.value());
      cached_at_ = now;
    }
    PatchInputs in;
    in.ib = ib;
    in.load = load;
    in.load_at = load_at;
    in.heartbeat = options_.heartbeat;
    in.load_threshold = options_.load_threshold;
    std::string why;
    auto patch = merge_patch_for(*cached_, in, &why);
    if (patch.is_null()) {
      failures_ = 0;
      return {Outcome::NoChange, "", 0};
    }
    auto after = api_.patch_node(node_, patch);
    if (!after) {
      const int code = after.error().code;
      return fail(after.error(), now, code == 409 || code == 410);
    }
    cached_ = std::move(after.value());
    cached_at_ = now;
    failures_ = 0;
    return {Outcome::Patched, why, 0};
  } catch (const std::exception& e) {
    return fail(make_error(std::string("publishing node ") + node_ + ": " + e.what()), now, false);
  }
}

}  // namespace weft::agent
