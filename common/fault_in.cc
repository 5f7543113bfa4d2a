#include "common/fault_in.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace weft {

bool fault_in(void* begin, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto start = reinterpret_cast<uintptr_t>(begin);
  const uintptr_t first = (start + page - 1) / page * page;   // pages wholly inside the range
  const uintptr_t end = (start + bytes) / page * page;
  if (end <= first) return true;
  return ::madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE) == 0;
#else
  (void)begin;
  (void)bytes;
  return false;
#endif
}

}  // namespace weft
