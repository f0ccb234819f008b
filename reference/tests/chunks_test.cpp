#include "wire/chunks.hpp"

#include <numeric>

#include <gtest/gtest.h>

namespace rdmaconf::wire {
namespace {

TEST(Chunks, SubrangeAndCopyPrefixAcrossEverySplit) {
  std::vector<std::uint8_t> data(40);
  std::iota(data.begin(), data.end(), 0);
  // Cut the data into 10 pieces of 4 (more than the inline capacity).
  Chunks c;
  for (std::size_t i = 0; i < data.size(); i += 4) c.append(Bytes(data).subspan(i, 4));
  c.append(Bytes{});  // empty views are dropped
  ASSERT_EQ(c.pieces(), 10u);
  ASSERT_EQ(c.size(), 40u);
  EXPECT_EQ(c.to_vector(), data);
  for (std::size_t from = 0; from <= data.size(); ++from) {
    for (std::size_t len = 0; from + len <= data.size(); ++len) {
      std::vector<std::uint8_t> expect(data.begin() + from, data.begin() + from + len);
      ASSERT_EQ(c.subrange(from, len).to_vector(), expect) << from << "+" << len;
    }
  }
  std::array<std::uint8_t, 13> head{};
  ASSERT_TRUE(c.copy_prefix(head));
  EXPECT_TRUE(std::equal(head.begin(), head.end(), data.begin()));
  std::vector<std::uint8_t> too_long(41);
  EXPECT_FALSE(c.copy_prefix(too_long));
}

}  // namespace
}  // namespace rdmaconf::wire

namespace rdmaconf::wire {
namespace {

TEST(Chunks, ClearEmptiesAndAllowsReuse) {
  std::vector<std::uint8_t> data(100, 1);
  Chunks c;
  for (std::size_t i = 0; i < 10; ++i) c.append(Bytes(data).subspan(i * 10, 10));
  c.clear();
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(c.pieces(), 0u);
  c.append(Bytes(data).first(3));
  EXPECT_EQ(c.size(), 3u);
  EXPECT_EQ(c.pieces(), 1u);
}

}  // namespace
}  // namespace rdmaconf::wire
