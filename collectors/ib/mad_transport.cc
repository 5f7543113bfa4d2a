#include "collectors/ib/mad_transport.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace weft::ib {

namespace {

class PipelinedTransport final : public MadTransport {
 public:
  explicit PipelinedTransport(std::unique_ptr<MadPort> port) : port_(std::move(port)) {}

  std::vector<Result<Bytes>> exchange(std::span<const MadRequest> requests, const MadPolicy& policy) override {
    std::vector<Result<Bytes>> out(requests.size(), Result<Bytes>(make_error("not sent")));
    struct Flight { size_t index; int attempts; Clock::time_point sent; };
    std::map<uint32_t, Flight> inflight;   // TID low 32 bits -> request
    size_t next = 0;
    const size_t window = std::max<size_t>(1, policy.window);

    auto send = [&](size_t index, int attempts) {
      const uint32_t tid = ++tid_;
      if (auto ok = port_->send(requests[index], tid, policy.timeout); !ok) {
        out[index] = ok.error();
        return;
      }
      inflight[tid] = Flight{index, attempts, Clock::now()};
    };

    while (next < requests.size() || !inflight.empty()) {
      while (next < requests.size() && inflight.size() < window) send(next++, 1);
      if (inflight.empty()) continue;
      const auto now = Clock::now();
      if (now >= policy.deadline) {
        for (auto& [tid, f] : inflight) out[f.index] = make_error("probe deadline reached before a reply");
        for (; next < requests.size(); ++next) out[next] = make_error("probe deadline reached before sending");
        break;
      }
      // Resend what timed out (a fresh TID, so a late reply to the old one is ignored).
      auto earliest = Clock::time_point::max();
      for (auto it = inflight.begin(); it != inflight.end();) {
        const auto expiry = it->second.sent + policy.timeout;
        if (expiry <= now) {
          Flight f = it->second;
          it = inflight.erase(it);
          if (f.attempts > policy.retries) {
            out[f.index] = make_error(fmt::format("no reply after {} attempts of {} ms", f.attempts, policy.timeout.count()));
          } else {
            send(f.index, f.attempts + 1);
          }
          continue;
        }
        earliest = std::min(earliest, expiry);
        ++it;
      }
      if (inflight.empty()) continue;
      earliest = std::min(earliest, policy.deadline);
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(earliest - Clock::now()) +
                        std::chrono::milliseconds(1);
      // Never longer than one attempt's timeout: a clock at time_point::max() must not
      // become a wait that overflows the port's own deadline arithmetic.
      auto got = port_->receive(std::clamp(wait, std::chrono::milliseconds(1), policy.timeout + std::chrono::milliseconds(1)));
      if (!got) continue;
      auto it = inflight.find(got->tid);
      if (it == inflight.end()) continue;   // late reply to an earlier attempt, or not ours
      if (got->lost) {                      // the port's own timeout: a lost attempt, resent above
        it->second.sent = Clock::time_point::min();
        continue;
      }
      out[it->second.index] = std::move(got->mad);
      inflight.erase(it);
    }
    return out;
  }

 private:
  std::unique_ptr<MadPort> port_;
  uint32_t tid_ = 0x5745;   // arbitrary start; the kernel owns the high 32 bits
};

}  // namespace

std::unique_ptr<MadTransport> make_pipelined_transport(std::unique_ptr<MadPort> port) {
  return std::make_unique<PipelinedTransport>(std::move(port));
}

std::vector<Result<Bytes>> exchange_checked(MadTransport& transport, std::span<const MadRequest> requests,
                                            const MadPolicy& policy) {
  auto replies = transport.exchange(requests, policy);
  for (size_t i = 0; i < replies.size() && i < requests.size(); ++i) {
    if (!replies[i]) {
      replies[i] = wrap(replies[i].error(), requests[i].what);
    } else if (auto ok = check_reply(requests[i].mad, replies[i].value()); !ok) {
      replies[i] = wrap(ok.error(), requests[i].what);
    }
  }
  while (replies.size() < requests.size()) replies.push_back(make_error(requests[replies.size()].what + ": no reply slot"));
  return replies;
}

}  // namespace weft::ib
