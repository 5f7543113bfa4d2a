// Test support: a kube::Transport whose answers come from a function of the request (no
// network), for client tests that need exact pages, statuses or failures.
//   auto t = std::make_shared<weft::testing::FunctionTransport>([](const kube::HttpRequest& r) { ... });
//   kube::Client client(t);
#pragma once

#include <functional>
#include <string>
#include <utility>

#include "kube/client/transport.h"

namespace weft::testing {

class FunctionTransport final : public kube::Transport {
 public:
  // Called from whichever thread sends (several at once when lists are fetched together).
  using Answer = std::function<kube::HttpResponse(const kube::HttpRequest&)>;
  explicit FunctionTransport(Answer answer) : answer_(std::move(answer)) {}

  Result<kube::HttpResponse> send(const kube::HttpRequest& request, kube::Clock::time_point) override {
    return answer_(request);
  }
  Result<kube::HttpResponse> stream(const kube::HttpRequest&, kube::Millis,
                                    const std::function<bool(std::string_view)>&, kube::CancelToken*) override {
    return make_error("FunctionTransport does not stream");
  }
  std::string address() const override { return "function://api"; }

 private:
  Answer answer_;
};

}  // namespace weft::testing
