#include "tools/kube-lite/list_body.h"

#include <algorithm>
#include <string_view>

namespace weft::kube_lite {

namespace {

constexpr std::string_view kTail = "]}";

// Every piece of the body in order: head, items with commas between, tail.
template <class Fn>
bool each_piece(const ListBody& body, Fn&& fn) {
  if (!fn(std::string_view(body.head))) return false;
  for (size_t i = 0; i < body.items.size(); ++i) {
    if (i && !fn(std::string_view(","))) return false;
    if (!fn(std::string_view(body.items[i]->text))) return false;
  }
  return fn(kTail);
}

}  // namespace

size_t ListBody::size() const {
  size_t size = head.size() + kTail.size() + (items.empty() ? 0 : items.size() - 1);
  for (const auto& obj : items) size += obj->text.size();
  return size;
}

std::string ListBody::text() const {
  std::string out;
  out.reserve(size());
  each_piece(*this, [&](std::string_view piece) {
    out.append(piece);
    return true;
  });
  return out;
}

bool ListBody::write_from(size_t offset, const std::function<bool(const char*, size_t)>& write) const {
  constexpr size_t kBuffer = 256 * 1024;
  std::string buffer;
  buffer.reserve(kBuffer);
  size_t at = 0;   // where the current piece starts in the body
  bool ok = each_piece(*this, [&](std::string_view piece) {
    const size_t end = at + piece.size();
    if (end > offset) piece.remove_prefix(offset > at ? offset - at : 0);
    else piece = {};
    at = end;
    if (buffer.size() + piece.size() > kBuffer && !buffer.empty()) {
      if (!write(buffer.data(), buffer.size())) return false;
      buffer.clear();
    }
    if (piece.size() >= kBuffer) return write(piece.data(), piece.size());
    buffer.append(piece);
    return true;
  });
  return ok && (buffer.empty() || write(buffer.data(), buffer.size()));
}

}  // namespace weft::kube_lite
