// Label selectors (matchLabels/matchExpressions and the string form), field
// selectors, and required node affinity.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "common/shared_string.h"

namespace weft::kube {

using Labels = std::map<std::string, std::string>;

// Labels as a record kept for every pod holds them: keys and values are pooled shared
// texts (16 bytes a label, against a map node of ~100), sorted by key.
class InternedLabels {
 public:
  InternedLabels() = default;
  InternedLabels(const Labels& labels, StringPool* pool);
  // Already sorted by key, each key once (as a JSON object's keys are).
  static InternedLabels from_sorted(std::vector<std::pair<SharedString, SharedString>> sorted);
  const std::string* find(std::string_view key) const;   // the value, null when absent
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  std::vector<std::pair<SharedString, SharedString>> items_;
};

struct Requirement {
  enum class Op { In, NotIn, Exists, DoesNotExist, Equals, NotEquals, Gt, Lt };
  std::string key;
  Op op = Op::Exists;
  std::vector<std::string> values;
  bool matches(const Labels& labels) const;
  bool matches(const InternedLabels& labels) const;
  // The one rule both use: the value the object has for `key`, null when it has none.
  bool matches_value(const std::string* value) const;
};

// Whether a selector's keys and values must be label keys and values: upstream's
// LabelSelectorAsSelector and labels.Parse check them (objects read from the API server
// were checked there).
enum class LabelSyntax { Unchecked, Checked };

class LabelSelector {
 public:
  // {matchLabels:{..}, matchExpressions:[{key,operator,values}]}; null/absent selects everything.
  // Requirement by requirement (matchLabels by key, then matchExpressions in order), the
  // first with a problem is refused with every problem it has, one a line, as
  // labels.NewRequirement aggregates them: its key, its number of values for the operator,
  // then each value. An unknown operator is refused alone (LabelSelectorAsSelector).
  static Result<LabelSelector> from_json(const nlohmann::json& selector, LabelSyntax syntax = LabelSyntax::Unchecked);
  // "app=web,tier!=db,env in (a,b),!legacy,release" (as kubectl -l and ?labelSelector=);
  // each term checked as from_json checks a requirement.
  static Result<LabelSelector> parse(const std::string& text, LabelSyntax syntax = LabelSyntax::Unchecked);
  bool matches(const Labels& labels) const;
  bool matches(const InternedLabels& labels) const;
  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  std::vector<Requirement> requirements_;
};

// "metadata.name=a,spec.nodeName!=b,status.phase=Running": each field a dotted path in the object.
// An empty value matches an absent field ("spec.nodeName=" selects unbound pods).
class FieldSelector {
 public:
  static Result<FieldSelector> parse(const std::string& text);
  bool matches(const nlohmann::json& object) const;
  bool empty() const { return terms_.empty(); }
  // The value an equality term requires of this path (for index lookups), if any.
  const std::string* required_value(const std::string& path) const;

 private:
  struct Term {
    std::string path;
    bool equal = true;
    std::string value;
  };
  std::vector<Term> terms_;
};

// spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution plus spec.nodeSelector.
// Terms are ORed, expressions within a term ANDed; matchFields supports metadata.name.
class NodeAffinity {
 public:
  static Result<NodeAffinity> from_pod(const nlohmann::json& pod);
  bool matches(const std::string& node_name, const Labels& node_labels) const;
  bool matches(const std::string& node_name, const InternedLabels& node_labels) const;
  bool empty() const { return node_selector_.empty() && terms_.empty(); }

 private:
  template <typename NodeLabels>
  bool matches_labels(const std::string& node_name, const NodeLabels& node_labels) const;
  struct Term {
    std::vector<Requirement> label_requirements;
    std::vector<Requirement> field_requirements;  // key "metadata.name"
  };
  Labels node_selector_;
  std::vector<Term> terms_;
  bool has_required_ = false;
};

// A field as a field selector compares it: the string, other values as JSON text, and ""
// when absent or null.
std::string field_value(const nlohmann::json& object, const std::string& path);

Labels labels_of(const nlohmann::json& object);       // metadata.labels
Labels annotations_of(const nlohmann::json& object);  // metadata.annotations
InternedLabels interned_labels_of(const nlohmann::json& object, StringPool* pool);   // metadata.labels

}  // namespace weft::kube
