// The JSON nesting bound both services check before parsing
// (conformance/http/json_depth.hpp).
#include "json_depth.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using rdmaconf::http::json_nesting_within;

TEST(JsonDepth, CountsOpenedArraysAndObjects) {
  EXPECT_TRUE(json_nesting_within(R"({"a": [1, {"b": 2}]})", 3));
  EXPECT_FALSE(json_nesting_within(R"({"a": [1, {"b": 2}]})", 2));
  EXPECT_TRUE(json_nesting_within(std::string(8, '[') + std::string(8, ']'), 8));
  EXPECT_FALSE(json_nesting_within(std::string(9, '[') + std::string(9, ']'), 8));
  // Siblings do not add up: depth is what is open at once.
  EXPECT_TRUE(json_nesting_within("[[],[],[],[],[],[]]", 2));
}

TEST(JsonDepth, BracketsInStringsDoNotCount) {
  EXPECT_TRUE(json_nesting_within(R"({"a": "[[[[[[[[[[{{{{{{"})", 1));
  // An escaped quote does not end the string; an escaped backslash does not
  // escape the quote after it.
  EXPECT_TRUE(json_nesting_within(R"({"a": "\"[[[[[["})", 1));
  EXPECT_FALSE(json_nesting_within(R"({"a": "\\", "b": [[[]]]})", 3));
}

TEST(JsonDepth, UnbalancedClosersNeverGoBelowZero) {
  // Closers first must not lend credit to the openers after them.
  EXPECT_FALSE(json_nesting_within("]]]]][[[", 2));
}

}  // namespace
