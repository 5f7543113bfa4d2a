// Loading Kubernetes objects from files: multi-document YAML or a JSON List (or a
// single JSON object). Used by weft-scheduler simulate, weft-descheduler plan and
// kube-lite --state. YAML scalars are typed as YAML 1.2 core says (quoted stay strings).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::kube {

struct SourcedObject {
  nlohmann::json object;
  std::string file;
  int document = 0;   // 1-based document (or List item) index
  // "file.yaml: document 3 (PodGroup default/train)" for error messages.
  std::string where() const;
};

// Errors name the file, the document and (for YAML syntax errors) line and column.
// Every object must have apiVersion, kind and metadata.name.
Result<std::vector<SourcedObject>> load_objects_file(const std::string& path);
Result<std::vector<SourcedObject>> load_objects_text(const std::string& text, const std::string& name);

// YAML text (one document) to JSON with typed scalars.
Result<nlohmann::json> yaml_to_json(const std::string& text, const std::string& name);

}  // namespace weft::kube
