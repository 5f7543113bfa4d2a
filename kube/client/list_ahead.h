// A list read while it is still arriving: a thread of its own sends the list's requests
// (following continue tokens) and keeps up to two pages ahead of the reader, which
// decodes them in order on its own thread. Several may be in flight at once (a cycle
// requests every kind it reads together, as an informer factory starts its informers).
// A page's memory goes back to the fetcher for the next page, so a big list is received
// into the same few buffers instead of fresh memory the kernel must fault in and zero.
// The fetcher also finds each item's text in the page, so the reader's thread walks each
// item once, to decode it.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "kube/client/client.h"

namespace weft::kube {

class ListAhead {
 public:
  // Starts fetching at once.
  ListAhead(Client& client, ResourceRef ref, std::string ns, ListOptions options);
  // Stops fetching (a request in flight is finished) and waits for the fetcher.
  ~ListAhead();
  ListAhead(const ListAhead&) = delete;
  ListAhead& operator=(const ListAhead&) = delete;

  // Each item's unchecked text (decode_list_texts), in order, once; options.keep does not
  // apply. A continue token that expired (410) after pages were handed over is an error
  // with code 410: those items came from a list that can no longer be finished
  // consistently, and the reader must start over.
  Result<ObjectList> each_text(const std::function<void(std::string_view)>& on_item);
  // The same texts a page at a time (valid during the call), so a reader may spread one
  // page's items over threads.
  Result<ObjectList> each_page_texts(const std::function<void(const std::vector<std::string_view>&)>& on_page);

 private:
  struct Page {
    std::string path;
    Result<HttpResponse> response = make_error("not fetched");
    bool last = false;
    // Each item's place in the body, found by the fetcher, and the page's metadata (or
    // why the body is not a list).
    std::vector<std::pair<size_t, size_t>> items;
    Result<ListMeta> meta = make_error("not split");
  };
  void fetch();
  void split(Page& page) const;
  Result<ObjectList> read_pages(const std::function<Result<ListMeta>(const Page&)>& use);
  Page next_page();
  void give_back(std::string body);

  Client& client_;
  const ResourceRef ref_;
  const std::string ns_;
  const ListOptions options_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Page> pages_;            // fetched, not yet read
  std::vector<std::string> spare_;    // bodies read, their memory for the next pages
  bool stop_ = false;
  std::thread fetcher_;               // last: started once the rest is built
};

}  // namespace weft::kube
