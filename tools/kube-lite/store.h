// Objects by type and key, one global resourceVersion counter, and the window of
// recent change events that watches read from. All access to objects goes through a
// Txn that holds the store's lock, so a read-check-write is atomic. Watches read the
// event window under a lock of its own and sleep per type: a write wakes only the
// watches of its type, and never waits for a watch reading events.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/kube-lite/resource_types.h"

namespace weft::kube_lite {

// An object as stored: its JSON and its serialized text (lists are built from text).
struct StoredObject {
  nlohmann::json value;
  std::string text;
  uint64_t resource_version = 0;
};
using ObjectPtr = std::shared_ptr<const StoredObject>;

struct ChangeEvent {
  uint64_t resource_version = 0;
  int type_id = 0;
  std::string key;                 // "ns/name" or "name"
  std::string type;                // ADDED, MODIFIED, DELETED
  ObjectPtr object;                // the new state (the last state for DELETED)
  ObjectPtr previous;              // for MODIFIED: the state before (selector transitions)
  // The watch line for `type`, rendered once for every watcher that sends it unchanged.
  std::shared_ptr<const std::string> line;
};
using ChangeEventPtr = std::shared_ptr<const ChangeEvent>;

// {"type":TYPE,"object":TEXT}\n as a watch stream carries it.
std::string watch_line(const std::string& type, const std::string& object_text);

std::string object_key(const std::string& ns, const std::string& name);

class Store {
 public:
  Store(size_t num_types, size_t event_window);

  class Txn {
   public:
    ObjectPtr get(int type_id, const std::string& key) const;
    // Writes the object with the next resourceVersion (set into metadata) and records
    // the event. Returns the stored object.
    ObjectPtr put(int type_id, const std::string& key, nlohmann::json object);
    // Removes it, recording a DELETED event whose object carries the new resourceVersion.
    ObjectPtr erase(int type_id, const std::string& key);
    // Objects of a type with keys starting with prefix ("ns/" or ""), after start_after
    // ("" = from the beginning), in key order.
    template <class Fn>
    void scan(int type_id, const std::string& prefix, const std::string& start_after, Fn&& fn) const {
      const auto& m = store_.objects_[type_id];
      auto it = start_after.empty() ? m.lower_bound(prefix) : m.upper_bound(start_after);
      for (; it != m.end(); ++it) {
        if (it->first.compare(0, prefix.size(), prefix) != 0) break;
        if (!fn(it->first, it->second)) break;
      }
    }
    // Like scan, over only the objects whose indexed field has this value (see
    // add_index). False when the type has no index on that field: scan instead.
    template <class Fn>
    bool scan_index(int type_id, const std::string& path, const std::string& value, const std::string& prefix,
                    const std::string& start_after, Fn&& fn) const {
      const Index* index = store_.find_index(type_id, path);
      if (!index) return false;
      auto bucket = index->keys.find(value);
      if (bucket == index->keys.end()) return true;
      const auto& keys = bucket->second;
      const auto& m = store_.objects_[type_id];
      auto it = start_after.empty() ? keys.lower_bound(prefix) : keys.upper_bound(start_after);
      for (; it != keys.end(); ++it) {
        if (it->compare(0, prefix.size(), prefix) != 0) break;
        auto obj = m.find(*it);
        if (!fn(obj->first, obj->second)) break;
      }
      return true;
    }
    size_t count(int type_id) const { return store_.objects_[type_id].size(); }
    uint64_t resource_version() const { return store_.rv_; }
    // Loading initial state: writes without events; the window starts after them.
    ObjectPtr load(int type_id, const std::string& key, nlohmann::json object);

   private:
    friend class Store;
    explicit Txn(Store& store) : store_(store), lock_(store.mu_) {}
    Store& store_;
    std::unique_lock<std::mutex> lock_;
  };

  Txn begin() { return Txn(*this); }

  // Keeps the keys of a type's objects by the value of one field (as a field selector
  // reads it), as the real API server's watch cache indexes pods by spec.nodeName: a
  // list for one node's pods then reads that node's pods, not every pod.
  void add_index(int type_id, const std::string& path);

  // Events with resourceVersion > after, up to max (of every type: the caller filters);
  // too_old is set when events of this type after `after` have already left the window
  // (the caller answers 410 Gone). As the real server's watch cache is per type, other
  // types' events leaving the window never expire a watch.
  struct Events {
    std::vector<ChangeEventPtr> events;   // shared with every other watcher, not copied
    bool too_old = false;
    uint64_t oldest_available = 0;   // the oldest version one may still watch this type from
    uint64_t current = 0;
  };
  Events events_after(int type_id, uint64_t after, size_t max);
  // Blocks until an event of this type newer than `after` exists, the timeout passes or
  // shutdown.
  void wait_for_change(int type_id, uint64_t after, std::chrono::milliseconds timeout);
  // Whether an event of this type newer than `after` exists.
  bool changed_since(int type_id, uint64_t after) const;
  void shutdown();
  bool shut_down() const;
  uint64_t resource_version();

 private:
  struct Index {
    int type_id = 0;
    std::string path;
    std::map<std::string, std::set<std::string>> keys;   // field value -> object keys
  };
  ObjectPtr make_stored(nlohmann::json object, uint64_t rv);
  void record(ChangeEvent event);
  const Index* find_index(int type_id, const std::string& path) const;
  void reindex(int type_id, const std::string& key, const ObjectPtr& before, const ObjectPtr& after);

  // Under mu_ (a Txn): made visible to watches under events_mu_.
  void publish_version(uint64_t rv, bool loaded);

  mutable std::mutex mu_;   // objects_, rv_, indexes_ (a Txn holds it)
  std::vector<std::map<std::string, ObjectPtr>> objects_;
  uint64_t rv_ = 0;
  std::vector<Index> indexes_;

  // Taken after mu_ when both are held; watches take only this one.
  mutable std::mutex events_mu_;
  std::deque<ChangeEventPtr> events_;
  size_t window_;
  uint64_t published_rv_ = 0;              // rv_ as of the last event or load
  std::vector<uint64_t> newest_of_type_;   // the version of each type's newest event
  std::deque<std::condition_variable> type_changed_;   // one per type (not movable: a deque)
  uint64_t loaded_ = 0;                     // objects loaded without events: watch from here on
  std::vector<uint64_t> compacted_of_type_; // each type's events at or below this version are gone
  bool shutdown_ = false;
};

}  // namespace weft::kube_lite
