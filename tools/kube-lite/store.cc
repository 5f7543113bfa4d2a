#include "tools/kube-lite/store.h"

#include <algorithm>

#include "kube/selector.h"

namespace weft::kube_lite {

using nlohmann::json;

std::string object_key(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

Store::Store(size_t num_types, size_t event_window)
    : objects_(num_types), window_(std::max<size_t>(event_window, 1)), newest_of_type_(num_types, 0),
      type_changed_(num_types), compacted_of_type_(num_types, 0) {}

ObjectPtr Store::make_stored(json object, uint64_t rv) {
  object["metadata"]["resourceVersion"] = std::to_string(rv);
  auto stored = std::make_shared<StoredObject>();
  stored->text = object.dump();
  stored->value = std::move(object);
  stored->resource_version = rv;
  return stored;
}

std::string watch_line(const std::string& type, const std::string& object_text) {
  std::string line;
  line.reserve(object_text.size() + type.size() + 24);
  line.append("{\"type\":\"").append(type).append("\",\"object\":").append(object_text).append("}\n");
  return line;
}

void Store::record(ChangeEvent event) {
  event.line = std::make_shared<const std::string>(watch_line(event.type, event.object->text));
  const int type_id = event.type_id;
  auto shared = std::make_shared<const ChangeEvent>(std::move(event));
  {
    std::lock_guard lock(events_mu_);
    published_rv_ = shared->resource_version;
    newest_of_type_[type_id] = shared->resource_version;
    events_.push_back(std::move(shared));
    while (events_.size() > window_) {
      compacted_of_type_[events_.front()->type_id] = events_.front()->resource_version;
      events_.pop_front();
    }
  }
  type_changed_[type_id].notify_all();
}

void Store::publish_version(uint64_t rv, bool loaded) {
  std::lock_guard lock(events_mu_);
  published_rv_ = rv;
  if (loaded) loaded_ = rv;
}

void Store::add_index(int type_id, const std::string& path) {
  std::lock_guard lock(mu_);
  Index index{type_id, path, {}};
  for (const auto& [key, obj] : objects_[type_id]) index.keys[kube::field_value(obj->value, path)].insert(key);
  indexes_.push_back(std::move(index));
}

const Store::Index* Store::find_index(int type_id, const std::string& path) const {
  for (const auto& index : indexes_)
    if (index.type_id == type_id && index.path == path) return &index;
  return nullptr;
}

void Store::reindex(int type_id, const std::string& key, const ObjectPtr& before, const ObjectPtr& after) {
  for (auto& index : indexes_) {
    if (index.type_id != type_id) continue;
    std::string was = before ? kube::field_value(before->value, index.path) : "";
    std::string now = after ? kube::field_value(after->value, index.path) : "";
    if (before && after && was == now) continue;
    if (before) {
      auto bucket = index.keys.find(was);
      if (bucket != index.keys.end()) {
        bucket->second.erase(key);
        if (bucket->second.empty()) index.keys.erase(bucket);
      }
    }
    if (after) index.keys[now].insert(key);
  }
}

ObjectPtr Store::Txn::get(int type_id, const std::string& key) const {
  const auto& m = store_.objects_[type_id];
  auto it = m.find(key);
  return it == m.end() ? nullptr : it->second;
}

ObjectPtr Store::Txn::put(int type_id, const std::string& key, json object) {
  uint64_t rv = ++store_.rv_;
  auto stored = store_.make_stored(std::move(object), rv);
  auto& slot = store_.objects_[type_id][key];
  ObjectPtr previous = slot;
  slot = stored;
  store_.reindex(type_id, key, previous, stored);
  store_.record({rv, type_id, key, previous ? "MODIFIED" : "ADDED", stored, previous});
  return stored;
}

ObjectPtr Store::Txn::load(int type_id, const std::string& key, json object) {
  uint64_t rv = ++store_.rv_;
  auto stored = store_.make_stored(std::move(object), rv);
  auto& slot = store_.objects_[type_id][key];
  store_.reindex(type_id, key, slot, stored);
  slot = stored;
  store_.publish_version(rv, /*loaded=*/true);
  return stored;
}

ObjectPtr Store::Txn::erase(int type_id, const std::string& key) {
  auto& m = store_.objects_[type_id];
  auto it = m.find(key);
  if (it == m.end()) return nullptr;
  uint64_t rv = ++store_.rv_;
  auto last = store_.make_stored(it->second->value, rv);
  store_.reindex(type_id, key, it->second, nullptr);
  m.erase(it);
  store_.record({rv, type_id, key, "DELETED", last, nullptr});
  return last;
}

Store::Events Store::events_after(int type_id, uint64_t after, size_t max) {
  std::lock_guard lock(events_mu_);
  Events out;
  out.current = published_rv_;
  out.oldest_available = std::max(loaded_, compacted_of_type_[type_id]);
  if (after < out.oldest_available) {
    out.too_old = true;
    return out;
  }
  auto it = std::upper_bound(events_.begin(), events_.end(), after,
                             [](uint64_t v, const ChangeEventPtr& e) { return v < e->resource_version; });
  for (; it != events_.end() && out.events.size() < max; ++it) out.events.push_back(*it);
  return out;
}

void Store::wait_for_change(int type_id, uint64_t after, std::chrono::milliseconds timeout) {
  std::unique_lock lock(events_mu_);
  type_changed_[type_id].wait_for(lock, timeout, [&] { return shutdown_ || newest_of_type_[type_id] > after; });
}

bool Store::changed_since(int type_id, uint64_t after) const {
  std::lock_guard lock(events_mu_);
  return newest_of_type_[type_id] > after;
}

void Store::shutdown() {
  {
    std::lock_guard lock(events_mu_);
    shutdown_ = true;
  }
  for (auto& changed : type_changed_) changed.notify_all();
}

bool Store::shut_down() const {
  std::lock_guard lock(events_mu_);
  return shutdown_;
}

uint64_t Store::resource_version() {
  std::lock_guard lock(mu_);
  return rv_;
}

}  // namespace weft::kube_lite
