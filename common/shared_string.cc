#include "common/shared_string.h"

#include <algorithm>
#include <utility>

namespace weft {

SharedString::SharedString(std::string_view text) {
  if (!text.empty()) {
    rep_ = new Rep;
    rep_->text.assign(text);
  }
}

SharedString::SharedString(std::string&& text) {
  if (!text.empty()) {
    rep_ = new Rep;
    rep_->text = std::move(text);
  }
}

SharedString& SharedString::operator=(const SharedString& other) noexcept {
  if (rep_ != other.rep_) {
    other.retain();
    release();
    rep_ = other.rep_;
  }
  return *this;
}

const std::string& SharedString::empty_text() noexcept {
  static const std::string empty;
  return empty;
}

void SharedString::drop() noexcept {
  if (rep_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete rep_;
  rep_ = nullptr;
}

SharedString StringPool::intern(std::string_view text) {
  if (text.empty()) return {};
  const size_t hash = std::hash<std::string_view>()(text);
  std::lock_guard lock(mu_);
  if (2 * (used_ + 1) > slots_.size()) grow();
  Slot& slot = find(text, hash);
  if (slot.text.empty()) {
    slot.hash = hash;
    slot.text = SharedString(text);
    ++used_;
  }
  return slot.text;
}

StringPool::Slot& StringPool::find(std::string_view text, size_t hash) {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    Slot& slot = slots_[i];
    if (slot.text.empty() || (slot.hash == hash && slot.text.view() == text)) return slot;
  }
}

void StringPool::grow() {
  std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(std::max<size_t>(64, 2 * slots_.size())));
  for (Slot& slot : old)
    if (!slot.text.empty()) find(slot.text.view(), slot.hash) = std::move(slot);
}

size_t StringPool::sweep() {
  std::lock_guard lock(mu_);
  // A count of 1 is the pool's own reference; a holder that copies concurrently needs a
  // reference it got from the pool (under this lock) or from a record, so none is lost.
  // Survivors are placed again (a free slot in a probe run would hide what follows it).
  std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(slots_.size()));
  const size_t before = used_;
  used_ = 0;
  for (Slot& slot : old)
    if (!slot.text.empty() && slot.text.use_count() > 1) {
      find(slot.text.view(), slot.hash) = std::move(slot);
      ++used_;
    }
  return before - used_;
}

size_t StringPool::size() const {
  std::lock_guard lock(mu_);
  return used_;
}

}  // namespace weft
