// Loading Kubernetes objects from files: multi-document YAML or a JSON List (or a
// single JSON object). Used by weft-scheduler simulate, weft-descheduler plan and
// kube-lite --state. YAML scalars are typed as YAML 1.2 core says (quoted stay strings).
#pragma once

#include <string>
#include <string_view>
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

// The documents of a YAML stream, split on their "---" and "..." marker lines (YAML
// allows a marker at the start of a line nowhere else). Each is loaded alone: yaml-cpp
// 0.7's LoadAll never returns on a stray ',' outside a flow collection (found by
// fuzz/scenario_fuzz.cc). index counts documents as LoadAll did, from 1.
struct YamlDocument {
  std::string_view text;
  int first_line = 0;   // 0-based line of the document's first line in the stream
  int index = 0;
};
std::vector<YamlDocument> split_yaml_documents(std::string_view text);

// YAML text (one document) to JSON with typed scalars.
Result<nlohmann::json> yaml_to_json(const std::string& text, const std::string& name);

}  // namespace weft::kube
