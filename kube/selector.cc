#include "kube/selector.h"

#include "kube/objects.h"
#include "kube/workload.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace weft::kube {
namespace {

std::string trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

// Splits on commas outside parentheses: "a in (x,y),b" -> ["a in (x,y)", "b"].
Result<std::vector<std::string>> split_top_level(const std::string& text) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')' && --depth < 0) return make_error("selector '" + text + "': unbalanced ')'");
    if (c == ',' && depth == 0) {
      parts.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (depth != 0) return make_error("selector '" + text + "': unbalanced '('");
  parts.push_back(trim(cur));
  return parts;
}

bool valid_key(const std::string& k) {
  if (k.empty()) return false;
  return std::all_of(k.begin(), k.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '/';
  });
}

Result<Requirement::Op> op_from_name(const std::string& name, bool allow_numeric) {
  using Op = Requirement::Op;
  if (name == "In") return Op::In;
  if (name == "NotIn") return Op::NotIn;
  if (name == "Exists") return Op::Exists;
  if (name == "DoesNotExist") return Op::DoesNotExist;
  if (allow_numeric && name == "Gt") return Op::Gt;
  if (allow_numeric && name == "Lt") return Op::Lt;
  return make_error("operator '" + name + "' is not one of In, NotIn, Exists, DoesNotExist" +
                    std::string(allow_numeric ? ", Gt, Lt" : ""));
}

// Where a requirement's problems are: its key, its values, and whether each value is
// named by its index ("values[1]").
struct Places {
  std::string key, values;
  bool indexed = true;
};

// What labels.NewRequirement finds wrong with a requirement, every problem in its order:
// the key, the number of values for the operator, then each value. Label syntax aside, only
// the number of values is checked.
Status requirement_problems(const Requirement& r, LabelSyntax syntax, const Places& at) {
  using Op = Requirement::Op;
  std::vector<std::string> lines;
  const bool checked = syntax == LabelSyntax::Checked;
  if (checked && !valid_label_key(r.key)) lines.push_back(at.key + ": '" + r.key + "' is not a valid label key");
  if ((r.op == Op::In || r.op == Op::NotIn) && r.values.empty())
    lines.push_back(at.values + ": In/NotIn need at least one value");
  if ((r.op == Op::Exists || r.op == Op::DoesNotExist) && !r.values.empty())
    lines.push_back(at.values + ": Exists/DoesNotExist take no values");
  if ((r.op == Op::Gt || r.op == Op::Lt) && r.values.size() != 1)
    lines.push_back(at.values + ": Gt/Lt need exactly one integer value");
  for (size_t i = 0; checked && i < r.values.size(); ++i)
    if (!valid_label_value(r.values[i]))
      lines.push_back((at.indexed ? at.values + "[" + std::to_string(i) + "]" : at.values) + ": '" + r.values[i] +
                      "' (of " + r.key + ") is not a valid label value");
  if (lines.empty()) return {};
  std::string text;
  for (const auto& line : lines) text += (text.empty() ? "" : "\n") + line;
  return make_error(text);
}

Result<Requirement> requirement_from_json(const nlohmann::json& e, const std::string& where, bool allow_numeric,
                                          LabelSyntax syntax) {
  if (!e.is_object()) return make_error(where + ".key: missing");
  Requirement r;
  // A key absent is "", which label syntax refuses with the rest (upstream decodes it so).
  if (auto key = e.find("key"); key != e.end() && key->is_string()) r.key = key->get<std::string>();
  else if (syntax == LabelSyntax::Unchecked || (key != e.end() && !key->is_null())) return make_error(where + ".key: missing");
  auto op_name = optional_string(e, "operator", where);
  if (!op_name) return op_name.error();
  auto op = op_from_name(*op_name, allow_numeric);
  if (!op) return wrap(op.error(), where + ".operator");
  r.op = *op;
  if (e.contains("values") && e["values"].is_array())
    for (const auto& v : e["values"]) r.values.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  if (Status s = requirement_problems(r, syntax, {where + ".key", where + ".values"}); !s) return s.error();
  return r;
}

Result<Requirement> parse_requirement(const std::string& text) {
  using Op = Requirement::Op;
  Requirement r;
  if (!text.empty() && text[0] == '!') {
    r.key = trim(text.substr(1));
    r.op = Op::DoesNotExist;
  } else if (auto p = text.find("!="); p != std::string::npos) {
    r.key = trim(text.substr(0, p));
    r.op = Op::NotEquals;
    r.values = {trim(text.substr(p + 2))};
  } else if (auto p2 = text.find("=="); p2 != std::string::npos) {
    r.key = trim(text.substr(0, p2));
    r.op = Op::Equals;
    r.values = {trim(text.substr(p2 + 2))};
  } else if (auto p3 = text.find('='); p3 != std::string::npos) {
    r.key = trim(text.substr(0, p3));
    r.op = Op::Equals;
    r.values = {trim(text.substr(p3 + 1))};
  } else if (auto open = text.find('('); open != std::string::npos) {
    auto close = text.rfind(')');
    if (close == std::string::npos || close < open || trim(text.substr(close + 1)) != "")
      return make_error("selector term '" + text + "': expected 'key in (a,b)'");
    std::string head = trim(text.substr(0, open));
    auto sp = head.find_last_of(" \t");
    if (sp == std::string::npos) return make_error("selector term '" + text + "': expected 'key in (a,b)'");
    r.key = trim(head.substr(0, sp));
    std::string op = trim(head.substr(sp + 1));
    if (op == "in")
      r.op = Op::In;
    else if (op == "notin")
      r.op = Op::NotIn;
    else
      return make_error("selector term '" + text + "': unknown operator '" + op + "'");
    std::string inner = text.substr(open + 1, close - open - 1);
    size_t start = 0;
    for (;;) {
      auto comma = inner.find(',', start);
      std::string v = trim(inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (!v.empty()) r.values.push_back(v);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (r.values.empty()) return make_error("selector term '" + text + "': empty value set");
  } else {
    r.key = trim(text);
    r.op = Op::Exists;
  }
  if (!valid_key(r.key)) return make_error("selector term '" + text + "': invalid key '" + r.key + "'");
  return r;
}

}  // namespace

namespace {
const std::string* value_at(const Labels& labels, const std::string& key) {
  auto it = labels.find(key);
  return it == labels.end() ? nullptr : &it->second;
}
const std::string* value_at(const InternedLabels& labels, const std::string& key) { return labels.find(key); }

template <typename AnyLabels>
bool all_match(const std::vector<Requirement>& requirements, const AnyLabels& labels) {
  for (const auto& r : requirements)
    if (!r.matches_value(value_at(labels, r.key))) return false;
  return true;
}
}  // namespace

bool Requirement::matches(const Labels& labels) const { return matches_value(value_at(labels, key)); }

bool Requirement::matches(const InternedLabels& labels) const { return matches_value(value_at(labels, key)); }

bool Requirement::matches_value(const std::string* value) const {
  bool has = value != nullptr;
  auto in_values = [&] { return has && std::find(values.begin(), values.end(), *value) != values.end(); };
  switch (op) {
    case Op::In:
    case Op::Equals:
      return in_values();
    case Op::NotIn:
    case Op::NotEquals:
      return !in_values();
    case Op::Exists:
      return has;
    case Op::DoesNotExist:
      return !has;
    case Op::Gt:
    case Op::Lt: {
      if (!has || values.empty()) return false;
      try {
        size_t used = 0;
        long long have = std::stoll(*value, &used);
        if (used != value->size()) return false;
        long long want = std::stoll(values[0]);
        return op == Op::Gt ? have > want : have < want;
      } catch (...) {
        return false;
      }
    }
  }
  return false;
}

Result<LabelSelector> LabelSelector::from_json(const nlohmann::json& selector, LabelSyntax syntax) {
  LabelSelector out;
  if (selector.is_null()) return out;
  if (!selector.is_object()) return make_error("selector: not an object");
  if (auto ml = selector.find("matchLabels"); ml != selector.end() && !ml->is_null()) {
    if (!ml->is_object()) return make_error("selector.matchLabels: not a map");
    for (const auto& [k, v] : ml->items()) {
      const std::string at = "selector.matchLabels." + k;
      if (!v.is_string()) return make_error(at + ": not a string");
      Requirement r{k, Requirement::Op::Equals, {v.get<std::string>()}};
      if (Status s = requirement_problems(r, syntax, {at, at, false}); !s) return s.error();
      out.requirements_.push_back(std::move(r));
    }
  }
  if (auto me = selector.find("matchExpressions"); me != selector.end() && !me->is_null()) {
    if (!me->is_array()) return make_error("selector.matchExpressions: not a list");
    for (size_t i = 0; i < me->size(); ++i) {
      auto r = requirement_from_json((*me)[i], "selector.matchExpressions[" + std::to_string(i) + "]", false, syntax);
      if (!r) return r.error();
      out.requirements_.push_back(std::move(*r));
    }
  }
  return out;
}

Result<LabelSelector> LabelSelector::parse(const std::string& text, LabelSyntax syntax) {
  LabelSelector out;
  if (trim(text).empty()) return out;
  auto parts = split_top_level(text);
  if (!parts) return parts.error();
  for (const auto& p : *parts) {
    if (p.empty()) return make_error("selector '" + text + "': empty term");
    auto r = parse_requirement(p);
    if (!r) return r.error();
    const std::string at = "selector term '" + p + "'";
    if (Status s = requirement_problems(*r, syntax, {at, at, false}); !s) return s.error();
    out.requirements_.push_back(std::move(*r));
  }
  return out;
}

bool LabelSelector::matches(const Labels& labels) const { return all_match(requirements_, labels); }

bool LabelSelector::matches(const InternedLabels& labels) const { return all_match(requirements_, labels); }

InternedLabels::InternedLabels(const Labels& labels, StringPool* pool) {
  items_.reserve(labels.size());
  for (const auto& [k, v] : labels) items_.emplace_back(shared_text(pool, k), shared_text(pool, v));   // map order: sorted
}

InternedLabels InternedLabels::from_sorted(std::vector<std::pair<SharedString, SharedString>> sorted) {
  InternedLabels out;
  out.items_ = std::move(sorted);
  return out;
}

const std::string* InternedLabels::find(std::string_view key) const {
  auto it = std::lower_bound(items_.begin(), items_.end(), key,
                             [](const auto& item, std::string_view k) { return item.first.view() < k; });
  return it != items_.end() && it->first == key ? &it->second.str() : nullptr;
}

Result<FieldSelector> FieldSelector::parse(const std::string& text) {
  FieldSelector out;
  if (trim(text).empty()) return out;
  auto parts = split_top_level(text);
  if (!parts) return parts.error();
  for (const auto& p : *parts) {
    Term t;
    size_t pos, len;
    if ((pos = p.find("!=")) != std::string::npos) {
      t.equal = false, len = 2;
    } else if ((pos = p.find("==")) != std::string::npos) {
      len = 2;
    } else if ((pos = p.find('=')) != std::string::npos) {
      len = 1;
    } else {
      return make_error("field selector '" + text + "': term '" + p + "' has no '=' or '!='");
    }
    t.path = trim(p.substr(0, pos));
    t.value = trim(p.substr(pos + len));
    if (t.path.empty()) return make_error("field selector '" + text + "': empty field name");
    out.terms_.push_back(std::move(t));
  }
  return out;
}

namespace {

// The value at a dotted path; null when a step is missing or not an object.
const nlohmann::json* field_at(const nlohmann::json& object, const std::string& path) {
  const nlohmann::json* cur = &object;
  size_t start = 0;
  for (;;) {
    auto dot = path.find('.', start);
    std::string_view part(path.data() + start, (dot == std::string::npos ? path.size() : dot) - start);
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(part);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (dot == std::string::npos) return cur;
    start = dot + 1;
  }
}

}  // namespace

std::string field_value(const nlohmann::json& object, const std::string& path) {
  const nlohmann::json* v = field_at(object, path);
  if (!v || v->is_null()) return "";
  return v->is_string() ? v->get_ref<const std::string&>() : v->dump();
}

bool FieldSelector::matches(const nlohmann::json& object) const {
  for (const auto& t : terms_) {
    const nlohmann::json* v = field_at(object, t.path);
    // A string compares in place: a List filters every object of a kind by this.
    const bool equal = v && v->is_string() ? v->get_ref<const std::string&>() == t.value
                                           : field_value(object, t.path) == t.value;
    if (equal != t.equal) return false;
  }
  return true;
}

const std::string* FieldSelector::required_value(const std::string& path) const {
  for (const auto& t : terms_)
    if (t.equal && t.path == path) return &t.value;
  return nullptr;
}

Result<NodeAffinity> NodeAffinity::from_pod(const nlohmann::json& pod) {
  NodeAffinity out;
  const auto spec = pod.value("spec", nlohmann::json::object());
  if (auto ns = spec.find("nodeSelector"); ns != spec.end() && ns->is_object()) {
    for (const auto& [k, v] : ns->items()) {
      if (!v.is_string()) return make_error("spec.nodeSelector." + k + ": not a string");
      out.node_selector_[k] = v.get<std::string>();
    }
  }
  const nlohmann::json* req = nullptr;
  if (auto a = spec.find("affinity"); a != spec.end() && a->is_object())
    if (auto na = a->find("nodeAffinity"); na != a->end() && na->is_object())
      if (auto r = na->find("requiredDuringSchedulingIgnoredDuringExecution"); r != na->end() && r->is_object())
        req = &*r;
  if (!req) return out;
  out.has_required_ = true;
  const std::string base = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
  auto terms = req->value("nodeSelectorTerms", nlohmann::json::array());
  if (!terms.is_array()) return make_error(base + ".nodeSelectorTerms: not a list");
  for (size_t i = 0; i < terms.size(); ++i) {
    Term term;
    std::string where = base + ".nodeSelectorTerms[" + std::to_string(i) + "]";
    for (const char* kind : {"matchExpressions", "matchFields"}) {
      auto list = terms[i].value(kind, nlohmann::json::array());
      if (!list.is_array()) return make_error(where + "." + kind + ": not a list");
      for (size_t j = 0; j < list.size(); ++j) {
        auto r = requirement_from_json(list[j], where + "." + kind + "[" + std::to_string(j) + "]", true,
                                       LabelSyntax::Unchecked);
        if (!r) return r.error();
        if (std::string(kind) == "matchFields") {
          if (r->key != "metadata.name")
            return make_error(where + ".matchFields[" + std::to_string(j) + "].key: only metadata.name is supported");
          term.field_requirements.push_back(std::move(*r));
        } else {
          term.label_requirements.push_back(std::move(*r));
        }
      }
    }
    out.terms_.push_back(std::move(term));
  }
  return out;
}

template <typename NodeLabels>
bool NodeAffinity::matches_labels(const std::string& node_name, const NodeLabels& node_labels) const {
  for (const auto& [k, v] : node_selector_) {
    const std::string* have = value_at(node_labels, k);
    if (!have || *have != v) return false;
  }
  if (!has_required_) return true;
  for (const auto& term : terms_) {
    if (term.label_requirements.empty() && term.field_requirements.empty()) continue;  // matches nothing
    bool ok = true;
    for (const auto& r : term.label_requirements) ok = ok && r.matches_value(value_at(node_labels, r.key));
    for (const auto& r : term.field_requirements) ok = ok && r.matches_value(r.key == "metadata.name" ? &node_name : nullptr);
    if (ok) return true;
  }
  return false;
}

bool NodeAffinity::matches(const std::string& node_name, const Labels& node_labels) const {
  return matches_labels(node_name, node_labels);
}

bool NodeAffinity::matches(const std::string& node_name, const InternedLabels& node_labels) const {
  return matches_labels(node_name, node_labels);
}

namespace {
// Each key of metadata.<field>, in key order, with its value as text (a non-string as JSON).
template <typename Visit>
void for_each_string_at(const nlohmann::json& object, const char* field, Visit&& visit) {
  auto md = object.find("metadata");
  if (md == object.end() || !md->is_object()) return;
  auto m = md->find(field);
  if (m == md->end() || !m->is_object()) return;
  for (const auto& [k, v] : m->items()) {
    if (v.is_string()) visit(k, v.template get_ref<const std::string&>());
    else visit(k, v.dump());
  }
}

Labels string_map_at(const nlohmann::json& object, const char* field) {
  Labels out;
  for_each_string_at(object, field, [&](const std::string& k, const std::string& v) { out.emplace_hint(out.end(), k, v); });
  return out;
}
}  // namespace

Labels labels_of(const nlohmann::json& object) { return string_map_at(object, "labels"); }
Labels annotations_of(const nlohmann::json& object) { return string_map_at(object, "annotations"); }

InternedLabels interned_labels_of(const nlohmann::json& object, StringPool* pool) {
  std::vector<std::pair<SharedString, SharedString>> items;
  for_each_string_at(object, "labels", [&](const std::string& k, const std::string& v) {
    items.emplace_back(shared_text(pool, k), shared_text(pool, v));
  });
  return InternedLabels::from_sorted(std::move(items));
}

}  // namespace weft::kube
