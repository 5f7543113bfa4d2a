// A List's body as its parts: the head (kind, apiVersion, metadata), the stored objects'
// own texts and the closing "]}". Written to the socket through a small reused buffer, so a
// list of 100,000 pods is never one string of tens of megabytes (its copy and page faults
// were most of the time kube-lite took to serve it).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tools/kube-lite/store.h"

namespace weft::kube_lite {

struct ListBody {
  std::string head;             // up to and including "\"items\":["
  std::vector<ObjectPtr> items;

  size_t size() const;
  std::string text() const;
  // The bytes from `offset` on, in pieces of about a buffer's size; stops when `write` fails.
  bool write_from(size_t offset, const std::function<bool(const char*, size_t)>& write) const;
};

}  // namespace weft::kube_lite
