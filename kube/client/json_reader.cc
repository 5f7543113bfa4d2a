#include "kube/client/json_reader.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace weft::kube {

using nlohmann::json;

namespace {

// Bytes a string copies as they are: printable ASCII but the quote and the backslash.
constexpr std::array<bool, 256> plain_bytes() {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x80; ++c) t[c] = c != '"' && c != '\\';
  return t;
}
constexpr auto kPlain = plain_bytes();

// Past the run of plain bytes from `from`.
size_t plain_run_end(std::string_view s, size_t from) {
  while (from < s.size() && kPlain[static_cast<unsigned char>(s[from])]) ++from;
  return from;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// A projection rule for one field: null when the field is dropped.
const json* rule_for(const json& rule, const std::string& key) {
  if (!rule.is_object()) return &rule;   // kept whole
  auto it = rule.find(key);
  if (it == rule.end() || (it->is_boolean() && !it->get<bool>())) return nullptr;
  return &*it;
}

// Walks the text once with an explicit stack (no recursion, so no depth can overflow
// it). A value whose target is null is checked as JSON and not built.
class Reader {
 public:
  Reader(std::string_view text, size_t pos) : s_(text), p_(pos) {}

  size_t pos() const { return p_; }

  void skip_ws() {
    while (p_ < s_.size() && is_space(s_[p_])) ++p_;
  }

  // root null: the value is checked and not built.
  Status read(json* root, const json& keep) {
    json* target = root;
    const json* rule = &keep;
    for (;;) {
      // One value into `target`; a container pushes a frame and goes on to its first member.
      skip_ws();
      if (p_ >= s_.size() || s_[p_] == '\0') return fail("unexpected end of input; expected a value");
      const char c = s_[p_];
      bool opened = false;
      if (c == '{' || c == '[') {
        const bool object = c == '{';
        ++p_;
        if (target) *target = object ? json::object() : json::array();
        skip_ws();
        if (p_ < s_.size() && s_[p_] == (object ? '}' : ']')) {
          ++p_;
        } else {
          stack_.push_back({target, rule, object});
          opened = true;
        }
      } else if (c == '"') {
        if (!target) {
          if (auto s = string(nullptr); !s) return s;
        } else {
          std::string value;
          if (auto s = string(&value); !s) return s;
          *target = std::move(value);
        }
      } else if (c == '-' || is_digit(c)) {
        if (auto s = number(target); !s) return s;
      } else if (auto s = literal(target); !s) {
        return s;
      }
      // The next member of the innermost open container, or the end of containers.
      for (;;) {
        if (stack_.empty()) return {};
        Frame& f = stack_.back();
        if (opened) {
          opened = false;
        } else {
          skip_ws();
          if (p_ >= s_.size()) return fail(f.object ? "expected ',' or '}'" : "expected ',' or ']'");
          if (s_[p_] == (f.object ? '}' : ']')) {
            ++p_;
            stack_.pop_back();
            continue;
          }
          if (s_[p_] != ',') return fail(f.object ? "expected ',' or '}'" : "expected ',' or ']'");
          ++p_;
        }
        if (f.object) {
          skip_ws();
          if (p_ >= s_.size() || s_[p_] != '"') return fail("expected a key");
          if (auto s = string(&key_); !s) return s;
          skip_ws();
          if (p_ >= s_.size() || s_[p_] != ':') return fail("expected ':' after a key");
          ++p_;
          rule = f.container ? rule_for(*f.rule, key_) : nullptr;
          if (rule) {
            auto& members = *f.container->get_ptr<json::object_t*>();
            // The API writes keys in order, so the end is most often the right place; a key
            // met twice keeps its last value, as nlohmann's parser does.
            target = &members.emplace_hint(members.end(), key_, nullptr)->second;
          } else {
            target = nullptr;
          }
        } else if (f.container) {
          auto& elements = *f.container->get_ptr<json::array_t*>();
          elements.emplace_back();
          target = &elements.back();
          rule = f.rule;
        } else {
          target = nullptr;
        }
        break;
      }
    }
  }

 private:
  struct Frame {
    json* container;     // null: checked, not built
    const json* rule;    // the rule of this container (for an array: of its elements)
    bool object;
  };

  Status fail(const std::string& what) const {
    return make_error("syntax error at byte " + std::to_string(p_) + ": " + what);
  }

  Status literal(json* target) {
    static constexpr std::string_view kTrue = "true", kFalse = "false", kNull = "null";
    const std::string_view rest = s_.substr(p_);
    if (rest.substr(0, kTrue.size()) == kTrue) {
      p_ += kTrue.size();
      if (target) *target = true;
    } else if (rest.substr(0, kFalse.size()) == kFalse) {
      p_ += kFalse.size();
      if (target) *target = false;
    } else if (rest.substr(0, kNull.size()) == kNull) {
      p_ += kNull.size();
      if (target) *target = nullptr;
    } else {
      return fail("expected a value");
    }
    return {};
  }

  // JSON's number grammar; integers that fit 64 bits stay integers (unsigned unless
  // negative), the rest are doubles, and a double too large for one is refused.
  Status number(json* target) {
    const size_t start = p_;
    const bool negative = s_[p_] == '-';
    if (negative) ++p_;
    if (p_ >= s_.size() || !is_digit(s_[p_])) return fail("expected a digit");
    if (s_[p_] == '0') {
      ++p_;
    } else {
      while (p_ < s_.size() && is_digit(s_[p_])) ++p_;
    }
    const size_t int_end = p_;
    bool fractional = false;
    if (p_ < s_.size() && s_[p_] == '.') {
      ++p_;
      if (p_ >= s_.size() || !is_digit(s_[p_])) return fail("expected a digit after '.'");
      while (p_ < s_.size() && is_digit(s_[p_])) ++p_;
      fractional = true;
    }
    if (p_ < s_.size() && (s_[p_] == 'e' || s_[p_] == 'E')) {
      ++p_;
      if (p_ < s_.size() && (s_[p_] == '+' || s_[p_] == '-')) ++p_;
      if (p_ >= s_.size() || !is_digit(s_[p_])) return fail("expected a digit in the exponent");
      while (p_ < s_.size() && is_digit(s_[p_])) ++p_;
      fractional = true;
    }
    if (!fractional) {
      uint64_t magnitude = 0;
      bool fits = true;
      for (size_t i = start + (negative ? 1 : 0); i < int_end && fits; ++i) {
        const uint64_t digit = static_cast<uint64_t>(s_[i] - '0');
        if (magnitude > (UINT64_MAX - digit) / 10) fits = false;
        else magnitude = magnitude * 10 + digit;
      }
      if (fits && !negative) {
        if (target) *target = magnitude;
        return {};
      }
      if (fits && magnitude <= uint64_t{1} << 63) {
        if (target) *target = magnitude == uint64_t{1} << 63 ? INT64_MIN : -static_cast<int64_t>(magnitude);
        return {};
      }
      // Too large for 64 bits: a double, as nlohmann reads it.
    }
    // The grammar is checked: from_chars reads it exactly as strtod would, without a copy
    // or the locale. Out of range is an overflow or an underflow; strtod tells which.
    double value = 0;
    const char* first = s_.data() + start;
    if (std::from_chars(first, s_.data() + p_, value).ec == std::errc::result_out_of_range) {
      const std::string token(s_.substr(start, p_ - start));
      value = std::strtod(token.c_str(), nullptr);
      if (!std::isfinite(value)) return fail("number overflow: " + token);
    }
    if (target) *target = value;
    return {};
  }

  // One string, p_ at its opening quote; into `out` when given (replacing what it held).
 public:
  Status string(std::string* out) {
    if (out) out->clear();
    ++p_;
    for (;;) {
      const size_t run = p_;
      p_ = plain_run_end(s_, p_);
      if (out) out->append(s_.data() + run, p_ - run);
      if (p_ >= s_.size()) return fail("unterminated string");
      const auto c = static_cast<unsigned char>(s_[p_]);
      if (c == '"') {
        ++p_;
        return {};
      }
      if (c == '\\') {
        if (auto s = escape(out); !s) return s;
      } else if (c < 0x20) {
        return fail("control character in a string (it must be escaped)");
      } else if (auto s = utf8_sequence(out); !s) {
        return s;
      }
    }
  }


 private:
  // The well-formed UTF-8 byte sequences of Unicode's table 3-7; no overlong forms, no
  // surrogates, nothing past U+10FFFF.
  Status utf8_sequence(std::string* out) {
    const auto lead = static_cast<unsigned char>(s_[p_]);
    int length;
    unsigned char low = 0x80, high = 0xBF;   // the range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return fail("invalid UTF-8 byte in a string");
    }
    if (p_ + static_cast<size_t>(length) > s_.size()) return fail("invalid UTF-8 byte in a string");
    for (int i = 1; i < length; ++i) {
      const auto b = static_cast<unsigned char>(s_[p_ + static_cast<size_t>(i)]);
      if (b < (i == 1 ? low : 0x80) || b > (i == 1 ? high : 0xBF)) return fail("invalid UTF-8 byte in a string");
    }
    if (out) out->append(s_.data() + p_, static_cast<size_t>(length));
    p_ += static_cast<size_t>(length);
    return {};
  }

  bool hex4(size_t at, uint32_t& code) const {
    if (at + 4 > s_.size()) return false;
    code = 0;
    for (size_t i = at; i < at + 4; ++i) {
      const char h = s_[i];
      uint32_t v;
      if (h >= '0' && h <= '9') v = static_cast<uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f') v = static_cast<uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') v = static_cast<uint32_t>(h - 'A' + 10);
      else return false;
      code = code * 16 + v;
    }
    return true;
  }

  Status escape(std::string* out) {   // p_ at the backslash
    if (p_ + 1 >= s_.size()) return fail("unterminated string");
    const char e = s_[p_ + 1];
    char plain = 0;
    switch (e) {
      case '"': plain = '"'; break;
      case '\\': plain = '\\'; break;
      case '/': plain = '/'; break;
      case 'b': plain = '\b'; break;
      case 'f': plain = '\f'; break;
      case 'n': plain = '\n'; break;
      case 'r': plain = '\r'; break;
      case 't': plain = '\t'; break;
      case 'u': break;
      default: return fail("invalid escape in a string");
    }
    if (e != 'u') {
      if (out) out->push_back(plain);
      p_ += 2;
      return {};
    }
    uint32_t code;
    if (!hex4(p_ + 2, code)) return fail("'\\u' must be followed by 4 hex digits");
    p_ += 6;
    if (code >= 0xDC00 && code <= 0xDFFF) return fail("a low surrogate without a high one before it");
    if (code >= 0xD800 && code <= 0xDBFF) {
      uint32_t low;
      if (p_ + 1 >= s_.size() || s_[p_] != '\\' || s_[p_ + 1] != 'u' || !hex4(p_ + 2, low) || low < 0xDC00 ||
          low > 0xDFFF)
        return fail("a high surrogate must be followed by '\\u' and a low one");
      p_ += 6;
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    if (!out) return {};
    if (code < 0x80) {
      out->push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (code >> 6)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (code >> 12)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (code >> 18)));
      out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
    return {};
  }

  std::string_view s_;
  size_t p_;
  std::vector<Frame> stack_;
  std::string key_;   // the key being read, reused
};

}  // namespace

Result<json> read_json_value(std::string_view text, size_t& pos, const json& keep) {
  Reader reader(text, pos);
  json out;
  if (auto s = reader.read(&out, keep); !s) return s.error();
  pos = reader.pos();
  return out;
}

Status skip_json_value(std::string_view text, size_t& pos) {
  Reader reader(text, pos);
  if (auto s = reader.read(nullptr, nullptr); !s) return s;
  pos = reader.pos();
  return {};
}

Status read_json_string(std::string_view text, size_t& pos, std::string_view& out, std::string& unescaped) {
  if (pos >= text.size() || text[pos] != '"')
    return make_error("syntax error at byte " + std::to_string(pos) + ": expected a string");
  // Most strings (keys, names, times) are plain bytes up to their closing quote: taken
  // whole, without a Reader. Any other byte is read the general way from the start.
  const size_t end = plain_run_end(text, pos + 1);
  if (end < text.size() && text[end] == '"') {
    out = text.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    return {};
  }
  Reader reader(text, pos);
  if (auto s = reader.string(&unescaped); !s) return s;
  pos = reader.pos();
  out = unescaped;
  return {};
}

Status read_json_string(std::string_view text, size_t& pos, std::string& out) {
  std::string_view read;
  if (auto s = read_json_string(text, pos, read, out); !s) return s;
  if (read.data() != out.data()) out.assign(read);
  return {};
}

Result<json> read_json(std::string_view text, const json& keep) {
  size_t pos = 0;
  // A UTF-8 byte-order mark may open the text.
  if (!text.empty() && static_cast<unsigned char>(text[0]) == 0xEF) {
    if (text.substr(0, 3) != "\xEF\xBB\xBF") return make_error("syntax error at byte 0: expected a value");
    pos = 3;
  }
  auto value = read_json_value(text, pos, keep);
  if (!value) return value.error();
  while (pos < text.size() && is_space(text[pos])) ++pos;
  // nlohmann's parser takes a NUL byte for the end of the input.
  if (pos < text.size() && text[pos] != '\0')
    return make_error("syntax error at byte " + std::to_string(pos) + ": unexpected text after the value");
  return value;
}

}  // namespace weft::kube
