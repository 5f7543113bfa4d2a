// The libibumad MAD transport and device list (umad_get_cas_names / umad_get_ca /
// umad_open_port). Works the same on a real HCA and under umad2sim against ibsim.
#pragma once

#include <memory>

#include "collectors/ib/mad_transport.h"

namespace weft::ib {

std::unique_ptr<UmadDevices> make_umad_devices();

}  // namespace weft::ib
