// A List written in parts is byte for byte the List as one text, from any offset and
// whatever the buffer's pieces.
#include "tools/kube-lite/list_body.h"

#include <gtest/gtest.h>

namespace weft::kube_lite {
namespace {

ObjectPtr stored(std::string text) {
  auto o = std::make_shared<StoredObject>();
  o->text = std::move(text);
  return o;
}

std::string written(const ListBody& body, size_t offset) {
  std::string out;
  EXPECT_TRUE(body.write_from(offset, [&](const char* d, size_t n) {
    out.append(d, n);
    return true;
  }));
  return out;
}

TEST(ListBody, WritesTheSameBytesAsItsTextFromAnyOffset) {
  ListBody body;
  body.head = R"({"kind":"PodList","metadata":{},"items":[)";
  // One item larger than the write buffer, so it goes out on its own.
  for (std::string text : {std::string(R"({"a":1})"), std::string(300 * 1024, ' ') + "{}", std::string(R"({"b":2})")})
    body.items.push_back(stored(text));
  const std::string text = body.text();
  EXPECT_EQ(text.size(), body.size());
  EXPECT_EQ(text.substr(0, body.head.size() + 8), body.head + R"({"a":1},)");
  EXPECT_EQ(text.substr(text.size() - 10), R"(,{"b":2}]})");
  for (size_t offset : {size_t{0}, size_t{5}, body.head.size(), body.head.size() + 8, text.size() - 3, text.size()})
    EXPECT_EQ(written(body, offset), text.substr(offset)) << offset;
}

TEST(ListBody, AnEmptyListIsItsHeadAndTail) {
  ListBody body;
  body.head = R"({"items":[)";
  EXPECT_EQ(body.text(), R"({"items":[]})");
  EXPECT_EQ(body.size(), body.text().size());
  EXPECT_EQ(written(body, 0), body.text());
}

TEST(ListBody, StopsWhenAWriteFails) {
  ListBody body;
  body.head = "[";
  for (int i = 0; i < 3; ++i) body.items.push_back(stored(std::string(200 * 1024, 'x')));
  int writes = 0;
  EXPECT_FALSE(body.write_from(0, [&](const char*, size_t) { return ++writes < 2; }));
  EXPECT_EQ(writes, 2);
}

}  // namespace
}  // namespace weft::kube_lite
