// Every MAD reply the IB collector decodes: the first byte picks the decoder (header
// and reply matching, NodeInfo, NodeDescription, PortInfo, SMInfo, SA NodeRecord
// tables, PerfMgt PortCounters and PortCountersExtended), the rest is the MAD.
#include <span>
#include <vector>

#include "collectors/ib/attributes.h"
#include "collectors/ib/mad.h"
#include "fuzz/fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // A copy of exactly the reply's size, so ASan sees any read past its end.
  const std::vector<uint8_t> mad(data + 1, data + size);
  const std::span<const uint8_t> reply(mad);
  namespace ib = weft::ib;
  switch (data[0] % 8) {
    case 0: {
      auto h = ib::parse_header(reply);
      if (!h) break;
      // The request the collector would have sent for such a reply, with its TID, so
      // the check goes past the matching and into the lengths and status.
      ib::Bytes request;
      if (h->mgmt_class == ib::kClassSa) {
        request = ib::sa_node_records(1, 0).mad;
      } else if (h->mgmt_class == ib::kClassPerf) {
        request = ib::perf_get(1, h->attr_id, 1).mad;
      } else {
        auto smp = ib::smp_get(ib::MadDestination{.dr_path = {0}}, h->attr_id, h->attr_mod);
        if (!smp) break;
        request = smp->mad;
      }
      ib::put_be(request, 8, 8, h->tid);
      (void)ib::check_reply(request, reply);
      break;
    }
    case 1: (void)ib::parse_node_info(reply); break;
    case 2: (void)ib::parse_node_description(reply); break;
    case 3: (void)ib::parse_port_info(reply); break;
    case 4: (void)ib::parse_sm_info(reply); break;
    case 5: (void)ib::parse_node_records(reply); break;
    case 6: (void)ib::parse_port_counters(reply); break;
    case 7: (void)ib::parse_port_counters_ext(reply); break;
  }
  return 0;
}
