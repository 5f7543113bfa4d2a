// Faulting memory in ahead of its first write, from a thread with time to spare.
#pragma once

#include <cstddef>

namespace weft {

// Makes the whole pages inside [begin, begin + bytes) present and writable (the kernel
// zeroes fresh ones now rather than at their first write). It never changes what memory
// holds: other threads may write to it meanwhile, and memory unmapped meanwhile only makes
// it fail. False when the kernel cannot (before Linux 5.14) or the range is not mapped:
// the pages then fault in at their first write, as usual.
bool fault_in(void* begin, size_t bytes);

}  // namespace weft
