// Walks JSON text in place, for decoders that read a few fields of a big object straight
// into their own records without building a tree (the scheduler's cache decodes every
// pod and node of its watch streams this way). Every value passed over is still checked
// as JSON, so a text the cursor walks to its end is one read_json (json_reader.h) accepts.
//
//   JsonCursor c(text);
//   Status s = c.members("metadata", [&](std::string_view key) {
//     return key == "name" ? c.string_field("metadata.name", name) : c.pass_over();
//   });
//
// Errors name the byte; the typed helpers name the field too ("spec.nodeName: 5 is not a
// string"), as the tree decoders do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/result.h"

namespace weft::kube {

// Past the value at `pos` (whitespace before it skipped), brackets counted and strings
// passed whole, without checking it: for text that is checked as it is read after.
size_t json_value_end(std::string_view text, size_t pos);

// The string value of the member `key` of the object that `text` holds, when it is there
// without escapes; else "". Found without checking the text: a hint for choosing a reader,
// which checks what it reads.
std::string_view json_plain_string_member(std::string_view text, std::string_view key);

class JsonCursor {
 public:
  explicit JsonCursor(std::string_view text, size_t pos = 0) : s_(text), p_(pos) {}
  // Over text already checked as JSON (an informer's raw object): what is skipped is only
  // scanned for its end, not checked again. Never for text from anywhere else.
  static JsonCursor over_checked(std::string_view text) {
    JsonCursor c(text);
    c.checked_ = true;
    return c;
  }

  // What the next value is: '{', '[', '"', 'n' (null), 't' (true or false), '0' (a
  // number); '\0' at the end of the text or before anything else.
  char peek();
  Status enter_object();                      // at '{'
  // The next member's key; false at its object's end. The view is into the text, or into
  // `unescaped` for a key with escapes.
  Result<bool> next_key(std::string_view& key, std::string& unescaped);
  Result<bool> next_key(std::string& key);    // the same, copied
  Status enter_array();                       // at '['
  Result<bool> next_element();                // true before each element; false at its array's end
  Status string(std::string& out);            // at '"'
  // Passes over the next value, checked; its text.
  Result<std::string_view> skip();
  Status pass_over();   // the same, for a reader that does not need the text
  // Only whitespace is left.
  Status end();
  size_t pos() const { return p_; }
  // The caller read the next value itself, checked, up to `pos` (object_text.h).
  void passed(size_t pos) { p_ = pos; }

  // The same, with `field` named in their errors; null is taken as absent.
  Status string_field(std::string_view field, std::string& out);   // null: ""
  Result<bool> object_field(std::string_view field);                // entered; false: null
  Result<bool> array_field(std::string_view field);                 // entered; false: null
  // The object (null: none) member by member: `read(std::string_view key)` finds the
  // cursor at the member's value and must read or skip it; it may stop the walk with an
  // error. `field` is a text or a function that spells it, called only for an error.
  // (Templates: a decoder calls these for every object of every pod, and a std::function
  // or a field name built per call cost an allocation each.)
  template <class Field, class Read>
  Status members(const Field& field, Read&& read);
  // The array (null: none) element by element, the same way: `read(size_t index)`.
  template <class Field, class Read>
  Status elements(const Field& field, Read&& read);

 private:
  void skip_ws();
  Error fail(const std::string& what) const;
  Error not_a(std::string_view field, const char* what);

  // Per open container, whether its next member would be the first: a bit each, in one
  // word while fewer than 64 are open (decoders make a cursor per object; none allocates).
  class FirstFlags {
   public:
    bool empty() const { return depth_ == 0; }
    void push() {
      if (depth_ < 64) word_ |= uint64_t{1} << depth_;
      else deeper_.push_back(true);
      ++depth_;
    }
    void pop() {
      --depth_;
      if (depth_ >= 64) deeper_.pop_back();
    }
    bool first() const { return depth_ <= 64 ? (word_ >> (depth_ - 1) & 1) != 0 : deeper_.back(); }
    void not_first() {
      if (depth_ <= 64) word_ &= ~(uint64_t{1} << (depth_ - 1));
      else deeper_.back() = false;
    }

   private:
    uint64_t word_ = 0;
    size_t depth_ = 0;
    std::vector<bool> deeper_;   // the 65th open container on
  };

  std::string_view s_;
  size_t p_;
  FirstFlags first_;
  bool checked_ = false;
};

namespace json_cursor_detail {
template <class Field>
std::string spelled(const Field& field) {
  if constexpr (std::is_invocable_v<const Field&>) return field();
  else return std::string(std::string_view(field));
}
}  // namespace json_cursor_detail

template <class Field, class Read>
Status JsonCursor::members(const Field& field, Read&& read) {
  if (const char kind = peek(); kind != '{' && kind != 'n') return not_a(json_cursor_detail::spelled(field), "an object");
  auto entered = object_field("");
  if (!entered) return entered.error();
  if (!*entered) return {};
  std::string unescaped;   // a key's own text when it has escapes (rare; no allocation otherwise)
  std::string_view key;
  for (;;) {
    auto more = next_key(key, unescaped);
    if (!more) return more.error();
    if (!*more) return {};
    if (auto s = read(key); !s) return s;
  }
}

template <class Field, class Read>
Status JsonCursor::elements(const Field& field, Read&& read) {
  if (const char kind = peek(); kind != '[' && kind != 'n') return not_a(json_cursor_detail::spelled(field), "an array");
  auto entered = array_field("");
  if (!entered) return entered.error();
  if (!*entered) return {};
  for (size_t i = 0;; ++i) {
    auto more = next_element();
    if (!more) return more.error();
    if (!*more) return {};
    if (auto s = read(i); !s) return s;
  }
}

}  // namespace weft::kube
