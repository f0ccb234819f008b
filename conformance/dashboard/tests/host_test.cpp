// http::host_allowed and http::origin_allowed: the names the dashboard
// answers to, against DNS rebinding and other sites' WebSockets (the server
// end to end: server_test.cpp, AnswersOnlyItsOwnNames).
#include <gtest/gtest.h>

#include "http_service.hpp"

namespace rdmaconf::http {
namespace {

TEST(HostAllowed, IpLiteralsAndLocalhostAlways) {
  const std::vector<std::string> none;
  for (const char* h : {"127.0.0.1", "127.0.0.1:8080", "10.1.2.3:80", "[::1]", "[::1]:8080", "[fe80::1]:1", "localhost",
                        "LOCALHOST:8080", "dash.localhost:8080"})
    EXPECT_TRUE(host_allowed(h, none)) << h;
}

TEST(HostAllowed, OtherNamesOnlyWhenGiven) {
  const std::vector<std::string> none;
  for (const char* h : {"", ":8080", "evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.1.evil.example",
                        "1.2.3", "::1", "[::1", "[::1]x", "[not-v6]:80", "a:1:2", "localhost.", "dash.lab"})
    EXPECT_FALSE(host_allowed(h, none)) << h;
  const std::vector<std::string> lab = {"Dash.Lab"};
  EXPECT_TRUE(host_allowed("dash.lab", lab));
  EXPECT_TRUE(host_allowed("DASH.LAB:9000", lab));
  EXPECT_FALSE(host_allowed("other.lab", lab));
  EXPECT_TRUE(host_allowed("anything.example", {"*"}));
  EXPECT_FALSE(host_allowed("", {"*"}));
}

TEST(OriginAllowed, AbsentOrOwnName) {
  const std::vector<std::string> none;
  EXPECT_TRUE(origin_allowed("", none)) << "not a browser";
  EXPECT_TRUE(origin_allowed("http://127.0.0.1:8080", none));
  EXPECT_TRUE(origin_allowed("http://localhost:8080", none));
  EXPECT_TRUE(origin_allowed("https://[::1]:8443", none));
  EXPECT_FALSE(origin_allowed("null", none));
  EXPECT_FALSE(origin_allowed("https://evil.example", none));
  EXPECT_FALSE(origin_allowed("http://127.0.0.1:8080/path", none));
  EXPECT_FALSE(origin_allowed("127.0.0.1", none));
  EXPECT_TRUE(origin_allowed("http://dash.lab:8080", {"dash.lab"}));
}

}  // namespace
}  // namespace rdmaconf::http
