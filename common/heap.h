// The heap of a process that holds a whole cluster in memory: 2 MiB pages (transparent
// huge pages) instead of 4 KiB ones, so the kernel faults its memory in 512 times less
// often. On a virtual machine a page fault costs microseconds: building the cluster of
// 100,000 pods faulted 57,000 times, a third of `weft-descheduler run`'s CPU, and 20,000
// times with these. Call first thing in main; memory taken before keeps its pages. With
// mimalloc linked (the daemons) it asks mimalloc for them; otherwise it does nothing.
#pragma once

namespace weft {

void prefer_huge_pages();

}  // namespace weft
