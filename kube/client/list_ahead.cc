#include "kube/client/list_ahead.h"

#include "kube/client/list_decoder.h"

namespace weft::kube {

namespace {
constexpr size_t kPagesAhead = 2;
bool success(int status) { return status >= 200 && status < 300; }
}  // namespace

ListAhead::ListAhead(Client& client, ResourceRef ref, std::string ns, ListOptions options)
    : client_(client), ref_(std::move(ref)), ns_(std::move(ns)), options_(std::move(options)) {
  fetcher_ = std::thread([this] { fetch(); });
}

ListAhead::~ListAhead() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  fetcher_.join();
}

void ListAhead::fetch() {
  ListOptions current = options_;
  for (;;) {
    std::string room;
    {
      // The next page is asked for once fewer than kPagesAhead wait to be read.
      std::unique_lock lock(mu_);
      changed_.wait(lock, [&] { return stop_ || pages_.size() < kPagesAhead; });
      if (stop_) return;
      if (!spare_.empty()) {
        room = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    Page page;
    page.path = ref_.collection_path(ns_) + list_query(current);
    Client::Call call{"GET", page.path, "", ""};
    call.body_room = &room;
    page.response = client_.execute(call);
    // Unpaged, a list is one request whatever its metadata says.
    std::string token;
    if (options_.limit > 0 && page.response && success(page.response->status))
      token = continue_of(page.response->body);
    page.last = token.empty();
    split(page);
    std::lock_guard lock(mu_);
    if (stop_) return;
    pages_.push_back(std::move(page));
    changed_.notify_all();
    if (pages_.back().last) return;
    current.continue_token = std::move(token);
  }
}

void ListAhead::split(Page& page) const {
  if (!page.response || !success(page.response->status)) return;
  const std::string& body = page.response->body;
  page.meta = decode_list_texts(body, [&](std::string_view item) {
    page.items.emplace_back(static_cast<size_t>(item.data() - body.data()), item.size());
  });
}

ListAhead::Page ListAhead::next_page() {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return !pages_.empty(); });
  Page page = std::move(pages_.front());
  pages_.pop_front();
  changed_.notify_all();
  return page;
}

void ListAhead::give_back(std::string body) {
  std::lock_guard lock(mu_);
  spare_.push_back(std::move(body));
}

Result<ObjectList> ListAhead::read_pages(const std::function<Result<ListMeta>(const Page&)>& use) {
  ObjectList list;
  for (bool first = true;; first = false) {
    Page page = next_page();
    if (!page.response) return page.response.error();
    HttpResponse& response = *page.response;
    if (!success(response.status)) {
      Error e = api_error("GET", page.path, response);
      if (!first && response.status == 410)
        e.message += " (the list expired after some of its pages were read: list again)";
      return e;
    }
    auto meta = use(page);
    if (!meta) return make_error("GET " + page.path + ": " + meta.message(), response.status);
    list.resource_version = meta->resource_version;
    give_back(std::move(response.body));
    if (page.last) return list;
  }
}

Result<ObjectList> ListAhead::each_text(const std::function<void(std::string_view)>& on_item) {
  return each_page_texts([&](const std::vector<std::string_view>& texts) {
    for (std::string_view text : texts) on_item(text);
  });
}

Result<ObjectList> ListAhead::each_page_texts(const std::function<void(const std::vector<std::string_view>&)>& on_page) {
  std::vector<std::string_view> texts;
  return read_pages([&](const Page& page) {   // the fetcher found the items
    const std::string_view body = page.response->body;
    texts.clear();
    for (const auto& [at, size] : page.items) texts.push_back(body.substr(at, size));
    on_page(texts);
    return page.meta;
  });
}

}  // namespace weft::kube
