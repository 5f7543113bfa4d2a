// fault_in: the pages of a range are present after it (the kernel zeroed them then), and
// what is already written stays.
#include "common/fault_in.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace weft {
namespace {

class Mapping {
 public:
  explicit Mapping(size_t bytes)
      : bytes_(bytes), at_(::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) {}
  ~Mapping() { ::munmap(at_, bytes_); }
  char* data() const { return static_cast<char*>(at_); }
  // How many of its pages are present.
  size_t present() const {
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> in((bytes_ + page - 1) / page);
    if (::mincore(at_, bytes_, in.data()) != 0) return 0;
    size_t n = 0;
    for (unsigned char c : in) n += c & 1;
    return n;
  }

 private:
  size_t bytes_;
  void* at_;
};

TEST(FaultIn, MakesTheWholePagesOfARangePresentAndKeepsWhatIsWritten) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  Mapping m(8 * page);
  ASSERT_EQ(m.present(), 0u);
  std::strcpy(m.data() + page + 10, "kept");
  ASSERT_EQ(m.present(), 1u);
  // From the middle of page 0 to the middle of page 5: pages 1 to 4 are whole.
  if (!fault_in(m.data() + page / 2, 5 * page)) GTEST_SKIP() << "the kernel has no MADV_POPULATE_WRITE";
  EXPECT_EQ(m.present(), 4u);
  EXPECT_STREQ(m.data() + page + 10, "kept");
  for (size_t i = 2 * page; i < 5 * page; ++i) ASSERT_EQ(m.data()[i], 0) << i;
}

TEST(FaultIn, ARangeWithoutAWholePageChangesNothing) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  Mapping m(2 * page);
  EXPECT_TRUE(fault_in(m.data() + 1, page));
  EXPECT_TRUE(fault_in(m.data(), 0));
  EXPECT_EQ(m.present(), 0u);
}

}  // namespace
}  // namespace weft
