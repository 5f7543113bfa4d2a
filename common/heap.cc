#include "common/heap.h"

#if __has_include(<mimalloc.h>)
#include <mimalloc.h>
// Weak: a binary that does not link mimalloc (only the daemons do) finds it null.
#pragma weak mi_option_set
#define WEFT_HEAP_MIMALLOC 1
#endif

namespace weft {

void prefer_huge_pages() {
#ifdef WEFT_HEAP_MIMALLOC
  if (mi_option_set != nullptr) mi_option_set(mi_option_large_os_pages, 1);
#endif
}

}  // namespace weft
