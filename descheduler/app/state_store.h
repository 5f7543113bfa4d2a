// The descheduler's memory between --once runs: a ConfigMap whose data["state.json"]
// holds DeschedulerState. Written with the read resourceVersion (409 → read again).
#pragma once

#include <string>

#include "common/result.h"
#include "descheduler/core/state.h"
#include "kube/client/client.h"

namespace weft::descheduler {

struct ObjectRef {
  std::string ns, name;
  std::string text() const { return ns + "/" + name; }
};
// "ns/name"; flag names the option for the error.
Result<ObjectRef> parse_object_ref(const std::string& text, const std::string& flag);

class StateStore {
 public:
  StateStore(kube::Client& client, ObjectRef ref) : client_(client), ref_(std::move(ref)) {}
  // A missing ConfigMap is an empty state; an unreadable one is an error naming it.
  Result<DeschedulerState> load();
  Status save(const DeschedulerState& state);

 private:
  kube::Client& client_;
  ObjectRef ref_;
};

}  // namespace weft::descheduler
