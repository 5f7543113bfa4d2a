#include "kube/scenario.h"

#include <gtest/gtest.h>

#include "tests/support/process.h"

namespace weft::kube {
namespace {

TEST(Scenario, MultiDocumentYamlWithTypedScalars) {
  auto r = load_objects_text(R"(
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {weft.dev/ib-fabric: "0x0000000000000001", count: "3"}
status: {allocatable: {cpu: 64, memory: 512Gi}}
---
# a comment-only document between separators is skipped
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: g, namespace: default}
spec: {minMember: 4, queue: q, ratio: 0.5, flag: true, none: ~}
)", "s.yaml");
  ASSERT_TRUE(r.ok()) << r.message();
  ASSERT_EQ(r->size(), 2u);
  const auto& node = (*r)[0].object;
  EXPECT_TRUE(node["metadata"]["labels"]["count"].is_string());
  EXPECT_TRUE(node["status"]["allocatable"]["cpu"].is_number_integer());
  const auto& pg = (*r)[1].object;
  EXPECT_EQ(pg["spec"]["minMember"].get<int>(), 4);
  EXPECT_DOUBLE_EQ(pg["spec"]["ratio"].get<double>(), 0.5);
  EXPECT_TRUE(pg["spec"]["flag"].get<bool>());
  EXPECT_TRUE(pg["spec"]["none"].is_null());
  EXPECT_EQ((*r)[1].document, 3);
  EXPECT_EQ((*r)[1].where(), "s.yaml: document 3 (PodGroup default/g)");
}

TEST(Scenario, JsonListAndArray) {
  auto r = load_objects_text(
      R"({"kind":"List","apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}},
          {"apiVersion":"v1","kind":"Node","metadata":{"name":"b"}}]})", "l.json");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[1].document, 2);
  auto a = load_objects_text(R"([{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}])", "a.json");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->size(), 1u);
}

// A JSON List is decoded item by item; what comes out must be what the whole-document
// parse gives, and whatever is not a List (or is broken) must fall back to it.
TEST(Scenario, JsonListItemByItemMatchesTheWholeDocumentParse) {
  std::string items = R"([{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},)"
                      R"("spec":{"priority":-3,"x":1.5e3,"n":null,"s":"q\"}u","containers":[{"name":"c"}]}},)"
                      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}])";
  auto listed = load_objects_text(R"({"items":)" + items + R"(,"apiVersion":"v1","kind":"PodList"})", "l.json");
  auto array = load_objects_text(items, "a.json");
  ASSERT_TRUE(listed.ok()) << listed.message();
  ASSERT_TRUE(array.ok()) << array.message();
  ASSERT_EQ(listed->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ((*listed)[i].object, (*array)[i].object);
    EXPECT_EQ((*listed)[i].document, static_cast<int>(i + 1));
  }
  EXPECT_EQ((*listed)[0].object["spec"]["s"], "q\"}u");
  // Not a List kind: one object, items and all.
  auto one = load_objects_text(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"items":[1]})", "c.json");
  ASSERT_TRUE(one.ok()) << one.message();
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].object["kind"], "ConfigMap");
  // A broken item: the whole-document parser's error, naming the file and byte.
  auto bad = load_objects_text(R"({"kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":}}]})",
                               "b.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("b.json: JSON error at byte"), std::string::npos) << bad.message();
}

TEST(Scenario, YamlErrorNamesFileDocumentAndLine) {
  auto r = load_objects_text("apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: [Pod\n", "bad.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("bad.yaml: document 2: YAML error at line"), std::string::npos) << r.message();
}

TEST(Scenario, MissingFieldsNameTheDocument) {
  auto r = load_objects_text("apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {}\n", "m.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "m.yaml: document 2 (Pod): missing field 'metadata.name'");
  auto k = load_objects_text("apiVersion: v1\nmetadata: {name: a}\n", "k.yaml");
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.message(), "k.yaml: document 1: missing field 'kind'");
  auto j = load_objects_text("{\"kind\": ", "j.json");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.message().find("j.json: JSON error"), std::string::npos);
}

TEST(Scenario, FileErrors) {
  auto r = load_objects_file("/nonexistent/scenario.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "/nonexistent/scenario.yaml: cannot open file");
  weft::testing::TempDir dir;
  weft::testing::write_file(dir.file("ok.yaml"), "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n");
  auto ok = load_objects_file(dir.file("ok.yaml"));
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ((*ok)[0].file, dir.file("ok.yaml"));
}

// yaml-cpp's LoadAll loops forever on a stray ',' outside a flow collection (found by
// fuzz/scenario_fuzz.cc): documents are loaded one by one, so this returns.
TEST(Scenario, StrayCommaDoesNotHang) {
  for (const char* text : {",\"apiVersion\":\"v1\",\"kind\":\"PodList\"}", ",", "- a\n,", "---\n,a\n---\n,}"}) {
    auto r = load_objects_text(text, "stray.yaml");
    EXPECT_FALSE(r.ok() && !r->empty()) << text;   // nothing usable comes out, and it ends
  }
}

// YAML text must be Unicode; a Latin-1 byte used to pass through yaml-cpp and throw
// later, when an error message serialised the string (found by fuzz/scheduler_config_fuzz.cc).
TEST(Scenario, YamlThatIsNotUtf8IsAnError) {
  auto r = yaml_to_json("tiers:\n- plugins:\n  - name: caf\xe9\n", "conf");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "conf: line 3, column 14: not UTF-8 (YAML text must be)");
  auto objects = load_objects_text("apiVersion: v1\nkind: Node\nmetadata: {name: \"\xc0\xaf\"}\n", "n.yaml");
  ASSERT_FALSE(objects.ok());
  EXPECT_NE(objects.message().find("n.yaml: line 3, column 19: not UTF-8"), std::string::npos) << objects.message();
  for (const char* bad : {"a: \xed\xa0\x80", "a: \xf4\x90\x80\x80", "a: \xe2\x82", "a: \x80"})
    EXPECT_FALSE(yaml_to_json(bad, "x").ok()) << bad;
  auto fine = yaml_to_json("name: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "x");
  ASSERT_TRUE(fine.ok()) << fine.message();
  EXPECT_EQ((*fine)["name"], "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

// Found by fuzz/descheduler_policy_fuzz.cc: yaml-cpp reads the escapes \N and \_ as the
// single bytes 0x85 and 0xa0, and the first error message that serialised the string threw.
TEST(Scenario, EscapesThatMakeAScalarNotUtf8AreAnError) {
  auto r = yaml_to_json("apiVersion: \"x\\N\"\n", "policy.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "policy.yaml: YAML error at line 1, column 13: this scalar is not UTF-8 once its escapes are read");
  EXPECT_FALSE(yaml_to_json("{\"k\\_\": 1}", "x").ok());   // a key too
  auto objects = load_objects_text("apiVersion: v1\nkind: Node\nmetadata: {name: \"a\\_\"}\n", "n.yaml");
  ASSERT_FALSE(objects.ok());
  EXPECT_NE(objects.message().find("n.yaml: document 1: YAML error at line 3"), std::string::npos) << objects.message();
  // Found by fuzz/scenario_fuzz.cc: a key that is a map or a list threw past the handler.
  for (const char* key : {"{[a]: 1}", "? {b: 1}\n: 2\n"})
    EXPECT_FALSE(yaml_to_json(key, "x").ok()) << key;
  EXPECT_FALSE(load_objects_text("apiVersion: v1\nkind: Node\nmetadata: {name: a, labels: {[x]: y}}\n", "n.yaml").ok());
  auto fine = yaml_to_json("a: \"\\L \\x85\"", "x");   // escapes yaml-cpp writes as UTF-8
  ASSERT_TRUE(fine.ok()) << fine.message();
  EXPECT_EQ((*fine)["a"], "\xe2\x80\xa8 \xc2\x85");
}

TEST(Scenario, SplitsDocumentsAsYamlDoes) {
  auto docs = split_yaml_documents("# head\na: 1\n---\n# only a comment\n--- {b: 2}\nc: 3\n...\n# after the end\n...\nd: 4\n");
  ASSERT_EQ(docs.size(), 4u);
  EXPECT_EQ(docs[0].text, "# head\na: 1\n");
  EXPECT_EQ(docs[0].first_line, 0);
  EXPECT_EQ(docs[1].text, "---\n# only a comment\n");
  EXPECT_EQ(docs[2].text, "--- {b: 2}\nc: 3\n...\n");
  EXPECT_EQ(docs[2].first_line, 4);
  EXPECT_EQ(docs[3].text, "d: 4\n");
  EXPECT_EQ(docs[3].index, 4);
  EXPECT_EQ(split_yaml_documents("---\na: 1").size(), 1u);   // nothing before the first marker
  EXPECT_TRUE(split_yaml_documents("").empty());
  EXPECT_EQ(split_yaml_documents("a: \"---\"\n----\n").size(), 1u);   // not markers
  auto bad = load_objects_text("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\nkind: [\n", "bad.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("bad.yaml: document 2: YAML error at line 6"), std::string::npos) << bad.message();
}

// A file read as one document (a scheduler --config, a descheduler --policy) used to drop
// everything after a "---" without a word.
// yaml-cpp 0.7's LoadAll never returned on a document starting with ',' (found by
// fuzz/descheduler_policy_fuzz.cc): each document is loaded alone and such a text answers.
TEST(Scenario, YamlToJsonAnswersADocumentStartingWithAComma) {
  for (const char* text : {", metrics: {auth: {username: u}}}", "---\n,", "# c\n,", "  ,"}) {
    auto r = yaml_to_json(text, "policy.yaml");
    if (r) {
      EXPECT_FALSE(r->is_object()) << text;   // a scalar at most, which readers refuse
    }
  }
  auto two = yaml_to_json("a: 1\n---\nb: {c: }}", "x");
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.message().find("x: YAML error at line 3"), std::string::npos) << two.message();
}

TEST(Scenario, YamlToJsonRefusesASecondDocumentNamingIt) {
  auto r = yaml_to_json("kind: A\n---\n# only a comment\n---\nkind: B\n", "policy.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "policy.yaml: document 3 (line 4): a second YAML document; this file takes exactly one");
  auto one = yaml_to_json("---\nkind: A\n---\n", "x");
  ASSERT_TRUE(one.ok()) << one.message();
  EXPECT_EQ((*one)["kind"], "A");
}

}  // namespace
}  // namespace weft::kube
