#include "kube/client/json_cursor.h"

#include <cstring>

#include "kube/client/json_reader.h"

namespace weft::kube {

namespace {
bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

size_t past_space(std::string_view s, size_t p) {
  while (p < s.size() && is_space(s[p])) ++p;
  return p;
}

// Past the string whose opening quote is at p, in text known to be JSON. Most of an
// object's bytes are in its strings: quotes are found with memchr, and one preceded by an
// odd run of backslashes is escaped, so the search goes on past it.
size_t string_end(std::string_view s, size_t p) {
  const char* text = s.data();
  for (size_t from = p + 1; from < s.size();) {
    const auto* quote = static_cast<const char*>(std::memchr(text + from, '"', s.size() - from));
    if (!quote) break;
    const auto at = static_cast<size_t>(quote - text);
    size_t backslashes = 0;
    while (at - backslashes > p + 1 && text[at - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return at + 1;
    from = at + 1;
  }
  return s.size();
}

// Past the value at p, in text known to be JSON: brackets counted, strings passed whole.
size_t value_end(std::string_view s, size_t p) {
  const char c = s[p];
  if (c == '"') return string_end(s, p);
  if (c != '{' && c != '[') {
    while (p < s.size() && s[p] != ',' && s[p] != '}' && s[p] != ']' && !is_space(s[p])) ++p;
    return p;
  }
  size_t depth = 0;
  while (p < s.size()) {
    const char ch = s[p];
    if (ch == '"') {
      p = string_end(s, p);
      continue;
    }
    if (ch == '{' || ch == '[') ++depth;
    else if ((ch == '}' || ch == ']') && --depth == 0) return p + 1;
    ++p;
  }
  return s.size();
}
}  // namespace

size_t json_value_end(std::string_view text, size_t pos) {
  pos = past_space(text, pos);
  return pos < text.size() ? value_end(text, pos) : pos;
}

std::string_view json_plain_string_member(std::string_view text, std::string_view key) {
  size_t p = 0;
  auto skip_ws = [&] { p = past_space(text, p); };
  // The text at `from` as one string, unescaped ("" and npos past it when it is not).
  auto plain_string = [&](size_t from, size_t& end) -> std::string_view {
    end = string_end(text, from);
    if (end < from + 2 || text[end - 1] != '"') {   // unterminated
      end = std::string_view::npos;
      return {};
    }
    const std::string_view inside = text.substr(from + 1, end - from - 2);
    if (inside.find('\\') != std::string_view::npos) end = std::string_view::npos;
    return end == std::string_view::npos ? std::string_view() : inside;
  };
  skip_ws();
  if (p >= text.size() || text[p] != '{') return {};
  for (++p;;) {
    skip_ws();
    if (p >= text.size() || text[p] != '"') return {};
    size_t end;
    const std::string_view member = plain_string(p, end);
    if (end == std::string_view::npos) return {};
    p = end;
    skip_ws();
    if (p >= text.size() || text[p] != ':') return {};
    ++p;
    skip_ws();
    if (p >= text.size()) return {};
    if (member == key) {
      if (text[p] != '"') return {};
      const std::string_view value = plain_string(p, end);
      return end == std::string_view::npos ? std::string_view() : value;
    }
    p = value_end(text, p);
    skip_ws();
    if (p >= text.size() || text[p] != ',') return {};
    ++p;
  }
}

void JsonCursor::skip_ws() { p_ = past_space(s_, p_); }

Error JsonCursor::fail(const std::string& what) const {
  return make_error("syntax error at byte " + std::to_string(p_) + ": " + what);
}

char JsonCursor::peek() {
  skip_ws();
  if (p_ >= s_.size()) return '\0';
  const char c = s_[p_];
  switch (c) {
    case '{': case '[': case '"': case 'n': return c;
    case 't': case 'f': return 't';
    default: return c == '-' || (c >= '0' && c <= '9') ? '0' : '\0';
  }
}

Status JsonCursor::enter_object() {
  if (peek() != '{') return fail("expected '{'");
  ++p_;
  first_.push();
  return {};
}

Status JsonCursor::enter_array() {
  if (peek() != '[') return fail("expected '['");
  ++p_;
  first_.push();
  return {};
}

Result<bool> JsonCursor::next_key(std::string_view& key, std::string& unescaped) {
  if (first_.empty()) return fail("not inside an object");
  skip_ws();
  if (p_ < s_.size() && s_[p_] == '}') {
    ++p_;
    first_.pop();
    return false;
  }
  if (!first_.first()) {
    if (p_ >= s_.size() || s_[p_] != ',') return fail("expected ',' or '}'");
    ++p_;
    skip_ws();
  }
  first_.not_first();
  if (p_ >= s_.size() || s_[p_] != '"') return fail("expected a key");
  if (auto s = read_json_string(s_, p_, key, unescaped); !s) return s.error();
  skip_ws();
  if (p_ >= s_.size() || s_[p_] != ':') return fail("expected ':' after a key");
  ++p_;
  return true;
}

Result<bool> JsonCursor::next_key(std::string& key) {
  std::string_view read;
  auto more = next_key(read, key);
  if (more && *more && read.data() != key.data()) key.assign(read);
  return more;
}

Result<bool> JsonCursor::next_element() {
  if (first_.empty()) return fail("not inside an array");
  skip_ws();
  if (p_ < s_.size() && s_[p_] == ']') {
    ++p_;
    first_.pop();
    return false;
  }
  if (!first_.first()) {
    if (p_ >= s_.size() || s_[p_] != ',') return fail("expected ',' or ']'");
    ++p_;
  }
  first_.not_first();
  return true;
}

Status JsonCursor::string(std::string& out) {
  skip_ws();
  return read_json_string(s_, p_, out);
}

Result<std::string_view> JsonCursor::skip() {
  skip_ws();
  const size_t start = p_;
  if (checked_ && p_ < s_.size()) {
    p_ = value_end(s_, p_);
    return s_.substr(start, p_ - start);
  }
  if (auto s = skip_json_value(s_, p_); !s) return s.error();
  return s_.substr(start, p_ - start);
}

Status JsonCursor::pass_over() {
  auto s = skip();
  if (!s) return s.error();
  return {};
}

Status JsonCursor::end() {
  skip_ws();
  if (p_ < s_.size() && s_[p_] != '\0') return fail("unexpected text after the value");
  return {};
}

Error JsonCursor::not_a(std::string_view field, const char* what) {
  const size_t at = p_;
  auto text = skip();
  std::string shown = text ? std::string(text->substr(0, 60)) : "text at byte " + std::to_string(at);
  return make_error(std::string(field) + ": " + shown + " is not " + what);
}

Status JsonCursor::string_field(std::string_view field, std::string& out) {
  switch (peek()) {
    case '"': return string(out);
    case 'n':
      out.clear();
      if (auto s = skip(); !s) return s.error();
      return {};
    default: return not_a(field, "a string");
  }
}

Result<bool> JsonCursor::object_field(std::string_view field) {
  switch (peek()) {
    case '{':
      if (auto s = enter_object(); !s) return s.error();
      return true;
    case 'n':
      if (auto s = skip(); !s) return s.error();
      return false;
    default: return not_a(field, "an object");
  }
}

Result<bool> JsonCursor::array_field(std::string_view field) {
  switch (peek()) {
    case '[':
      if (auto s = enter_array(); !s) return s.error();
      return true;
    case 'n':
      if (auto s = skip(); !s) return s.error();
      return false;
    default: return not_a(field, "an array");
  }
}

}  // namespace weft::kube
