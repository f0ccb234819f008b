// wire::show_octets (wire/show.hpp): text as its first line, escaped; binary as hex.
#include "wire/show.hpp"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace rdmaconf::wire {
namespace {

std::string show(std::string_view s) {
  const std::vector<std::uint8_t> v(s.begin(), s.end());
  return show_octets(v);
}

TEST(ShowOctets, TextIsItsFirstLine) {
  EXPECT_EQ(show("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"), "HTTP/1.1 400 Bad Request");
  EXPECT_EQ(show("SSH-2.0-OpenSSH_9.2\r\n"), "SSH-2.0-OpenSSH_9.2");
  EXPECT_EQ(show("no line end"), "no line end");
  EXPECT_EQ(show("a\tb\n"), "a\\tb");
  EXPECT_EQ(show("\r\nafter"), "\\r\\nafter");
  EXPECT_EQ(show(std::string(100, 'x')), std::string(72, 'x') + "...");
  EXPECT_EQ(show(""), "");
}

TEST(ShowOctets, BinaryIsHex) {
  EXPECT_EQ(show(std::string_view("\x16\x03\x01\x02\x00", 5)), "16 03 01 02 00");
  EXPECT_EQ(show(std::string(20, '\x01')), "01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 ...");
  // One control octet among text makes it binary: nothing is hidden.
  EXPECT_EQ(show(std::string_view("MPA\x00", 4)), "4d 50 41 00");
}

}  // namespace
}  // namespace rdmaconf::wire
