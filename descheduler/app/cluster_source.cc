#include "descheduler/app/cluster_source.h"

#include <memory>
#include <optional>
#include <variant>

#include "descheduler/app/read_on_two_threads.h"
#include "kube/client/json_cursor.h"
#include "kube/client/json_reader.h"
#include "kube/client/list_ahead.h"
#include "kube/client/list_decoder.h"
#include "kube/file_text.h"
#include "kube/objects.h"
#include "kube/scenario.h"

namespace weft::descheduler {

namespace {

// Adds what a TextReader read; false when the builder refuses it (a node met twice): the
// caller adds its tree then, to be told why.
template <class Builder>
bool added(Builder& builder, ClusterBuilder::ReadPod&& pod) {
  builder.add_read(std::move(pod));
  return true;
}
template <class Builder>
bool added(Builder& builder, ClusterBuilder::ReadNode&& node) {
  return builder.add_read(std::move(node));
}

// Adds every object of a scenario file to `builder` (a ClusterBuilder or WorldBuilder).
template <class Builder>
Status fill_from_file(Builder& builder, const std::string& path) {
  auto file = kube::FileText::open(path);
  if (!file) return file.error();
  const std::string_view text = file->view();
  // A pod object takes some hundreds of bytes of JSON: room reserved but never filled
  // costs address space, not memory.
  builder.reserve_pods(text.size() / 256);
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    // A JSON List is decoded item by item, so a big scenario never exists as one tree;
    // pods (most of it) are read in one pass over their text, without a tree. Items are
    // read on two threads (other kinds into trees) and added in the file's order.
    // The items are found (by their brackets) on the thread beside while those found are read.
    FoundItems items(text.size() / 2 + 1);   // an item and its comma take two bytes at least
    std::optional<Result<kube::ListMeta>> listed;
    // Once every item is found, the thread beside faults in the room the pods will take
    // (at most one per item) while this one reads and adds the first of them.
    const ClusterBuilder::PodRoom room = builder.reserved_pod_room();
    auto find = [&](FoundItems& found) {
      size_t count = 0;
      listed = kube::decode_list_texts(text, [&](std::string_view item) {
        found.add(item);
        ++count;
      });
      room.fault_in(count);
    };
    // The second thread pools on its own: sharing the builder's pools would have both
    // threads wait on one lock and count references on the same texts for every pod.
    scheduler::DecodePools beside_pools;
    ClusterBuilder::TextReader beside(beside_pools);
    // Nodes and pods are read from their text; other kinds, and what those readers refuse, as trees.
    using ReadItem = std::variant<ClusterBuilder::ReadPod, ClusterBuilder::ReadNode, Result<nlohmann::json>>;
    auto read = [&path](ClusterBuilder::TextReader& reader, std::string_view item) -> ReadItem {
      if (kube::json_plain_string_member(item, "kind") == "Node") {
        if (auto node = reader.read_if_node(item, path, false)) return std::move(*node);
      } else if (auto pod = reader.read_if_pod(item, path, false)) {
        return std::move(*pod);
      }
      return kube::read_json(item);
    };
    Status failed;
    find_and_read_on_two_threads(items, find, builder.text_reader(), beside, read, [&](size_t i, ReadItem&& read_item) {
      if (!failed) return;
      if (auto* pod = std::get_if<ClusterBuilder::ReadPod>(&read_item)) {
        builder.add_read(std::move(*pod));
        return;
      }
      if (auto* node = std::get_if<ClusterBuilder::ReadNode>(&read_item)) {
        if (added(builder, std::move(*node))) return;
        read_item = kube::read_json(items[i]);   // refused: its tree is told why, naming the item
      }
      const size_t index = i + 1;
      const auto& tree = std::get<Result<nlohmann::json>>(read_item);
      if (!tree) {
        failed = make_error(path + ": item " + std::to_string(index) + ": " + tree.message());
        return;
      }
      const nlohmann::json& item = *tree;
      if (!item.is_object() || !item.contains("kind") || !item.contains("metadata"))
        failed = make_error(path + ": item " + std::to_string(index) +
                            ": not a Kubernetes object (kind and metadata are required)");
      else if (!builder.add(item, path))
        // A failed add leaves the builder as it was: again, naming the item this time.
        failed = builder.add(item, path + ": item " + std::to_string(index) + " (" + kube::kind_of(item) + " " +
                                       kube::key_of(item) + ")");
    });
    if (!failed) return failed.error();
    if (*listed) return {};
    if (items.wait_for(1) > 0) return make_error(path + ": " + listed->message());
    // Not a List: a single object, read the general way below.
  }
  auto objects = kube::load_objects_text(std::string(text), path);
  if (!objects) return objects.error();
  for (const auto& o : *objects)
    if (auto s = builder.add(o.object, o.where()); !s) return s.error();
  return {};
}

// Lists each kind into `builder`. With `scheduling` (GangDefragment): pending pods too,
// and the Queues the scheduler places by.
template <class Builder>
Status fill_from_api(Builder& builder, kube::Client& client, std::vector<std::string>& warnings, bool scheduling) {
  Status failed;
  auto add = [&](const char* kind, const kube::ResourceRef& ref) {
    return [&builder, &failed, kind, ref, where = ref.collection_path("")](nlohmann::json&& item) {
      if (!failed) return;
      if (!item.contains("kind")) item["kind"] = kind;
      if (!item.contains("apiVersion")) item["apiVersion"] = ref.api_version();
      // A failed add leaves the builder as it was: again, naming the item this time.
      if (!builder.add(item, where)) failed = builder.add(item, where + " item " + kube::key_of(item));
    };
  };
  // Other kinds as trees, each page's parsed on two threads (5,000 nodes are worth it;
  // a tree needs no reader of its own) and added in the page's order.
  auto add_tree_page = [&](const char* kind, const kube::ResourceRef& ref) {
    return [&, tree = add(kind, ref), where = ref.collection_path("")](const std::vector<std::string_view>& texts) {
      struct NoState {} mine, other;
      using Parsed = std::optional<Result<nlohmann::json>>;   // held in a ring of default-made slots
      auto parse = [](NoState&, std::string_view text) -> Parsed { return kube::read_json(text); };
      read_on_two_threads(texts, mine, other, parse, [&](size_t, Parsed&& item) {
        if (!failed) return;
        if (!*item) failed = make_error(where + ": " + item->message());
        else tree(std::move(**item));
      });
    };
  };
  // Nodes and pods (most of the cluster) in one pass over their text, each page's on two
  // threads and added in the page's order; one a reader refuses, as a tree. The thread
  // beside pools on its own (as fill_from_file's).
  scheduler::DecodePools beside_pools;
  ClusterBuilder::TextReader beside(beside_pools);
  auto add_text_page = [&](const char* kind, const kube::ResourceRef& ref, auto read_one) {
    return [&, read_one, tree = add(kind, ref), where = ref.collection_path("")](const std::vector<std::string_view>& texts) {
      auto read = [&where, &read_one](ClusterBuilder::TextReader& reader, std::string_view text) {
        return read_one(reader, text, where);
      };
      read_on_two_threads(texts, builder.text_reader(), beside, read, [&](size_t i, auto&& object) {
        if (!failed) return;
        if (object && added(builder, std::move(*object))) return;
        auto item = kube::read_json(texts[i]);
        if (!item) failed = make_error(where + ": " + item.message());
        else tree(std::move(*item));
      });
    };
  };
  auto pod_text = [](ClusterBuilder::TextReader& reader, std::string_view text, const std::string& where) {
    return reader.read_if_pod(text, where, true);
  };
  auto node_text = [](ClusterBuilder::TextReader& reader, std::string_view text, const std::string& where) {
    return reader.read_if_node(text, where, true);
  };
  struct Kind {
    const char* kind;
    kube::ResourceRef ref;
    bool optional;
    kube::ListOptions options;
  };
  kube::ListOptions paged;
  paged.limit = kListPageLimit;
  std::vector<Kind> kinds = {
      {"Node", kube::resources::nodes(), false, paged},
      {"Pod", kube::resources::pods(), false, pod_list_options(scheduling)},
      {"PodGroup", kube::resources::podgroups(), true, paged},
      {"PriorityClass", kube::ResourceRef{"scheduling.k8s.io", "v1", "priorityclasses", false}, true, paged},
      {"PodDisruptionBudget", kube::ResourceRef{"policy", "v1", "poddisruptionbudgets", true}, true, paged},
      {"HyperNode", kube::resources::hypernodes(), true, paged},
      // What the scheduler's volume filters read (nodeFit asks them).
      {"PersistentVolumeClaim", kube::resources::persistentvolumeclaims(), true, paged},
      {"PersistentVolume", kube::resources::persistentvolumes(), true, paged},
      {"StorageClass", kube::resources::storageclasses(), true, paged},
      {"CSINode", kube::resources::csinodes(), true, paged},
      // What inter-pod affinity's namespaceSelector matches.
      {"Namespace", kube::resources::namespaces(), true, paged},
  };
  if (scheduling) kinds.push_back({"Queue", kube::resources::queues(), true, paged});
  // Every kind is requested at once, each fetched ahead on a thread of its own, and read
  // here in order as it arrives: the server's work and the client's overlap.
  std::vector<std::unique_ptr<kube::ListAhead>> lists;
  for (const Kind& k : kinds)
    lists.push_back(std::make_unique<kube::ListAhead>(client, k.ref, "", k.options));
  for (size_t i = 0; i < kinds.size(); ++i) {
    const Kind& k = kinds[i];
    const std::string kind = k.kind;
    // Nodes come first: their pod capacity bounds the pods, so up to a page of pods never regrows.
    if (kind == "Pod") builder.reserve_pods(std::min<size_t>(builder.pod_capacity(), kListPageLimit));
    auto r = kind == "Pod"    ? lists[i]->each_page_texts(add_text_page(k.kind, k.ref, pod_text))
             : kind == "Node" ? lists[i]->each_page_texts(add_text_page(k.kind, k.ref, node_text))
                              : lists[i]->each_page_texts(add_tree_page(k.kind, k.ref));
    lists[i].reset();
    if (!r) {
      if (k.optional && (r.error().code == 404 || r.error().code == 403)) {
        warnings.push_back(std::string(k.kind) + "s not listed (" + r.message() + ")");
        continue;
      }
      return r.error();
    }
    if (!failed) return failed.error();
  }
  return {};
}

// fill_from_api into a fresh Builder, then `finish` it. A list that expired after some of
// its pages were read (410: list_ahead.h) is listed again once, into another builder.
template <class Builder, class Finish>
auto list_into(kube::Client& client, std::vector<std::string>& warnings, bool scheduling, Finish&& finish)
    -> decltype(finish(std::declval<Builder&>())) {
  for (int attempt = 0;; ++attempt) {
    Builder builder;
    std::vector<std::string> noted;
    auto s = fill_from_api(builder, client, noted, scheduling);
    if (!s && s.error().code == 410 && attempt == 0) continue;
    if (!s) return s.error();
    warnings.insert(warnings.end(), noted.begin(), noted.end());
    return finish(builder);
  }
}

}  // namespace

Result<Cluster> cluster_from_file(const std::string& path) {
  ClusterBuilder builder;
  if (auto s = fill_from_file(builder, path); !s) return s.error();
  return builder.finish();
}

kube::ListOptions pod_list_options(bool scheduling) {
  kube::ListOptions o;
  o.limit = kPodPageLimit;
  // Bound pods of every phase: RemoveFailedPods and PodLifeTime act on finished ones too
  // (they are kept as PodInfo::terminal and counted nowhere else).
  o.field_selector = scheduling ? "status.phase!=Succeeded,status.phase!=Failed" : "spec.nodeName!=";
  return o;
}

Result<Cluster> cluster_from_api(kube::Client& client, std::vector<std::string>& warnings) {
  return list_into<ClusterBuilder>(client, warnings, false, [](ClusterBuilder& b) -> Result<Cluster> { return b.finish(); });
}

Result<defragment::World> world_from_file(const std::string& path, TimePoint now) {
  defragment::WorldBuilder builder;
  if (auto s = fill_from_file(builder, path); !s) return s.error();
  return builder.finish(now);
}

Result<defragment::World> world_from_api(kube::Client& client, std::vector<std::string>& warnings, TimePoint now) {
  return list_into<defragment::WorldBuilder>(
      client, warnings, true, [now](defragment::WorldBuilder& b) -> Result<defragment::World> { return b.finish(now); });
}

}  // namespace weft::descheduler
