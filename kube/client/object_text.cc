#include "kube/client/object_text.h"

#include "kube/client/json_cursor.h"

namespace weft::kube {

Result<ObjectIdentity> identity_of(std::string_view text) {
  size_t pos = 0;
  auto id = identity_at(text, pos);
  if (!id) return id;
  if (auto s = JsonCursor(text, pos).end(); !s) return s.error();
  return id;
}

Result<ObjectIdentity> identity_at(std::string_view text, size_t& pos) {
  ObjectIdentity id;
  JsonCursor c(text, pos);
  if (c.peek() != '{') return make_error("syntax error at byte " + std::to_string(c.pos()) + ": expected an object");
  auto s = c.members("object", [&](std::string_view key) -> Status {
    if (key != "metadata" || c.peek() != '{') return c.pass_over();
    id = {};   // a metadata met twice: the last one, as a tree keeps it
    return c.members("metadata", [&](std::string_view field) -> Status {
      std::string* into = field == "name"              ? &id.name
                          : field == "namespace"       ? &id.namespace_name
                          : field == "resourceVersion" ? &id.resource_version
                                                       : nullptr;
      if (!into) return c.pass_over();
      into->clear();   // not a string: no value, as key_of reads a tree
      return c.peek() == '"' ? c.string(*into) : c.pass_over();
    });
  });
  if (!s) return s.error();
  pos = c.pos();
  return id;
}

}  // namespace weft::kube
