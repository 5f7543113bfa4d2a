#include "common/shared_string.h"

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

SharedString& SharedString::operator=(SharedString&& other) noexcept {
  if (this != &other) {
    release();
    rep_ = other.rep_;
    other.rep_ = nullptr;
  }
  return *this;
}

const std::string& SharedString::empty_text() noexcept {
  static const std::string empty;
  return empty;
}

void SharedString::release() noexcept {
  if (rep_ && rep_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete rep_;
  rep_ = nullptr;
}

SharedString StringPool::intern(std::string_view text) {
  if (text.empty()) return {};
  std::lock_guard lock(mu_);
  auto it = texts_.find(text);
  if (it != texts_.end()) return it->second;
  SharedString kept(text);
  const std::string_view key = kept.view();
  return texts_.emplace(key, std::move(kept)).first->second;
}

size_t StringPool::sweep() {
  std::lock_guard lock(mu_);
  // A count of 1 is the pool's own reference; a holder that copies concurrently needs a
  // reference it got from the pool (under this lock) or from a record, so none is lost.
  return std::erase_if(texts_, [](const auto& entry) { return entry.second.use_count() == 1; });
}

size_t StringPool::size() const {
  std::lock_guard lock(mu_);
  return texts_.size();
}

}  // namespace weft
