#include "descheduler/core/plugins/LoadAware/load_aware.h"

namespace weft::descheduler::plugins {

Status LoadAware::balance(const std::vector<int>& nodes, framework::Handle& handle) {
  return balance_load(handle.cluster(), nodes, handle.load(), args_, handle.state(), options_, handle.evictor(),
                      handle.plan());
}

}  // namespace weft::descheduler::plugins
