#include "wire/ring.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace rdmaconf::wire {
namespace {

std::vector<int> ring_contents(const Ring<int>& r) {
  std::vector<int> out;
  r.for_each([&](int v) { out.push_back(v); });
  return out;
}

TEST(Ring, AllocatesNothingUntilTheFirstPush) {
  Ring<int> r;
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.capacity(), 0u);
  r.push_back(7);
  EXPECT_GT(r.capacity(), 0u);
  EXPECT_EQ(r.front(), 7);
}

TEST(Ring, KeepsFirstInFirstOutAcrossTheWrapAndAGrowth) {
  Ring<int> r;
  int next_in = 0, next_out = 0;
  // Fill part-way, drain some so the front moves, then push past the
  // capacity so the array grows while its elements wrap around its end.
  for (int i = 0; i < 3; ++i) r.push_back(next_in++);
  const std::size_t first_capacity = r.capacity();
  for (int i = 0; i < 2; ++i) EXPECT_EQ(r.take_front(), next_out++);
  while (r.size() <= first_capacity) r.push_back(next_in++);
  EXPECT_GT(r.capacity(), first_capacity);
  std::vector<int> expected;
  for (int v = next_out; v < next_in; ++v) expected.push_back(v);
  EXPECT_EQ(ring_contents(r), expected);
  for (std::size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i], next_out + static_cast<int>(i));
  EXPECT_EQ(r.back(), next_in - 1);
  while (!r.empty()) EXPECT_EQ(r.take_front(), next_out++);
  EXPECT_EQ(next_out, next_in);
}

TEST(Ring, ReusesItsArrayOnceItReachedItsDepth) {
  Ring<int> r;
  for (int i = 0; i < 5; ++i) r.push_back(i);
  const std::size_t depth = r.capacity();
  // Many rounds at or below that depth: no growth.
  for (int round = 0; round < 100; ++round) {
    while (!r.empty()) r.pop_front();
    for (int i = 0; i < 5; ++i) r.push_back(round + i);
    EXPECT_EQ(r.front(), round);
  }
  r.clear();
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.capacity(), depth);
}

TEST(Ring, ALeavingElementLeavesNothingBehind) {
  auto held = std::make_shared<int>(1);
  Ring<std::shared_ptr<int>> r;
  r.push_back(held);
  r.push_back(held);
  EXPECT_EQ(held.use_count(), 3);
  (void)r.take_front();
  EXPECT_EQ(held.use_count(), 2);  // the slot it left was reset
  r.clear();
  EXPECT_EQ(held.use_count(), 1);
}

}  // namespace
}  // namespace rdmaconf::wire
