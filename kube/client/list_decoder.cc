#include "kube/client/list_decoder.h"

#include <cstring>

#include "kube/client/projection.h"

namespace weft::kube {

using nlohmann::json;

namespace {

// A light scanner over the List's top level: it finds where each item begins and ends
// (minding strings and escapes) and hands that slice to the full parser. Parsing item
// by item keeps one item's tree alive at a time instead of the whole list's.
class Scanner {
 public:
  explicit Scanner(const std::string& s) : s_(s) {}
  size_t pos = 0;

  void skip_ws() {
    while (pos < s_.size() && (s_[pos] == ' ' || s_[pos] == '\n' || s_[pos] == '\r' || s_[pos] == '\t')) ++pos;
  }
  bool at(char c) {
    skip_ws();
    return pos < s_.size() && s_[pos] == c;
  }
  bool eat(char c) {
    if (!at(c)) return false;
    ++pos;
    return true;
  }
  bool skip_string() {  // pos at the opening quote
    for (++pos; pos < s_.size(); ++pos) {
      if (s_[pos] == '\\') {
        ++pos;
      } else if (s_[pos] == '"') {
        ++pos;
        return true;
      }
    }
    return false;
  }
  bool read_key(std::string& key) {
    skip_ws();
    if (pos >= s_.size() || s_[pos] != '"') return false;
    size_t start = pos + 1;
    if (!skip_string()) return false;
    key.assign(s_, start, pos - 1 - start);
    return true;
  }
  // Moves past one value of any kind; false on an unterminated one.
  bool skip_value() {
    skip_ws();
    if (pos >= s_.size()) return false;
    char c = s_[pos];
    if (c == '"') return skip_string();
    if (c == '{' || c == '[') {
      int depth = 0;
      while (pos < s_.size()) {
        char d = s_[pos];
        if (d == '"') {
          if (!skip_string()) return false;
          continue;
        }
        if (d == '{' || d == '[') ++depth;
        if (d == '}' || d == ']') {
          if (--depth == 0) {
            ++pos;
            return true;
          }
        }
        ++pos;
      }
      return false;
    }
    while (pos < s_.size() && !std::strchr(",}] \n\r\t", s_[pos])) ++pos;
    return true;
  }

 private:
  const std::string& s_;
};

Result<json> parse_slice(const std::string& body, size_t begin, size_t end, const json& keep) {
  if (!keep.is_null()) {
    auto item = parse_projected(std::string_view(body).substr(begin, end - begin), keep);
    if (!item) return make_error("response is not valid JSON (item at byte " + std::to_string(begin) + "): " + item.message());
    return item;
  }
  try {
    return json::parse(body.begin() + static_cast<std::ptrdiff_t>(begin), body.begin() + static_cast<std::ptrdiff_t>(end));
  } catch (const json::exception& e) {   // parse_error, or out_of_range for a number too large
    return make_error("response is not valid JSON (item at byte " + std::to_string(begin) + "): " + e.what());
  }
}

}  // namespace

Result<ListMeta> decode_list(const std::string& body, const std::function<void(json&&)>& on_item, const json& keep) {
  ListMeta meta;
  Scanner sc(body);
  auto broken = [&](const std::string& what) {
    return make_error("response is not valid JSON: " + what + " at byte " + std::to_string(sc.pos));
  };
  if (!sc.eat('{')) {
    sc.skip_ws();
    if (sc.pos < body.size() && body[sc.pos] == '[') return make_error("response is not a List object");
    return broken("expected '{'");
  }
  bool saw_items = false;
  if (!sc.at('}')) {
    while (true) {
      std::string key;
      if (!sc.read_key(key)) return broken("expected a key");
      if (!sc.eat(':')) return broken("expected ':'");
      sc.skip_ws();
      if (key == "items" && sc.at('[')) {
        saw_items = true;
        sc.eat('[');
        if (!sc.eat(']')) {
          while (true) {
            sc.skip_ws();
            size_t start = sc.pos;
            if (!sc.skip_value()) return broken("unterminated item");
            auto item = parse_slice(body, start, sc.pos, keep);
            if (!item) return item.error();
            ++meta.items;
            on_item(std::move(*item));
            if (sc.eat(',')) continue;
            if (sc.eat(']')) break;
            return broken("expected ',' or ']' in items");
          }
        }
      } else {
        size_t start = sc.pos;
        if (!sc.skip_value()) return broken("unterminated value of '" + key + "'");
        if (key == "items") {
          auto v = parse_slice(body, start, sc.pos, nullptr);
          if (!v) return v.error();
          if (!v->is_null()) return make_error("response is not a List (items is not an array)");
          saw_items = true;
        } else if (key == "kind") {
          auto k = parse_slice(body, start, sc.pos, nullptr);
          if (!k) return k.error();
          if (k->is_string()) meta.kind = k->get<std::string>();
        } else if (key == "metadata") {
          auto m = parse_slice(body, start, sc.pos, nullptr);
          if (!m) return m.error();
          if (m->is_object()) {
            for (auto [field, into] : {std::pair{"resourceVersion", &meta.resource_version},
                                       std::pair{"continue", &meta.continue_token}}) {
              auto f = m->find(field);
              if (f == m->end() || f->is_null()) continue;
              if (!f->is_string()) return make_error(std::string("list metadata.") + field + " is not a string");
              *into = f->get<std::string>();
            }
          }
        }
      }
      if (sc.eat(',')) continue;
      if (sc.eat('}')) break;
      return broken("expected ',' or '}'");
    }
  } else {
    sc.eat('}');
  }
  sc.skip_ws();
  if (sc.pos != body.size()) return broken("trailing data");
  if (!saw_items) return make_error("response is not a List (no items array)");
  return meta;
}

}  // namespace weft::kube
