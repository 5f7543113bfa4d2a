// Walks JSON text in place, for decoders that read a few fields of a big object straight
// into their own records without building a tree (the scheduler's cache decodes every
// pod and node of its watch streams this way). Every value passed over is still checked
// as JSON, so a text the cursor walks to its end is one read_json (json_reader.h) accepts.
//
//   JsonCursor c(text);
//   Status s = c.members("metadata", [&](const std::string& key) {
//     return key == "name" ? c.string_field("metadata.name", name) : c.pass_over();
//   });
//
// Errors name the byte; the typed helpers name the field too ("spec.nodeName: 5 is not a
// string"), as the tree decoders do.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace weft::kube {

// Past the value at `pos` (whitespace before it skipped), brackets counted and strings
// passed whole, without checking it: for text that is checked as it is read after.
size_t json_value_end(std::string_view text, size_t pos);

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
  Result<bool> next_key(std::string& key);    // the next member's key; false at its object's end
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
  Status string_field(const std::string& field, std::string& out);   // null: ""
  Result<bool> object_field(const std::string& field);                // entered; false: null
  Result<bool> array_field(const std::string& field);                 // entered; false: null
  // The object (null: none) member by member: `read` finds the cursor at the member's
  // value and must read or skip it. `read` may stop the walk with an error.
  Status members(const std::string& field, const std::function<Status(const std::string& key)>& read);
  // The array (null: none) element by element, the same way.
  Status elements(const std::string& field, const std::function<Status(size_t index)>& read);

 private:
  void skip_ws();
  Error fail(const std::string& what) const;
  Error not_a(const std::string& field, const char* what);

  std::string_view s_;
  size_t p_;
  std::vector<bool> first_;   // per open container: its next member would be the first
  bool checked_ = false;
};

}  // namespace weft::kube
