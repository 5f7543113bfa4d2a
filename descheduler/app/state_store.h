// The descheduler's memory between runs: a ConfigMap whose data["state.json"] holds
// DeschedulerState, and data["rooms-in-progress.json"] the GangDefragment rooms being
// carried out. Each write is one update of the whole ConfigMap with the read
// resourceVersion (409 → read again): a run killed mid-write leaves the previous
// content or the new one, never a mix, and a key it does not write is kept.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "descheduler/core/planner.h"
#include "descheduler/core/state.h"
#include "kube/client/client.h"

namespace weft::descheduler {

struct ObjectRef {
  std::string ns, name;
  std::string text() const { return ns + "/" + name; }
};
// "ns/name"; flag names the option for the error.
Result<ObjectRef> parse_object_ref(const std::string& text, const std::string& flag);

// A GangDefragment room written down before its reservation and cleared once its
// evictions are done, so that a run killed in between is finished by the next one.
struct RoomInProgress {
  std::string gang;                       // PodGroup key
  std::string reservation;                // the annotation value written on the PodGroup
  std::vector<PlannedEviction> victims;   // ns, name and the node ("from") each leaves
};

// Rooms in progress, kept outside the process (unset: not kept).
struct RoomJournal {
  std::function<Result<std::vector<RoomInProgress>>()> load;
  std::function<Status(const std::vector<RoomInProgress>&)> save;   // an empty list clears it
  explicit operator bool() const { return load && save; }
};

class StateStore {
 public:
  StateStore(kube::Client& client, ObjectRef ref) : client_(client), ref_(std::move(ref)) {}
  // A missing ConfigMap is an empty state; an unreadable one is an error naming it.
  Result<DeschedulerState> load();
  Status save(const DeschedulerState& state);
  Result<std::vector<RoomInProgress>> load_rooms();
  Status save_rooms(const std::vector<RoomInProgress>& rooms);
  RoomJournal journal() {
    return {[this] { return load_rooms(); }, [this](const std::vector<RoomInProgress>& r) { return save_rooms(r); }};
  }

 private:
  Result<nlohmann::json> read_key(const std::string& key);   // null when absent
  Status write_key(const std::string& key, const std::string& text);
  kube::Client& client_;
  ObjectRef ref_;
};

}  // namespace weft::descheduler
