#include "kube/client/projection.h"

#include <vector>

namespace weft::kube {

using nlohmann::json;

void project(json& object, const json& keep) {
  if (keep.is_boolean() || !keep.is_object()) return;   // true: the whole subtree
  if (object.is_array()) {
    for (auto& element : object) project(element, keep);
    return;
  }
  if (!object.is_object()) return;
  for (auto it = object.begin(); it != object.end();) {
    auto rule = keep.find(it.key());
    if (rule == keep.end() || (rule->is_boolean() && !rule->get<bool>())) {
      it = object.erase(it);
      continue;
    }
    project(it.value(), *rule);
    ++it;
  }
}

namespace {

// nlohmann's SAX events into a tree, skipping every value its rule drops. A rule that is
// not an object keeps its value whole; an object rule names the fields kept of an
// object, and applies to each element of an array.
class ProjectingBuilder {
 public:
  ProjectingBuilder(json& root, const json& keep) : root_(root), root_rule_(&keep) {}

  bool null() { return scalar(nullptr); }
  bool boolean(bool v) { return scalar(v); }
  bool number_integer(json::number_integer_t v) { return scalar(v); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(v); }
  bool number_float(json::number_float_t v, const std::string&) { return scalar(v); }
  bool string(std::string& v) { return scalar(std::move(v)); }
  bool binary(json::binary_t& v) { return scalar(std::move(v)); }
  bool start_object(std::size_t) { return open(json::object()); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(std::string& k) {
    if (skipping_) return true;
    Frame& f = frames_.back();
    if (f.rule->is_object()) {
      auto rule = f.rule->find(k);
      if (rule == f.rule->end() || (rule->is_boolean() && !rule->get<bool>())) {
        skip_next_ = true;
        return true;
      }
      next_rule_ = &*rule;
    } else {
      next_rule_ = f.rule;   // kept whole
    }
    slot_ = &(*f.value)[k];
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    error_ = e.what();
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  struct Frame {
    json* value;
    const json* rule;   // the rule of this value (for an array: of its elements)
  };

  // Where the next value goes and under which rule; false when it is dropped.
  bool place(json** target, const json** rule) {
    if (frames_.empty()) {
      *target = &root_;
      *rule = root_rule_;
      return true;
    }
    Frame& f = frames_.back();
    if (f.value->is_array()) {
      f.value->push_back(nullptr);
      *target = &f.value->back();
      *rule = f.rule;
      return true;
    }
    if (skip_next_) return false;
    *target = slot_;
    *rule = next_rule_;
    return true;
  }

  template <class V>
  bool scalar(V&& v) {
    if (skipping_) return true;
    json* target;
    const json* rule;
    if (!place(&target, &rule)) {
      skip_next_ = false;
      return true;
    }
    *target = json(std::forward<V>(v));
    return true;
  }

  bool open(json&& empty) {
    if (skipping_) {
      ++skipping_;
      return true;
    }
    json* target;
    const json* rule;
    if (!place(&target, &rule)) {
      skip_next_ = false;
      skipping_ = 1;
      return true;
    }
    *target = std::move(empty);
    frames_.push_back({target, rule});
    return true;
  }

  bool close() {
    if (skipping_) {
      --skipping_;
      return true;
    }
    frames_.pop_back();
    return true;
  }

  json& root_;
  const json* root_rule_;
  std::vector<Frame> frames_;
  json* slot_ = nullptr;
  const json* next_rule_ = nullptr;
  bool skip_next_ = false;
  int skipping_ = 0;   // depth inside a dropped object or array
  std::string error_;
};

}  // namespace

Result<json> parse_projected(std::string_view text, const json& keep) {
  json out;
  ProjectingBuilder builder(out, keep);
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const json::exception& e) {
    return make_error(e.what());
  }
  if (!ok) return make_error(builder.error().empty() ? "not valid JSON" : builder.error());
  return out;
}

}  // namespace weft::kube
