#include "kube/selector.h"

#include <gtest/gtest.h>

namespace weft::kube {
namespace {

using nlohmann::json;

// Also checks that the pooled form a cached pod keeps gives the same answer.
bool sel(const std::string& text, const Labels& labels) {
  auto s = LabelSelector::parse(text);
  EXPECT_TRUE(s.ok()) << text << ": " << (s.ok() ? "" : s.message());
  if (!s.ok()) return false;
  StringPool pool;
  EXPECT_EQ(s->matches(labels), s->matches(InternedLabels(labels, &pool))) << text;
  return s->matches(labels);
}

TEST(InternedLabels, FindsWhatTheMapHolds) {
  StringPool pool;
  Labels l{{"app", "web"}, {"empty", ""}, {"tier", "front"}, {"volcano.sh/job-name", "j1"}};
  InternedLabels a(l, &pool), b(l, &pool), unpooled(l, nullptr);
  EXPECT_EQ(a.size(), 4u);
  for (const auto& [k, v] : l) {
    ASSERT_NE(a.find(k), nullptr) << k;
    EXPECT_EQ(*a.find(k), v);
    EXPECT_EQ(*unpooled.find(k), v);
  }
  EXPECT_EQ(a.find("apps"), nullptr);
  EXPECT_EQ(a.find("zzz"), nullptr);
  EXPECT_EQ(a.find(""), nullptr);
  EXPECT_EQ(a.find("tier"), b.find("tier"));   // one text for both records
  EXPECT_EQ(InternedLabels().find("app"), nullptr);
  json pod = {{"metadata", {{"labels", {{"b", "2"}, {"a", "1"}, {"n", 3}}}}}};
  InternedLabels read = interned_labels_of(pod, &pool);
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(*read.find("a"), "1");
  EXPECT_EQ(*read.find("n"), "3");   // as labels_of reads a non-string
  EXPECT_EQ(labels_of(pod), (Labels{{"a", "1"}, {"b", "2"}, {"n", "3"}}));
}

TEST(LabelSelector, StringForm) {
  Labels l{{"app", "web"}, {"tier", "front"}, {"env", "prod"}};
  EXPECT_TRUE(sel("", l));
  EXPECT_TRUE(sel("app=web", l));
  EXPECT_TRUE(sel("app==web,tier=front", l));
  EXPECT_FALSE(sel("app=db", l));
  EXPECT_TRUE(sel("app!=db", l));
  EXPECT_TRUE(sel("missing!=x", l));  // absent key satisfies !=
  EXPECT_TRUE(sel("env in (prod, staging)", l));
  EXPECT_FALSE(sel("env notin (prod,staging)", l));
  EXPECT_TRUE(sel("missing notin (a)", l));
  EXPECT_TRUE(sel("app", l));
  EXPECT_FALSE(sel("!app", l));
  EXPECT_TRUE(sel("!legacy,env in (prod),tier", l));
  EXPECT_TRUE(sel("weft.dev/ib-fabric", {{"weft.dev/ib-fabric", "0x1"}}));
}

TEST(LabelSelector, StringFormErrors) {
  for (const char* bad : {"a in (x", "a in ()", "a,,b", "a foo (x)", "bad key=1", "a)"}) {
    auto s = LabelSelector::parse(bad);
    EXPECT_FALSE(s.ok()) << bad;
  }
}

TEST(LabelSelector, JsonForm) {
  auto s = LabelSelector::from_json(json::parse(R"({"matchLabels":{"app":"web"},
      "matchExpressions":[{"key":"env","operator":"In","values":["prod"]},
                          {"key":"legacy","operator":"DoesNotExist"}]})"));
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(s->matches(Labels{{"app", "web"}, {"env", "prod"}}));
  EXPECT_FALSE(s->matches(Labels{{"app", "web"}, {"env", "prod"}, {"legacy", "1"}}));
  EXPECT_FALSE(s->matches(Labels{{"app", "web"}}));
  EXPECT_TRUE(LabelSelector::from_json(nullptr)->matches(Labels{}));
  auto bad = LabelSelector::from_json(json::parse(R"({"matchExpressions":[{"key":"a","operator":"Near"}]})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("matchExpressions[0].operator"), std::string::npos) << bad.message();
  EXPECT_FALSE(LabelSelector::from_json(json::parse(R"({"matchExpressions":[{"key":"a","operator":"In"}]})")).ok());
}

// Label syntax checked (upstream's LabelSelectorAsSelector): the first requirement with a
// problem is refused with all of its problems, one a line, key first, then the number of
// values, then each value; the string form alike, term by term.
TEST(LabelSelector, CheckedSyntaxNamesEveryProblemOfTheFirstBadRequirement) {
  auto bad = LabelSelector::from_json(
      json::parse(R"({"matchExpressions":[{"key":"ok","operator":"Exists"},
                                          {"key":"-k","operator":"In","values":[]},
                                          {"key":"-z","operator":"Exists"}]})"),
      LabelSyntax::Checked);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(),
            "selector.matchExpressions[1].key: '-k' is not a valid label key\n"
            "selector.matchExpressions[1].values: In/NotIn need at least one value");
  auto text = LabelSelector::parse("a=b,-c!=-d,-e", LabelSyntax::Checked);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.message(),
            "selector term '-c!=-d': '-c' is not a valid label key\n"
            "selector term '-c!=-d': '-d' (of -c) is not a valid label value");
  // Unchecked (objects the API server has checked): only the number of values counts.
  EXPECT_TRUE(LabelSelector::from_json(json::parse(R"({"matchLabels":{"-k":"-v"}})")).ok());
  EXPECT_TRUE(LabelSelector::from_json(json::parse(R"({"matchLabels":{"k":"v"}})"), LabelSyntax::Checked).ok());
}

TEST(FieldSelector, PathsAndAbsentFields) {
  json pod = json::parse(R"({"metadata":{"name":"p","namespace":"ns"},"spec":{"nodeName":"n1"},"status":{"phase":"Running"}})");
  json unbound = json::parse(R"({"metadata":{"name":"q"},"spec":{}})");
  auto s = FieldSelector::parse("spec.nodeName=n1,status.phase!=Failed");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->matches(pod));
  EXPECT_FALSE(s->matches(unbound));
  EXPECT_TRUE(FieldSelector::parse("spec.nodeName=")->matches(unbound));
  EXPECT_FALSE(FieldSelector::parse("spec.nodeName=")->matches(pod));
  EXPECT_TRUE(FieldSelector::parse("metadata.name==p")->matches(pod));
  EXPECT_FALSE(FieldSelector::parse("metadata.name").ok());
}

TEST(NodeAffinity, SelectorTermsOrExpressionsAnd) {
  json pod = json::parse(R"({"spec":{"nodeSelector":{"zone":"a"},"affinity":{"nodeAffinity":{
    "requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
      {"matchExpressions":[{"key":"gpu","operator":"In","values":["a100","h100"]},{"key":"cores","operator":"Gt","values":["16"]}]},
      {"matchFields":[{"key":"metadata.name","operator":"In","values":["special"]}]}]}}}}})");
  auto a = NodeAffinity::from_pod(pod);
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_TRUE(a->matches("n1", {{"zone", "a"}, {"gpu", "h100"}, {"cores", "32"}}));
  EXPECT_FALSE(a->matches("n1", {{"zone", "a"}, {"gpu", "h100"}, {"cores", "8"}}));
  EXPECT_FALSE(a->matches("n1", {{"zone", "b"}, {"gpu", "h100"}, {"cores", "32"}}));
  EXPECT_TRUE(a->matches("special", {{"zone", "a"}}));
  EXPECT_FALSE(a->matches("n2", {{"zone", "a"}, {"cores", "abc"}}));
  EXPECT_TRUE(NodeAffinity::from_pod(json::object())->matches("x", Labels{}));
  auto empty_terms = NodeAffinity::from_pod(json::parse(
      R"({"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}}}})"));
  EXPECT_FALSE(empty_terms->matches("x", Labels{}));
  auto bad = NodeAffinity::from_pod(json::parse(
      R"({"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"Gt","values":["1","2"]}]}]}}}}})"));
  EXPECT_FALSE(bad.ok());
}

TEST(Labels, ReadFromMetadata) {
  json o = json::parse(R"({"metadata":{"labels":{"a":"1"},"annotations":{"b":"2"}}})");
  EXPECT_EQ(labels_of(o).at("a"), "1");
  EXPECT_EQ(annotations_of(o).at("b"), "2");
  EXPECT_TRUE(labels_of(json::object()).empty());
}

}  // namespace
}  // namespace weft::kube
