#include "script.hpp"

#include <gtest/gtest.h>

namespace rdmaconf::conformance {
TEST(Script, Placeholder) { EXPECT_TRUE(parse_duration("2s").has_value()); }
}  // namespace rdmaconf::conformance
