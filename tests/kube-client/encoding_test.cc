#include <gtest/gtest.h>

#include "kube/client/client.h"
#include "kube/client/list_decoder.h"
#include "kube/client/resource.h"
#include "kube/client/watch_decoder.h"

namespace weft::kube {
namespace {

TEST(KubeClientPaths, CoreGroupAndNamedGroupsNamespacedOrNot) {
  EXPECT_EQ(resources::pods().collection_path("default"), "/api/v1/namespaces/default/pods");
  EXPECT_EQ(resources::pods().collection_path(""), "/api/v1/pods");
  EXPECT_EQ(resources::nodes().object_path("ignored", "n1"), "/api/v1/nodes/n1");
  EXPECT_EQ(resources::pods().object_path("ns", "p", "binding"), "/api/v1/namespaces/ns/pods/p/binding");
  EXPECT_EQ(resources::leases().object_path("kube-system", "weft"),
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/weft");
  EXPECT_EQ(resources::podgroups().object_path("t", "pg", "status"),
            "/apis/scheduling.volcano.sh/v1beta1/namespaces/t/podgroups/pg/status");
  EXPECT_EQ(resources::queues().collection_path("x"), "/apis/scheduling.volcano.sh/v1beta1/queues");
  EXPECT_EQ(resources::leases().api_version(), "coordination.k8s.io/v1");
}

TEST(KubeClientEncoding, QueryComponentsArePercentEncoded) {
  EXPECT_EQ(url_encode("app=web,tier in (a,b)"), "app%3Dweb%2Ctier%20in%20%28a%2Cb%29");
  EXPECT_EQ(url_encode("!legacy"), "%21legacy");
  EXPECT_EQ(url_encode("weft.dev/ib-leaf"), "weft.dev%2Fib-leaf");
  EXPECT_EQ(url_encode("a~b_c-d.e"), "a~b_c-d.e");
  EXPECT_EQ(url_encode("\xc3\xa9"), "%C3%A9");
  for (std::string s : {"app=web,tier in (a,b)", "x+y z", "%41", "é"}) EXPECT_EQ(url_decode(url_encode(s)), s);
}

TEST(KubeClientEncoding, ListAndWatchQueries) {
  ListOptions o;
  EXPECT_EQ(list_query(o), "");
  o.label_selector = "app=web";
  o.field_selector = "spec.nodeName=n1";
  o.limit = 500;
  o.continue_token = "abc=";
  EXPECT_EQ(list_query(o), "?labelSelector=app%3Dweb&fieldSelector=spec.nodeName%3Dn1&limit=500&continue=abc%3D");
  ListOptions w;
  w.resource_version = "42";
  w.timeout_seconds = 60;
  EXPECT_EQ(watch_query(w, true), "?watch=1&resourceVersion=42&allowWatchBookmarks=true&timeoutSeconds=60");
  EXPECT_EQ(watch_query(ListOptions{}, false), "?watch=1");
}

TEST(KubeClientListDecoder, HandsOverItemsAndReadsListMeta) {
  std::string body =
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"77","continue":"c1"},)"
      R"("items":[{"metadata":{"name":"a","labels":{"x":"1"}},"spec":{"containers":[{"name":"c"}]}},)"
      R"({"metadata":{"name":"b"}}]})";
  std::vector<nlohmann::json> items;
  auto meta = decode_list(body, [&](nlohmann::json&& j) { items.push_back(std::move(j)); });
  ASSERT_TRUE(meta) << meta.message();
  EXPECT_EQ(meta->resource_version, "77");
  EXPECT_EQ(meta->continue_token, "c1");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0]["metadata"]["labels"]["x"], "1");
  EXPECT_EQ(items[0]["spec"]["containers"][0]["name"], "c");
  EXPECT_EQ(items[1]["metadata"]["name"], "b");
}

TEST(KubeClientListDecoder, RejectsNonListsAndBrokenJson) {
  auto none = [](nlohmann::json&&) {};
  EXPECT_TRUE(decode_list(R"({"items":[],"metadata":{}})", none));
  EXPECT_TRUE(decode_list(R"({"items":null,"metadata":{}})", none));
  auto broken = decode_list(R"({"items":[{"a":)", none);
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.message().find("not valid JSON"), std::string::npos);
  auto not_list = decode_list(R"({"kind":"Status"})", none);
  ASSERT_FALSE(not_list);
  EXPECT_NE(not_list.message().find("not a List"), std::string::npos);
  EXPECT_FALSE(decode_list("[1,2]", none));
}

TEST(KubeClientListDecoder, EveryTruncationIsAnErrorNotACrash) {
  std::string body =
      R"({"kind":"List","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a\"}"},"x":[1,{"y":"]"}]},)"
      R"({"metadata":{"name":"b"}}]})";
  std::vector<std::string> names;
  auto full = decode_list(body, [&](nlohmann::json&& j) { names.push_back(j["metadata"]["name"]); });
  ASSERT_TRUE(full) << full.message();
  EXPECT_EQ(names, (std::vector<std::string>{"a\"}", "b"}));
  for (size_t n = 0; n < body.size(); ++n) {
    auto r = decode_list(body.substr(0, n), [](nlohmann::json&&) {});
    EXPECT_FALSE(r) << "accepted a truncation at " << n;
  }
  EXPECT_FALSE(decode_list(body + "x", [](nlohmann::json&&) {}));
}

// Found by fuzz/list_decoder_fuzz.cc: list metadata of the wrong type threw.
TEST(KubeClientListDecoder, ListMetadataOfTheWrongTypeIsAnError) {
  auto none = [](nlohmann::json&&) {};
  auto r = decode_list(R"({"kind":"PodList","metadata":{"continue":[{"name":"c"}]},"items":[]})", none);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "list metadata.continue is not a string");
  EXPECT_FALSE(decode_list(R"({"metadata":{"resourceVersion":7},"items":[]})", none).ok());
  auto fine = decode_list(R"({"metadata":{"resourceVersion":"7","continue":null},"items":[]})", none);
  ASSERT_TRUE(fine.ok()) << fine.message();
  EXPECT_EQ(fine->resource_version, "7");
}

TEST(KubeClientWatchDecoder, SplitsEventsAcrossArbitraryChunks) {
  std::string stream =
      R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}})"
      "\n"
      R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"5"}}})"
      "\n\n"
      R"({"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"6"}}})"
      "\n";
  for (size_t chunk = 1; chunk <= stream.size(); chunk += 7) {
    WatchDecoder d;
    std::vector<std::string> seen;
    for (size_t i = 0; i < stream.size(); i += chunk) {
      ASSERT_TRUE(d.feed(std::string_view(stream).substr(i, chunk), [&](WatchEvent&& e) {
        seen.push_back(e.type + ":" + e.object["metadata"]["resourceVersion"].get<std::string>());
        return true;
      }));
    }
    EXPECT_EQ(seen, (std::vector<std::string>{"ADDED:1", "BOOKMARK:5", "DELETED:6"})) << chunk;
  }
  WatchDecoder bad;
  EXPECT_FALSE(bad.feed("{\"kind\":\"Status\"}\n", [](WatchEvent&&) { return true; }));
  EXPECT_NE(bad.error().find("not a watch event"), std::string::npos);
}

TEST(KubeClientApiError, NamesVerbPathStatusReasonAndMessage) {
  HttpResponse r;
  r.status = 409;
  r.body = R"({"kind":"Status","status":"Failure","reason":"Conflict","message":"the object has been modified"})";
  auto e = api_error("PUT", "/api/v1/nodes/n1", r);
  EXPECT_EQ(e.message, "PUT /api/v1/nodes/n1: HTTP 409 Conflict: the object has been modified");
  EXPECT_EQ(e.code, 409);
  r.status = 502;
  r.body = "Bad Gateway\n";
  EXPECT_EQ(api_error("GET", "/x", r).message, "GET /x: HTTP 502: Bad Gateway");
}

}  // namespace
}  // namespace weft::kube
