// Lists fetched ahead of their reader (kube/client/list_ahead.h): every page once and in
// order, fetched before it is asked for, received into the memory of pages already read,
// and a continue token that expires half-way is an error, never the items again.
#include "kube/client/list_ahead.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "kube/client/json_reader.h"
#include "tests/support/function_transport.h"

namespace weft::kube {
namespace {

using testing::FunctionTransport;

ClientOptions fast() {
  ClientOptions o;
  o.qps = 0;
  o.backoff = BackoffPolicy{Millis(1), 2.0, Millis(2), 0};
  o.max_attempts = 2;
  return o;
}

// Page `page` of `pages` ConfigMaps, two items each; the continue token names the next page.
HttpResponse page_of(int page, int pages) {
  std::string items;
  for (int i = 0; i < 2; ++i)
    items += std::string(i ? "," : "") + R"({"metadata":{"name":"cm-)" + std::to_string(page * 2 + i) + R"("}})";
  std::string next = page + 1 < pages ? R"(,"continue":"page-)" + std::to_string(page + 1) + "\"" : "";
  return {200, R"({"kind":"ConfigMapList","metadata":{"resourceVersion":"7")" + next + R"(},"items":[)" + items + "]}", {}};
}

// The page a request asks for: 0 without a continue token.
int asked_page(const HttpRequest& r) {
  const size_t at = r.path.find("continue=page-");
  return at == std::string::npos ? 0 : std::stoi(r.path.substr(at + 14));
}

ListOptions pages_of_two() {
  ListOptions o;
  o.limit = 2;
  return o;
}

std::vector<std::string> names_read(ListAhead& list, Result<ObjectList>& result) {
  std::vector<std::string> names;
  result = list.each_text([&](std::string_view text) {
    auto item = read_json(text);
    names.push_back(item ? (*item)["metadata"]["name"].get<std::string>() : item.message());
  });
  return names;
}

TEST(ListAhead, EveryPageOnceInOrderIntoTheMemoryOfPagesAlreadyRead) {
  constexpr int kPages = 8;
  std::mutex mu;
  std::vector<int> asked;
  size_t rooms_with_memory = 0;
  auto transport = std::make_shared<FunctionTransport>([&](const HttpRequest& r) {
    std::lock_guard lock(mu);
    asked.push_back(asked_page(r));
    if (r.body_room && r.body_room->capacity() > 100) ++rooms_with_memory;
    return page_of(asked.back(), kPages);
  });
  Client client(transport, fast());
  ListAhead list(client, resources::configmaps(), "default", pages_of_two());
  Result<ObjectList> result = make_error("not read");
  auto names = names_read(list, result);
  ASSERT_TRUE(result) << result.message();
  EXPECT_EQ(result->resource_version, "7");
  ASSERT_EQ(names.size(), 2u * kPages);
  for (int i = 0; i < 2 * kPages; ++i) EXPECT_EQ(names[i], "cm-" + std::to_string(i));
  EXPECT_EQ(asked, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  // At most three pages are ever held (two fetched and waiting, or one waiting and one
  // being fetched; one being read): the others are received into the memory of pages
  // already read.
  EXPECT_GE(rooms_with_memory, static_cast<size_t>(kPages - 3));
}

TEST(ListAhead, ItemTextsFoundByTheFetcherAreEveryItemInOrder) {
  auto transport = std::make_shared<FunctionTransport>([&](const HttpRequest& r) { return page_of(asked_page(r), 4); });
  Client client(transport, fast());
  ListAhead list(client, resources::configmaps(), "default", pages_of_two());
  std::vector<std::string> texts;
  auto result = list.each_text([&](std::string_view text) { texts.emplace_back(text); });
  ASSERT_TRUE(result) << result.message();
  EXPECT_EQ(result->resource_version, "7");
  ASSERT_EQ(texts.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(texts[i], R"({"metadata":{"name":"cm-)" + std::to_string(i) + R"("}})");
}

TEST(ListAhead, PageTextsAreEachPagesItemsInOrder) {
  auto transport = std::make_shared<FunctionTransport>([&](const HttpRequest& r) { return page_of(asked_page(r), 4); });
  Client client(transport, fast());
  ListAhead list(client, resources::configmaps(), "default", pages_of_two());
  std::vector<std::vector<std::string>> pages;
  auto result = list.each_page_texts([&](const std::vector<std::string_view>& texts) {
    pages.emplace_back(texts.begin(), texts.end());
  });
  ASSERT_TRUE(result) << result.message();
  EXPECT_EQ(result->resource_version, "7");
  ASSERT_EQ(pages.size(), 4u);
  for (int i = 0; i < 8; ++i) {
    ASSERT_EQ(pages[i / 2].size(), 2u);
    EXPECT_EQ(pages[i / 2][i % 2], R"({"metadata":{"name":"cm-)" + std::to_string(i) + R"("}})");
  }
}

TEST(ListAhead, FetchesBeforeItIsRead) {
  std::atomic<int> sent{0};
  auto transport = std::make_shared<FunctionTransport>([&](const HttpRequest& r) {
    ++sent;
    return page_of(asked_page(r), 3);
  });
  Client client(transport, fast());
  ListAhead list(client, resources::configmaps(), "default", pages_of_two());
  // Two pages ahead of a reader that has not started, and no further.
  for (int i = 0; i < 500 && sent < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(sent.load(), 2);
  Result<ObjectList> result = make_error("not read");
  EXPECT_EQ(names_read(list, result).size(), 6u);
  EXPECT_TRUE(result);
  EXPECT_EQ(sent.load(), 3);
}

// client-go's pager gives up the same way on an expired token once items were handed over
// one by one: starting over in the same reader would give them twice.
TEST(ListAhead, AContinueTokenExpiredAfterAPageIsA410NotTheItemsAgain) {
  auto transport = std::make_shared<FunctionTransport>([&](const HttpRequest& r) {
    if (asked_page(r) == 1)
      return HttpResponse{410, R"({"kind":"Status","code":410,"reason":"Expired","message":"continue too old"})", {}};
    return page_of(asked_page(r), 3);
  });
  Client client(transport, fast());
  ListAhead list(client, resources::configmaps(), "default", pages_of_two());
  Result<ObjectList> result = make_error("not read");
  auto names = names_read(list, result);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, 410);
  EXPECT_NE(result.message().find("list again"), std::string::npos) << result.message();
  EXPECT_EQ(names, (std::vector<std::string>{"cm-0", "cm-1"}));
}

TEST(ListAhead, UnpagedIsOneRequestWhateverTheMetadataSays) {
  std::atomic<int> sent{0};
  auto transport = std::make_shared<FunctionTransport>([&](const HttpRequest&) {
    ++sent;
    return page_of(0, 5);   // says there is more
  });
  Client client(transport, fast());
  ListAhead list(client, resources::configmaps(), "default", ListOptions{});
  Result<ObjectList> result = make_error("not read");
  EXPECT_EQ(names_read(list, result).size(), 2u);
  EXPECT_TRUE(result);
  EXPECT_EQ(sent.load(), 1);
}

TEST(ListAhead, DestroyedUnreadItStopsFetching) {
  std::atomic<int> sent{0};
  auto transport = std::make_shared<FunctionTransport>([&](const HttpRequest& r) {
    ++sent;
    return page_of(asked_page(r), 1000);   // more than will ever be read
  });
  Client client(transport, fast());
  { ListAhead list(client, resources::configmaps(), "default", pages_of_two()); }
  EXPECT_LE(sent.load(), 3);
}

}  // namespace
}  // namespace weft::kube
