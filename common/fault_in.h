// Faulting memory in ahead of its first write, from a thread with time to spare.
#pragma once

#include <cstddef>

namespace weft {

// Makes the whole pages inside [begin, begin + bytes) present and writable (the kernel
// zeroes fresh ones now rather than at their first write). The memory must be allocated
// and stay so for the call; other threads may write to it meanwhile. False when the kernel
// cannot (before Linux 5.14): nothing changed, the pages fault in at first write as usual.
bool fault_in(void* begin, size_t bytes);

}  // namespace weft
