#include "kube/client/list_decoder.h"

#include "kube/client/json_cursor.h"
#include "kube/client/json_reader.h"

namespace weft::kube {

using nlohmann::json;

namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }


// The List's walk; `read_item` reads one item at `pos` (whitespace skipped) and hands it over.
Result<ListMeta> walk_list(std::string_view body, const std::function<Status(size_t& pos)>& read_item) {
  ListMeta meta;
  size_t pos = 0;
  auto skip_ws = [&] {
    while (pos < body.size() && is_space(body[pos])) ++pos;
  };
  auto eat = [&](char c) {
    skip_ws();
    if (pos >= body.size() || body[pos] != c) return false;
    ++pos;
    return true;
  };
  auto broken = [&](const std::string& what) {
    return make_error("response is not valid JSON: " + what + " at byte " + std::to_string(pos));
  };
  auto not_json = [](const Error& e) { return make_error("response is not valid JSON: " + e.message); };
  if (!eat('{')) {
    if (pos < body.size() && body[pos] == '[') return make_error("response is not a List object");
    return broken("expected '{'");
  }
  bool saw_items = false;
  if (!eat('}')) {
    while (true) {
      skip_ws();
      if (pos >= body.size() || body[pos] != '"') return broken("expected a key");
      auto key = read_json_value(body, pos);
      if (!key) return not_json(key.error());
      if (!eat(':')) return broken("expected ':'");
      skip_ws();
      if (*key == "items" && pos < body.size() && body[pos] == '[') {
        // Item by item, so a 100,000-pod list never exists as one tree.
        saw_items = true;
        ++pos;
        if (!eat(']')) {
          while (true) {
            skip_ws();
            if (auto item = read_item(pos); !item) return not_json(item.error());
            ++meta.items;
            if (eat(',')) continue;
            if (eat(']')) break;
            return broken("expected ',' or ']' in items");
          }
        }
      } else {
        auto value = read_json_value(body, pos);
        if (!value) return not_json(value.error());
        if (*key == "items") {
          if (!value->is_null()) return make_error("response is not a List (items is not an array)");
          saw_items = true;
        } else if (*key == "kind") {
          if (value->is_string()) meta.kind = value->get<std::string>();
        } else if (*key == "metadata" && value->is_object()) {
          for (auto [field, into] : {std::pair{"resourceVersion", &meta.resource_version},
                                     std::pair{"continue", &meta.continue_token}}) {
            auto f = value->find(field);
            if (f == value->end() || f->is_null()) continue;
            if (!f->is_string()) return make_error(std::string("list metadata.") + field + " is not a string");
            *into = f->get<std::string>();
          }
        }
      }
      if (eat(',')) continue;
      if (eat('}')) break;
      return broken("expected ',' or '}'");
    }
  }
  skip_ws();
  if (pos != body.size()) return broken("trailing data");
  if (!saw_items) return make_error("response is not a List (no items array)");
  return meta;
}

}  // namespace

Result<ListMeta> decode_list(const std::string& body, const std::function<void(json&&)>& on_item, const json& keep) {
  return walk_list(body, [&](size_t& pos) -> Status {
    auto item = read_json_value(body, pos, keep);
    if (!item) return item.error();
    on_item(std::move(*item));
    return {};
  });
}

Result<ListMeta> decode_list_raw(const std::string& body,
                                 const std::function<void(std::string_view, ObjectIdentity&&)>& on_item) {
  return walk_list(body, [&](size_t& pos) -> Status {
    const size_t start = pos;
    auto id = identity_at(body, pos);
    if (!id) return id.error();
    on_item(std::string_view(body).substr(start, pos - start), std::move(*id));
    return {};
  });
}

std::string continue_of(const std::string& body) {
  std::string token;
  JsonCursor c = JsonCursor::over_checked(body);
  if (c.peek() != '{') return token;
  // Servers write metadata before items; a body that does not is passed over by brackets.
  (void)c.members("list", [&](std::string_view key) -> Status {
    if (key != "metadata" || c.peek() != '{') return c.pass_over();
    auto s = c.members("metadata", [&](std::string_view field) {
      return field == "continue" && c.peek() == '"' ? c.string(token) : c.pass_over();
    });
    if (!s) return s;
    return make_error("read");   // stops the walk: the rest is the decoder's
  });
  return token;
}

Result<ListMeta> decode_list_texts(std::string_view body, const std::function<void(std::string_view)>& on_item) {
  return walk_list(body, [&](size_t& pos) -> Status {
    const size_t start = pos;
    pos = json_value_end(body, pos);
    if (pos == start) return make_error("expected an item at byte " + std::to_string(pos));
    on_item(std::string_view(body).substr(start, pos - start));
    return {};
  });
}

}  // namespace weft::kube
