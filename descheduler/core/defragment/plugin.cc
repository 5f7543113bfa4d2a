#include "descheduler/core/defragment/plugin.h"

namespace weft::descheduler::defragment {

Status GangDefragment::balance(const std::vector<int>&, framework::Handle& handle) {
  if (&handle.cluster() != &world_.cluster) return make_error("GangDefragment: the profile runs on another cluster");
  outcome_ = plan_defragment(world_, args_, handle.evictor(), handle.plan(), options_);
  note_outcome(outcome_, handle.plan());
  return {};
}

}  // namespace weft::descheduler::defragment
