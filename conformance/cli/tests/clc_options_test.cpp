// The CLC identity options that `rdmaconf run` and `rdmaconf fuzz` share
// (clc_options.hpp): one declaration, one parser, and the command line a
// reproducer repeats.
#include "cli/clc_options.hpp"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace rdmaconf::cli {
namespace {

ClcIdentityArgs parsed(std::vector<std::string> args) {
  CLI::App app;
  ClcIdentityArgs a;
  add_clc_identity_options(app, a);
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  app.parse(args);
  return a;
}

TEST(ClcOptions, DefaultsSayNothing) {
  const ClcIdentityArgs a = parsed({});
  EXPECT_EQ(a.given(), "");
  EXPECT_EQ(a.options(), "");
  std::ostringstream err;
  const auto id = clc_identity_from(a, "run", err);
  ASSERT_TRUE(id);
  EXPECT_EQ(id->eid, "RDMACONF-TEST-EID");
  EXPECT_FALSE(id->ipv4);  // auto: learned from each connection
  EXPECT_FALSE(id->gid);
  EXPECT_FALSE(id->gid_from_connection);  // fixed: the tester's own
  EXPECT_FALSE(id->mac_from_connection);
}

TEST(ClcOptions, ValuesAreParsedAndRepeatedAsGiven) {
  const ClcIdentityArgs a = parsed({"--clc-eid", "LAB EID", "--clc-prefix", "10.78.0.0/24", "--clc-gid", "::ffff:10.78.0.2",
                                    "--clc-mac", "02:11:22:33:44:55"});
  EXPECT_EQ(a.given(), "--clc-eid, --clc-prefix, --clc-gid, --clc-mac");
  EXPECT_EQ(a.options(), " --clc-eid 'LAB EID' --clc-prefix 10.78.0.0/24 --clc-gid ::ffff:10.78.0.2 --clc-mac 02:11:22:33:44:55");
  std::ostringstream err;
  const auto id = clc_identity_from(a, "fuzz", err);
  ASSERT_TRUE(id) << err.str();
  EXPECT_EQ(id->eid, "LAB EID");
  ASSERT_TRUE(id->ipv4);
  EXPECT_EQ(id->ipv4->subnet, 0x0a4e0000u);
  EXPECT_EQ(id->ipv4->prefix_length, 24);
  ASSERT_TRUE(id->gid);
  EXPECT_EQ((*id->gid)[10], 0xff);
  EXPECT_EQ((*id->gid)[15], 0x02);
  ASSERT_TRUE(id->mac);
  EXPECT_EQ((*id->mac)[5], 0x55);
  // auto learns GID and MAC from the connection.
  const auto learned = clc_identity_from(parsed({"--clc-gid", "auto", "--clc-mac", "auto"}), "fuzz", err);
  ASSERT_TRUE(learned);
  EXPECT_TRUE(learned->gid_from_connection);
  EXPECT_TRUE(learned->mac_from_connection);
  // A quote inside a value stays one shell word.
  EXPECT_EQ(parsed({"--clc-eid", "it's"}).options(), " --clc-eid 'it'\\''s'");
}

TEST(ClcOptions, MalformedValuesNameTheCommandAndTheOption) {
  struct Bad {
    std::vector<std::string> args;
    const char* says;
  };
  for (const Bad& b : {Bad{{"--clc-prefix", "auto/8"}, "rdmaconf fuzz: --clc-prefix expects auto or A.B.C.D/N, got 'auto/8'"},
                       Bad{{"--clc-gid", "fe80::zz"}, "rdmaconf fuzz: --clc-gid expects auto, fixed, an IPv6 address"},
                       Bad{{"--clc-mac", "02:11:22"}, "rdmaconf fuzz: --clc-mac expects auto, fixed or aa:bb:cc:dd:ee:ff"}}) {
    std::ostringstream err;
    EXPECT_FALSE(clc_identity_from(parsed(b.args), "fuzz", err)) << b.args.front();
    EXPECT_NE(err.str().find(b.says), std::string::npos) << err.str();
  }
}

}  // namespace
}  // namespace rdmaconf::cli
