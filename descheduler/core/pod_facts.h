// A pod's eviction facts (descheduler::PodInfo) read in the same pass over its text as
// the scheduler's fields (scheduler::PodTextExtension): one walk of the JSON, no tree.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/shared_string.h"
#include "descheduler/core/plugins/common/pod_status.h"
#include "scheduler/core/pod_fields.h"

namespace weft::scheduler {
struct PodInfo;
}

namespace weft::descheduler {

struct PodInfo;

class PodFactsReader : public scheduler::PodTextExtension {
 public:
  explicit PodFactsReader(StringPool& pool) : pool_(pool) {}

  void restart(Section section) override;
  bool keeps_annotation(std::string_view key) const override;
  Status member(Section section, std::string_view key, kube::JsonCursor& c) override;
  Status container_member(size_t index, std::string_view key, kube::JsonCursor& c) override;
  Status also(Section section, std::string_view key, std::string_view text) override;

  // What the object said of itself: its kind ("" when absent) and whether it has metadata.
  const std::string& kind() const { return kind_; }
  bool has_metadata() const { return has_metadata_; }
  // The pod's eviction facts from what was read, the core's fields `f` and the record
  // scheduler::pod_info_from made of them (`twin`: its pooled texts are shared, not
  // pooled again). Errors name the field.
  Result<PodInfo> facts(const scheduler::PodFields& f, const scheduler::PodInfo& twin) const;

 private:
  struct Owner {
    std::string kind, name, uid;
    bool controller = false;
  };
  Status read_owners(kube::JsonCursor& c);
  Status read_statuses(kube::JsonCursor& c, ContainerState::Kind kind, std::string_view field);
  Status read_conditions(std::string_view text);

  StringPool& pool_;
  std::string kind_;
  bool has_metadata_ = false;
  std::vector<Owner> owners_;
  std::vector<SharedString> images_;   // by container index
  bool requires_node_affinity_ = false;
  SharedString reason_;
  std::string qos_class_;
  std::array<std::vector<ContainerState>, 3> statuses_;   // app, init, ephemeral
  std::vector<PodCondition> conditions_;
};

// Whether a pod whose weft.dev/arrival-cycle annotation is `arrival` arrives in a later
// cycle of a scenario; errors name `where` and the annotation.
Result<bool> arrives_later(const std::string& arrival, const std::string& where);

}  // namespace weft::descheduler
