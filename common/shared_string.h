// An immutable string that copies by reference, and a pool that makes equal strings one.
//
// The scheduler and descheduler keep a record per pod of the cluster (100,000 and more),
// and most of their string fields repeat across pods: namespaces, node names, phases,
// priority classes, PodGroups, owner kinds. A SharedString is one pointer (8 bytes, not
// std::string's 32) and a copy only counts a reference, so the cache's record and each
// cycle's copy of it share one text. A StringPool, owned by whoever decodes (a cache, a
// builder), hands out the same SharedString for equal texts.
//
// Reads see a const std::string (implicit conversion), so code that only reads the field
// does not change. Construction from a text is explicit and assignment allocates an
// unshared copy: the pool is the only place that shares.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace weft {

class SharedString {
 public:
  SharedString() noexcept = default;
  explicit SharedString(std::string_view text);
  explicit SharedString(std::string&& text);
  explicit SharedString(const std::string& text) : SharedString(std::string_view(text)) {}
  explicit SharedString(const char* text) : SharedString(std::string_view(text)) {}
  SharedString(const SharedString& other) noexcept : rep_(other.rep_) { retain(); }
  SharedString(SharedString&& other) noexcept : rep_(other.rep_) { other.rep_ = nullptr; }
  ~SharedString() { release(); }

  SharedString& operator=(const SharedString& other) noexcept;
  SharedString& operator=(SharedString&& other) noexcept {
    if (this != &other) {
      release();
      rep_ = other.rep_;
      other.rep_ = nullptr;
    }
    return *this;
  }
  SharedString& operator=(std::string_view text) { return *this = SharedString(text); }
  SharedString& operator=(const std::string& text) { return *this = SharedString(std::string_view(text)); }
  SharedString& operator=(std::string&& text) { return *this = SharedString(std::move(text)); }
  SharedString& operator=(const char* text) { return *this = SharedString(std::string_view(text)); }

  const std::string& str() const noexcept { return rep_ ? rep_->text : empty_text(); }
  operator const std::string&() const noexcept { return str(); }
  std::string_view view() const noexcept { return str(); }
  const char* c_str() const noexcept { return str().c_str(); }
  const char* data() const noexcept { return str().data(); }
  size_t size() const noexcept { return str().size(); }
  // No Rep is ever built for an empty text, so this reads no memory but the pointer (a
  // pool's probe tests it on every slot it passes).
  bool empty() const noexcept { return rep_ == nullptr; }
  // Holders of this text, the pool's own reference included (0 for the empty string).
  uint32_t use_count() const noexcept { return rep_ ? rep_->refs.load(std::memory_order_relaxed) : 0; }
  bool same_text_object(const SharedString& other) const noexcept { return rep_ == other.rep_; }

  friend bool operator==(const SharedString& a, const SharedString& b) noexcept {
    return a.rep_ == b.rep_ || a.view() == b.view();
  }
  friend bool operator==(const SharedString& a, std::string_view b) noexcept { return a.view() == b; }
  friend bool operator==(const SharedString& a, const std::string& b) noexcept { return a.view() == b; }
  friend bool operator==(const SharedString& a, const char* b) noexcept { return a.view() == b; }
  friend auto operator<=>(const SharedString& a, const SharedString& b) noexcept { return a.view() <=> b.view(); }
  friend auto operator<=>(const SharedString& a, std::string_view b) noexcept { return a.view() <=> b; }
  friend auto operator<=>(const SharedString& a, const std::string& b) noexcept { return a.view() <=> std::string_view(b); }
  friend auto operator<=>(const SharedString& a, const char* b) noexcept { return a.view() <=> std::string_view(b); }

  friend std::string operator+(const SharedString& a, std::string_view b) { return std::string(a.view()).append(b); }
  friend std::string operator+(std::string_view a, const SharedString& b) { return std::string(a).append(b.view()); }
  friend std::string operator+(const SharedString& a, const SharedString& b) { return a + b.view(); }
  friend std::string operator+(const SharedString& a, const char* b) { return a + std::string_view(b); }
  friend std::string operator+(const char* a, const SharedString& b) { return std::string_view(a) + b; }
  friend std::string operator+(const SharedString& a, const std::string& b) { return a + std::string_view(b); }
  friend std::string operator+(const std::string& a, const SharedString& b) { return std::string_view(a) + b; }
  friend std::string operator+(std::string&& a, const SharedString& b) { return std::move(a.append(b.view())); }

  friend std::ostream& operator<<(std::ostream& out, const SharedString& s) { return out << s.view(); }

 private:
  struct Rep {
    std::atomic<uint32_t> refs{1};
    std::string text;
  };
  static const std::string& empty_text() noexcept;
  void retain() const noexcept {
    if (rep_) rep_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  // Inline for the null test: most releases are of moved-from records' fields.
  void release() noexcept {
    if (rep_) drop();
  }
  void drop() noexcept;   // rep_ is set: one reference less

  Rep* rep_ = nullptr;
};

// Hands out one SharedString per distinct text. Thread-safe (watch threads decode in
// parallel). Texts no record holds any more are dropped by sweep(), which a long-lived
// owner calls now and then (a cache: once per cycle); a pool never grows past the texts
// in use plus what arrived since the last sweep.
class StringPool {
 public:
  SharedString intern(std::string_view text);
  // Drops the texts only the pool holds; returns how many it dropped.
  size_t sweep();
  size_t size() const;

 private:
  // An open-addressed table (linear probing, at most half full): a lookup reads one slot,
  // whose hash is compared before its text, rather than a bucket and then a chain of nodes
  // (a decoder interns some ten texts per pod, so each cache miss counts).
  struct Slot {
    size_t hash = 0;
    SharedString text;   // empty: a free slot
  };
  // The slot holding `text`, else the free slot where it goes.
  Slot& find(std::string_view text, size_t hash);
  void grow();

  mutable std::mutex mu_;
  std::vector<Slot> slots_;   // a power of two in size, or none yet
  size_t used_ = 0;
};

// Interns through the pool when there is one, else makes an unshared copy (decoders take
// an optional pool: a one-shot caller need not keep one).
inline SharedString shared_text(StringPool* pool, std::string_view text) {
  return pool ? pool->intern(text) : SharedString(text);
}

}  // namespace weft

template <>
struct std::hash<weft::SharedString> {
  size_t operator()(const weft::SharedString& s) const noexcept { return std::hash<std::string_view>()(s.view()); }
};
