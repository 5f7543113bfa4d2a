// A small informer: list, then watch from the list's version; a cache by "ns/name";
// add/update/delete handlers called in event order from one thread; periodic resync;
// relist on 410 Gone; reconnect of a dropped watch with backoff.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/client/client.h"

namespace weft::kube {

using ObjectPtr = std::shared_ptr<const nlohmann::json>;

struct EventHandlers {
  std::function<void(const nlohmann::json& object)> on_add;
  std::function<void(const nlohmann::json& old_object, const nlohmann::json& new_object)> on_update;
  std::function<void(const nlohmann::json& object)> on_delete;
};

// For informers that never decode (InformerOptions::raw): each object's JSON text, checked
// as JSON and valid during the call, with its key ("ns/name" or "name").
struct RawEventHandlers {
  std::function<void(const std::string& key, std::string_view text)> on_object;   // added or changed
  std::function<void(const std::string& key)> on_delete;
};

// Drops metadata.managedFields, which the agents never read and which dominate the size
// of objects from a real API server.
void strip_managed_fields(nlohmann::json& object);

struct InformerOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t page_size = 500;
  Millis resync{0};                 // 0 = never; else on_update(o, o) for every cached object
  int watch_timeout_seconds = 300;  // server-side end of each watch request
  // What is decoded of each object (a kube::project() tree; null: all of it), straight
  // from the list and watch bodies, before `transform`.
  nlohmann::json keep;
  std::function<void(nlohmann::json&)> transform = strip_managed_fields;
  // Keep each (transformed) object as MessagePack bytes instead of a JSON tree: a few
  // hundred bytes for a pod instead of kilobytes. get(), items(), visit() and the
  // handlers decode on demand, so reads cost a decode each.
  bool compact = false;
  // false: the cache keeps only each object's metadata name, namespace and
  // resourceVersion, for handlers that keep their own decoded form of what they read.
  // The handlers still get whole objects, except the old object of on_update and the
  // object of a delete found by a relist, which are those stubs; get(), items() and
  // visit() return stubs. During a relist the handlers are called as each object is
  // listed (deletes at the end), so the list is never held whole.
  bool keep_objects = true;
  // Objects are never decoded: the cache keeps stubs (as keep_objects false) and only
  // RawEventHandlers are called, with each object's text as listed or watched, for
  // readers that decode text straight into their own records. keep and transform do not
  // apply, and there is no resync (there is no text to hand over again).
  bool raw = false;
};

struct InformerStats {
  uint64_t lists = 0;        // full lists (the first one included)
  uint64_t relists = 0;      // lists caused by 410 Gone
  uint64_t watches = 0;      // watch requests opened
  uint64_t failures = 0;     // list/watch calls that failed and were backed off
  uint64_t events = 0;       // watch events applied (bookmarks excluded)
};

class Informer {
 public:
  Informer(Client& client, ResourceRef ref, std::string ns, InformerOptions options = {});
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  void add_handlers(EventHandlers handlers);   // before start()
  void add_raw_handlers(RawEventHandlers handlers);   // before start(); options.raw
  void start();                                // runs list+watch on its own thread
  void stop();                                 // ends the watch at once and joins
  bool has_synced() const { return synced_.load(); }
  bool wait_for_sync(Millis timeout);

  ObjectPtr get(const std::string& key) const;   // "ns/name" or "name"
  std::vector<ObjectPtr> items() const;
  // Every object in key order, decoded (compact) or copied one at a time, so a reader
  // never holds a second tree of the whole cache. The cache is not locked while fn runs.
  void visit(const std::function<void(const std::string& key, nlohmann::json&& object)>& fn) const;
  size_t size() const;
  std::string resource_version() const;
  InformerStats stats() const;

  // One full list into the cache, dispatching adds/updates/deletes against what was
  // there. The thread does this itself; exposed for synchronous use (bench, tools).
  Status relist();

 private:
  void run();
  void apply_event(WatchEvent&& event);
  Status relist_raw();
  void apply_raw_event(WatchEvent&& event);
  void resync_loop();
  bool sleep_interruptibly(Millis duration);
  void dispatch_add(const nlohmann::json& o);
  void dispatch_update(const nlohmann::json& a, const nlohmann::json& b);
  void dispatch_delete(const nlohmann::json& o);

  Client& client_;
  ResourceRef ref_;
  std::string ns_;
  InformerOptions options_;
  std::vector<EventHandlers> handlers_;
  std::vector<RawEventHandlers> raw_handlers_;

  // One cached object: the tree, or (compact) its MessagePack bytes.
  struct Entry {
    ObjectPtr object;
    std::shared_ptr<const std::string> packed;
    // keep_objects false: the object is its key and this resourceVersion (a stub built on
    // demand; a hundred bytes an object instead of a small JSON tree's few hundred).
    std::string version;
    bool stub = false;
    bool empty() const { return !object && !packed && !stub; }
  };
  Entry pack(nlohmann::json&& object) const;
  // A listed object handed to the handlers against the cache before this list (keep_objects false).
  void dispatch_listed(const std::string& key, const nlohmann::json& object);
  static nlohmann::json unpacked(const std::string& key, const Entry& entry);
  static ObjectPtr unpack(const std::string& key, const Entry& entry);

  mutable std::mutex cache_mu_;
  std::unordered_map<std::string, Entry> cache_;
  std::string resource_version_;
  InformerStats stats_;

  std::mutex dispatch_mu_;   // one cache change + its handler calls at a time, in order
  std::atomic<bool> synced_{false};
  std::atomic<bool> stopping_{false};
  std::mutex wake_mu_;
  std::condition_variable wake_;
  std::shared_ptr<CancelToken> cancel_;
  std::thread thread_;
  std::thread resync_thread_;
};

}  // namespace weft::kube
