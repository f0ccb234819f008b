// The start of an ONC RPC Call (RFC 5531 §9): known answers from the Linux
// NFSv3 over siw capture (pcap/tests/captures/real/ulp-nfsv3-rdma.pcap), the
// RPC messages after the RPC-over-RDMA headers of frames 61 and 54, read by
// hand against RFC 5531 §9's call_body and tshark's rpc fields.
#include "ulp/onc_rpc.hpp"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "test_hex.hpp"

namespace rdmaconf::ulp::onc_rpc {
namespace {

using test::hex;

// Frame 61: NFS version 3 WRITE (procedure 7), AUTH_UNIX credentials follow.
constexpr std::string_view kNfsWrite =
    "910ad9c7" "00000000" "00000002" "000186a3" "00000003" "00000007" "00000001";
// Frame 54: NFSACL (program 100227) version 3 GETACL (procedure 1).
constexpr std::string_view kNfsAclGetAcl =
    "8f0ad9c7" "00000000" "00000002" "00018783" "00000003" "00000001";

TEST(UlpOncRpc, CallKnownAnswers) {
  const std::vector<std::uint8_t> write = hex(kNfsWrite);
  const auto c = read_call(write);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->xid, 0x910ad9c7u);
  EXPECT_EQ(c->prog, kNfsProgram);
  EXPECT_EQ(c->vers, 3u);
  EXPECT_EQ(c->proc, 7u);
  const auto acl = read_call(hex(kNfsAclGetAcl));
  ASSERT_TRUE(acl);
  EXPECT_EQ(acl->prog, 100227u);
  EXPECT_EQ(acl->proc, 1u);
}

// A Reply, another RPC version, or fewer than six words is no Call.
TEST(UlpOncRpc, OnlyAWholeVersion2Call) {
  std::vector<std::uint8_t> m = hex(kNfsWrite);
  EXPECT_FALSE(read_call(std::vector<std::uint8_t>(m.begin(), m.begin() + 23)));
  m[7] = 1;  // msg_type REPLY
  EXPECT_FALSE(read_call(m));
  m = hex(kNfsWrite);
  m[11] = 3;  // rpcvers 3
  EXPECT_FALSE(read_call(m));
}

}  // namespace
}  // namespace rdmaconf::ulp::onc_rpc
