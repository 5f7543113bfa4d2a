#include "kube/client/informer.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "kube/objects.h"

namespace weft::kube {

using nlohmann::json;

void strip_managed_fields(json& object) {
  if (auto m = object.find("metadata"); m != object.end() && m->is_object()) m->erase("managedFields");
}

namespace {
std::string version_of(const json& o) { return metadata_string(o, "resourceVersion"); }

// What get(), items(), visit() and the handlers see of an object kept as a stub
// (keep_objects false): its name, namespace and resourceVersion, from its key.
json stub_of(const std::string& key, const std::string& version) {
  json meta = json::object();
  const auto slash = key.find('/');
  if (slash == std::string::npos) {
    meta["name"] = key;
  } else {
    meta["namespace"] = key.substr(0, slash);
    meta["name"] = key.substr(slash + 1);
  }
  if (!version.empty()) meta["resourceVersion"] = version;
  return {{"metadata", std::move(meta)}};
}
}  // namespace

Informer::Informer(Client& client, ResourceRef ref, std::string ns, InformerOptions options)
    : client_(client), ref_(std::move(ref)), ns_(std::move(ns)), options_(std::move(options)) {}

Informer::~Informer() { stop(); }

void Informer::add_handlers(EventHandlers handlers) { handlers_.push_back(std::move(handlers)); }
void Informer::add_raw_handlers(RawEventHandlers handlers) { raw_handlers_.push_back(std::move(handlers)); }

void Informer::start() {
  if (thread_.joinable()) return;
  stopping_ = false;
  cancel_ = std::make_shared<CancelToken>();
  thread_ = std::thread([this] { run(); });
  if (options_.resync > Millis(0) && !options_.raw) resync_thread_ = std::thread([this] { resync_loop(); });
}

void Informer::stop() {
  {
    std::lock_guard lock(wake_mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (cancel_) cancel_->cancel();
  if (thread_.joinable()) thread_.join();
  if (resync_thread_.joinable()) resync_thread_.join();
}

bool Informer::wait_for_sync(Millis timeout) {
  auto until = Clock::now() + timeout;
  while (!synced_.load()) {
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(Millis(5));
  }
  return true;
}

bool Informer::sleep_interruptibly(Millis duration) {
  std::unique_lock lock(wake_mu_);
  return !wake_.wait_for(lock, duration, [this] { return stopping_.load(); });
}

Informer::Entry Informer::pack(json&& object) const {
  if (!options_.keep_objects) return Entry{nullptr, nullptr, version_of(object), true};
  if (!options_.compact) return {std::make_shared<const json>(std::move(object)), nullptr};
  auto bytes = std::make_shared<std::string>();
  json::to_msgpack(object, *bytes);
  bytes->shrink_to_fit();
  return {nullptr, std::move(bytes)};
}

json Informer::unpacked(const std::string& key, const Entry& entry) {
  if (entry.object) return *entry.object;
  if (entry.packed) return json::from_msgpack(*entry.packed);
  return stub_of(key, entry.version);
}

ObjectPtr Informer::unpack(const std::string& key, const Entry& entry) {
  if (entry.object) return entry.object;
  return std::make_shared<const json>(unpacked(key, entry));
}

ObjectPtr Informer::get(const std::string& key) const {
  Entry entry;
  {
    std::lock_guard lock(cache_mu_);
    auto it = cache_.find(key);
    if (it == cache_.end()) return nullptr;
    entry = it->second;
  }
  return unpack(key, entry);
}

std::vector<ObjectPtr> Informer::items() const {
  std::vector<std::pair<std::string, Entry>> entries;
  {
    std::lock_guard lock(cache_mu_);
    entries.reserve(cache_.size());
    for (const auto& kv : cache_) entries.push_back(kv);
  }
  std::vector<ObjectPtr> out;
  out.reserve(entries.size());
  for (const auto& [key, entry] : entries) out.push_back(unpack(key, entry));
  return out;
}

void Informer::visit(const std::function<void(const std::string& key, json&& object)>& fn) const {
  std::vector<std::pair<std::string, Entry>> entries;
  {
    std::lock_guard lock(cache_mu_);
    entries.reserve(cache_.size());
    for (const auto& kv : cache_) entries.push_back(kv);
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [key, entry] : entries) {
    json object = unpacked(key, entry);
    entry = {};   // what was visited is not held twice
    fn(key, std::move(object));
  }
}

size_t Informer::size() const {
  std::lock_guard lock(cache_mu_);
  return cache_.size();
}

std::string Informer::resource_version() const {
  std::lock_guard lock(cache_mu_);
  return resource_version_;
}

InformerStats Informer::stats() const {
  std::lock_guard lock(cache_mu_);
  return stats_;
}

void Informer::dispatch_add(const json& o) {
  for (auto& h : handlers_) if (h.on_add) h.on_add(o);
}
void Informer::dispatch_update(const json& a, const json& b) {
  for (auto& h : handlers_) if (h.on_update) h.on_update(a, b);
}
void Informer::dispatch_delete(const json& o) {
  for (auto& h : handlers_) if (h.on_delete) h.on_delete(o);
}

Status Informer::relist_raw() {
  ListOptions lo;
  lo.label_selector = options_.label_selector;
  lo.field_selector = options_.field_selector;
  lo.limit = options_.page_size;
  std::unordered_map<std::string, Entry> fresh;
  std::lock_guard dispatch(dispatch_mu_);
  auto meta = client_.list_each_raw(ref_, ns_, lo, [&](std::string_view text, ObjectIdentity&& id) {
    std::string key = id.key();
    Entry before;
    {
      std::lock_guard lock(cache_mu_);
      if (auto it = cache_.find(key); it != cache_.end()) before = it->second;
    }
    if (before.empty() || before.version != id.resource_version)
      for (auto& h : raw_handlers_)
        if (h.on_object) h.on_object(key, text);
    fresh[std::move(key)] = Entry{nullptr, nullptr, std::move(id.resource_version), true};
  });
  {
    std::lock_guard lock(cache_mu_);
    ++stats_.lists;
  }
  if (!meta) return meta.error();
  std::unordered_map<std::string, Entry> old;
  {
    std::lock_guard lock(cache_mu_);
    old.swap(cache_);
    cache_ = std::move(fresh);
    resource_version_ = meta->resource_version;
  }
  for (const auto& [key, entry] : old)
    if (!cache_.count(key))
      for (auto& h : raw_handlers_)
        if (h.on_delete) h.on_delete(key);
  synced_ = true;
  return {};
}

void Informer::apply_raw_event(WatchEvent&& event) {
  const std::string& rv = event.identity.resource_version;
  if (event.type == "BOOKMARK") {
    std::lock_guard lock(cache_mu_);
    if (!rv.empty()) resource_version_ = rv;
    return;
  }
  const std::string key = event.identity.key();
  const bool deleted = event.type == "DELETED";
  std::lock_guard dispatch(dispatch_mu_);
  {
    std::lock_guard lock(cache_mu_);
    ++stats_.events;
    if (!rv.empty()) resource_version_ = rv;
    if (deleted) cache_.erase(key);
    else cache_[key] = Entry{nullptr, nullptr, rv, true};
  }
  for (auto& h : raw_handlers_) {
    if (deleted && h.on_delete) h.on_delete(key);
    if (!deleted && h.on_object) h.on_object(key, event.raw);
  }
}

Status Informer::relist() {
  if (options_.raw) return relist_raw();
  ListOptions lo;
  lo.label_selector = options_.label_selector;
  lo.field_selector = options_.field_selector;
  lo.limit = options_.page_size;
  lo.keep = options_.keep;
  std::unordered_map<std::string, Entry> fresh;
  const bool streamed = !options_.keep_objects && !handlers_.empty();
  std::unique_lock dispatch(dispatch_mu_, std::defer_lock);
  if (streamed) dispatch.lock();
  auto meta = client_.list_each(ref_, ns_, lo, [&](json&& item) {
    if (options_.transform) options_.transform(item);
    std::string key = key_of(item);
    if (streamed) dispatch_listed(key, item);
    fresh[key] = pack(std::move(item));
  });
  {
    std::lock_guard lock(cache_mu_);
    ++stats_.lists;
  }
  if (!meta) return meta.error();

  if (!streamed) dispatch.lock();
  std::unordered_map<std::string, Entry> old;
  {
    std::lock_guard lock(cache_mu_);
    old.swap(cache_);
    cache_ = handlers_.empty() || streamed ? std::move(fresh) : fresh;
    resource_version_ = meta->resource_version;
  }
  if (streamed) {
    for (const auto& [key, entry] : old)
      if (!cache_.count(key)) dispatch_delete(*unpack(key, entry));
  } else if (!handlers_.empty()) {
    for (const auto& [key, entry] : fresh) {
      auto obj = unpack(key, entry);
      auto it = old.find(key);
      if (it == old.end()) {
        dispatch_add(*obj);
      } else {
        auto before = unpack(key, it->second);
        if (version_of(*before) != version_of(*obj)) dispatch_update(*before, *obj);
        old.erase(it);
      }
    }
    for (const auto& [key, entry] : old) dispatch_delete(*unpack(key, entry));
  }
  synced_ = true;
  return {};
}

void Informer::dispatch_listed(const std::string& key, const json& object) {
  Entry before;
  {
    std::lock_guard lock(cache_mu_);
    if (auto it = cache_.find(key); it != cache_.end()) before = it->second;
  }
  if (before.empty()) {
    dispatch_add(object);
    return;
  }
  auto old = unpack(key, before);
  if (version_of(*old) != version_of(object)) dispatch_update(*old, object);
}

void Informer::apply_event(WatchEvent&& event) {
  if (options_.raw) return apply_raw_event(std::move(event));
  const std::string rv = version_of(event.object);
  if (event.type == "BOOKMARK") {
    std::lock_guard lock(cache_mu_);
    if (!rv.empty()) resource_version_ = rv;
    return;
  }
  json object = std::move(event.object);
  if (options_.transform) options_.transform(object);
  const std::string key = key_of(object);
  std::lock_guard dispatch(dispatch_mu_);
  const bool deleted = event.type == "DELETED";
  ObjectPtr current;
  if (!handlers_.empty() || !options_.compact) current = std::make_shared<const json>(std::move(object));
  Entry entry = deleted                   ? Entry{}
                : !options_.keep_objects ? Entry{nullptr, nullptr, version_of(current ? *current : object), true}
                : options_.compact       ? pack(current ? json(*current) : std::move(object))
                                         : Entry{current, nullptr};
  Entry previous_entry;
  {
    std::lock_guard lock(cache_mu_);
    ++stats_.events;
    if (!rv.empty()) resource_version_ = rv;
    auto it = cache_.find(key);
    if (it != cache_.end()) previous_entry = it->second;
    if (deleted) {
      if (it != cache_.end()) cache_.erase(it);
    } else {
      cache_[key] = std::move(entry);
    }
  }
  if (handlers_.empty()) return;
  ObjectPtr previous = previous_entry.empty() ? nullptr : unpack(key, previous_entry);
  if (deleted) {
    dispatch_delete(*current);  // the final state the server sent
  } else if (previous) {
    dispatch_update(*previous, *current);
  } else {
    dispatch_add(*current);
  }
}

void Informer::run() {
  bool need_list = !synced_.load();  // a synchronous relist() before start() already filled the cache
  int failures = 0;
  while (!stopping_) {
    if (need_list) {
      auto listed = relist();
      if (stopping_) break;
      if (!listed) {
        {
          std::lock_guard lock(cache_mu_);
          ++stats_.failures;
        }
        auto delay = client_.next_backoff(failures++);
        spdlog::warn("informer {}: list failed, retrying in {}ms: {}", ref_.resource, delay.count(), listed.message());
        sleep_interruptibly(delay);
        continue;
      }
      need_list = false;
      failures = 0;
    }
    ListOptions lo;
    lo.label_selector = options_.label_selector;
    lo.field_selector = options_.field_selector;
    lo.resource_version = resource_version();
    lo.timeout_seconds = options_.watch_timeout_seconds;
    lo.keep = options_.keep;
    lo.raw = options_.raw;
    {
      std::lock_guard lock(cache_mu_);
      ++stats_.watches;
    }
    size_t applied = 0;
    auto ended = client_.watch(
        ref_, ns_, lo,
        [&](WatchEvent&& e) {
          apply_event(std::move(e));
          ++applied;
          return !stopping_.load();
        },
        cancel_.get());
    if (stopping_) break;
    if (!ended && ended.error().code == 410) {
      spdlog::info("informer {}: resourceVersion {} expired (410 Gone), relisting", ref_.resource,
                   lo.resource_version);
      std::lock_guard lock(cache_mu_);
      ++stats_.relists;
      need_list = true;
      continue;
    }
    if (!ended || applied == 0) {
      // A failed watch, or one that ended without delivering anything: back off so a
      // server that drops us at once does not turn this into a busy loop.
      if (!ended) {
        std::lock_guard lock(cache_mu_);
        ++stats_.failures;
      }
      auto delay = client_.next_backoff(failures++);
      if (!ended) spdlog::warn("informer {}: watch failed, retrying in {}ms: {}", ref_.resource, delay.count(),
                               ended.message());
      sleep_interruptibly(delay);
      continue;
    }
    failures = 0;  // progress was made: reconnect from the last version at once
  }
}

void Informer::resync_loop() {
  while (sleep_interruptibly(options_.resync)) {
    if (!synced_) continue;
    std::lock_guard dispatch(dispatch_mu_);
    for (const auto& obj : items()) dispatch_update(*obj, *obj);
  }
}

}  // namespace weft::kube
