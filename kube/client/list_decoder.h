// Decodes a List response item by item: each item is handed over as soon as it is
// parsed, so a 100,000-pod list never exists as one tree beside the cache.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/client/object_text.h"

namespace weft::kube {

struct ListMeta {
  std::string resource_version;
  std::string continue_token;
  size_t items = 0;
  std::string kind;   // the List's kind, when it says
};

// `keep`: a kube::project() tree each item is decoded straight to (null: whole items).
Result<ListMeta> decode_list(const std::string& body, const std::function<void(nlohmann::json&&)>& on_item,
                             const nlohmann::json& keep = nullptr);

// Each item as its JSON text (checked as JSON, valid during the call; items must be
// objects) and its identity, for decoders that read text themselves (json_cursor.h).
Result<ListMeta> decode_list_raw(const std::string& body,
                                 const std::function<void(std::string_view, ObjectIdentity&&)>& on_item);

// The List's metadata.continue, read ahead of its items (the body is not checked: the
// decoder checks it); "" when there is none.
std::string continue_of(const std::string& body);

// Each item's JSON text, found by its brackets and NOT checked: `on_item` reads it with a
// checking reader (json_cursor.h, read_json), so the text is walked once, not twice.
Result<ListMeta> decode_list_texts(std::string_view body, const std::function<void(std::string_view)>& on_item);

}  // namespace weft::kube
