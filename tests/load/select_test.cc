#include "collectors/load/select.h"

#include <gtest/gtest.h>

#include "tests/load/fake_source.h"

namespace weft::load {
namespace {

using testing::FakeSource;

SourceFactories factories(bool ebpf_works, int* ebpf_calls) {
  SourceFactories f;
  f.ebpf = [ebpf_works, ebpf_calls]() -> Result<std::unique_ptr<LoadSource>> {
    (*ebpf_calls)++;
    if (!ebpf_works) return make_error("ebpf: loading load.bpf.o: Permission denied; libbpf/verifier: R0 invalid mem access");
    return std::unique_ptr<LoadSource>(std::make_unique<FakeSource>("ebpf"));
  };
  f.procfs = []() -> Result<std::unique_ptr<LoadSource>> {
    return std::unique_ptr<LoadSource>(std::make_unique<FakeSource>("procfs"));
  };
  return f;
}

TEST(SelectSource, ParsesBackendNames) {
  EXPECT_EQ(*parse_backend("auto"), Backend::Auto);
  EXPECT_EQ(*parse_backend("ebpf"), Backend::Ebpf);
  EXPECT_EQ(*parse_backend("procfs"), Backend::Procfs);
  auto bad = parse_backend("bpf");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("auto|ebpf|procfs"), std::string::npos);
}

TEST(SelectSource, AutoPrefersEbpf) {
  int calls = 0;
  auto s = select_source(Backend::Auto, factories(true, &calls));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->source->name(), "ebpf");
  EXPECT_NE(s->reason.find("auto"), std::string::npos);
}

TEST(SelectSource, AutoFallsBackToProcfsAndSaysWhy) {
  int calls = 0;
  auto s = select_source(Backend::Auto, factories(false, &calls));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->source->name(), "procfs");
  EXPECT_NE(s->reason.find("R0 invalid mem access"), std::string::npos) << s->reason;
}

TEST(SelectSource, ExplicitEbpfFailureIsAnError) {
  int calls = 0;
  auto s = select_source(Backend::Ebpf, factories(false, &calls));
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("Permission denied"), std::string::npos);
}

TEST(SelectSource, ExplicitProcfsNeverTriesEbpf) {
  int calls = 0;
  auto s = select_source(Backend::Procfs, factories(true, &calls));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->source->name(), "procfs");
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace weft::load
