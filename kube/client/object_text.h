// What an informer needs of an object it keeps as text (InformerOptions::raw): its key
// and resourceVersion, read from the JSON text without a tree.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace weft::kube {

struct ObjectIdentity {
  std::string name, namespace_name, resource_version;
  std::string key() const { return namespace_name.empty() ? name : namespace_name + "/" + name; }
};

// metadata.name, metadata.namespace and metadata.resourceVersion (each "" when absent or
// not a string, as key_of() reads a tree). Errors when the text is not a JSON object.
Result<ObjectIdentity> identity_of(std::string_view object_text);
// The same for the object at `pos` (whitespace before it skipped), checked as JSON to its
// end; on success `pos` is just past it.
Result<ObjectIdentity> identity_at(std::string_view text, size_t& pos);

}  // namespace weft::kube
