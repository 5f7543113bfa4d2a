#include "tools/kube-lite/routing.h"

#include <gtest/gtest.h>

namespace weft::kube_lite {
namespace {

TEST(KubeLiteRouting, PathsToResources) {
  ResourceTypes types;
  auto r = parse_route(types, "/api/v1/namespaces/ns1/pods/p/eviction");
  ASSERT_EQ(r.kind, Route::Kind::Resource);
  EXPECT_EQ(r.type->plural, "pods");
  EXPECT_EQ(r.ns, "ns1");
  EXPECT_EQ(r.name, "p");
  EXPECT_EQ(r.subresource, "eviction");
  auto ns = parse_route(types, "/api/v1/namespaces/ns1");
  ASSERT_EQ(ns.kind, Route::Kind::Resource);
  EXPECT_EQ(ns.type->plural, "namespaces");
  EXPECT_EQ(ns.name, "ns1");
  EXPECT_EQ(ns.ns, "");
  auto all_pods = parse_route(types, "/api/v1/pods");
  EXPECT_EQ(all_pods.type->plural, "pods");
  EXPECT_EQ(all_pods.ns, "");
  auto q = parse_route(types, "/apis/scheduling.volcano.sh/v1beta1/queues/default/status");
  ASSERT_EQ(q.kind, Route::Kind::Resource);
  EXPECT_EQ(q.name, "default");
  EXPECT_EQ(q.subresource, "status");
  EXPECT_EQ(parse_route(types, "/apis/scheduling.volcano.sh/v1beta1/namespaces/x/queues").kind, Route::Kind::Unknown);
  EXPECT_EQ(parse_route(types, "/api/v1/widgets").kind, Route::Kind::Unknown);
  EXPECT_EQ(parse_route(types, "/apis").kind, Route::Kind::GroupList);
  EXPECT_EQ(parse_route(types, "/apis/policy/v1").kind, Route::Kind::ResourceList);
  EXPECT_EQ(parse_route(types, "/openapi/v3/apis/policy/v1").kind, Route::Kind::OpenApiDocument);
  EXPECT_EQ(parse_route(types, "/version").kind, Route::Kind::Version);
}

}  // namespace
}  // namespace weft::kube_lite
