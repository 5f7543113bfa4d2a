#include "collectors/ib/mad_transport.h"

namespace weft::ib {

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
