// The MPA startup rules of the rule layer (check/mpa_startup.hpp): each
// function names its rule and field, and says nothing about frames that keep
// the rule; a frame-codec error names the row of its field's rule.
#include "check/mpa_startup.hpp"

#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"

#include <gtest/gtest.h>

namespace rdmaconf::check {
namespace {

mpa::ReqRepFrame reply_with_rev(std::uint8_t rev) {
  mpa::ReqRepFields f;
  f.kind = mpa::FrameKind::kReply;
  f.revision = rev;
  static std::vector<std::uint8_t> octets;
  octets = mpa::encode_req_rep(f);
  return *mpa::decode_req_rep(octets);
}

TEST(CheckMpaStartup, ReplyRevisionNotAboveTheRequests) {
  EXPECT_FALSE(reply_revision(2, reply_with_rev(2)));
  EXPECT_FALSE(reply_revision(2, reply_with_rev(1)));  // lower: the initiator's choice (RFC 6581 §10)
  auto v = reply_revision(1, reply_with_rev(2));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kReplyRevision);
  EXPECT_EQ(v->field, "Rev");
  EXPECT_EQ(v->octet, 17u);
  EXPECT_EQ(v->seen, 2u);
  EXPECT_EQ(v->expected, 1u);
  // A rejecting Reply names the responder's own revision, higher or not
  // (RFC 5044 App. C.2.1: Rev 1 to a Rev 0 Request, then the close).
  mpa::ReqRepFields reject;
  reject.kind = mpa::FrameKind::kReply;
  reject.reject = true;
  reject.revision = 2;
  const auto octets = mpa::encode_req_rep(reject);
  EXPECT_FALSE(reply_revision(1, *mpa::decode_req_rep(octets)));
}

TEST(CheckMpaStartup, ReplyEnhancedInKind) {
  // RFC 6581 §10: S answered with S, no S with no S.
  mpa::ReqRepFields f;
  f.kind = mpa::FrameKind::kReply;
  f.revision = mpa::kRevision2;
  const std::vector<std::uint8_t> plain = mpa::encode_req_rep(f);
  f.enhanced = mpa::EnhancedData{false, false, false, false, 4, 4};
  const std::vector<std::uint8_t> enhanced = mpa::encode_req_rep(f);
  const mpa::ReqRepFrame plain_reply = *mpa::decode_req_rep(plain);
  const mpa::ReqRepFrame enhanced_reply = *mpa::decode_req_rep(enhanced);
  EXPECT_FALSE(reply_enhanced(false, plain_reply));
  EXPECT_FALSE(reply_enhanced(true, enhanced_reply));
  auto missing = reply_enhanced(true, plain_reply);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->rule, &kReplyEnhanced);
  EXPECT_EQ(missing->field, "S");
  EXPECT_EQ(missing->octet, 16u);  // S is bit 131: octet 16, after M, C and R
  EXPECT_EQ(missing->seen, 0u);
  EXPECT_EQ(reply_enhanced(false, enhanced_reply)->seen, 1u);
}

TEST(CheckMpaStartup, ResponderOrdAndNoNegotiation) {
  // RFC 6581 §9.1.
  const mpa::EnhancedData request{false, false, false, false, 4, 8};
  EXPECT_FALSE(responder_ord(request, {false, false, false, false, 16, 4}));  // equal to our IRD
  auto v = responder_ord(request, {false, false, false, false, 16, 5});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kResponderOrd);
  EXPECT_EQ(v->field, "ORD");
  EXPECT_EQ(v->seen, 5u);
  EXPECT_EQ(v->expected, 4u);
  // 0x3FFF on either side is outside automatic negotiation.
  EXPECT_FALSE(responder_ord({false, false, false, false, 0x3fff, 8}, {false, false, false, false, 16, 0x3fff}));
  EXPECT_FALSE(responder_ord(request, {false, false, false, false, 16, 0x3fff}));

  EXPECT_FALSE(no_negotiation(request, {false, false, false, false, 16, 4}));
  EXPECT_FALSE(no_negotiation({false, false, false, false, 0x3fff, 0x3fff}, {false, false, false, false, 0x3fff, 0x3fff}));
  auto ird = no_negotiation({false, false, false, false, 4, 0x3fff}, {false, false, false, false, 16, 4});
  ASSERT_TRUE(ird);
  EXPECT_EQ(ird->rule, &kNoNegotiation);
  EXPECT_EQ(ird->field, "IRD");
  EXPECT_EQ(ird->seen, 16u);
  EXPECT_EQ(ird->expected, 0x3fffu);
  auto ord = no_negotiation({false, false, false, false, 0x3fff, 8}, {false, false, false, false, 16, 4});
  ASSERT_TRUE(ord);
  EXPECT_EQ(ord->field, "ORD");
}

TEST(CheckMpaStartup, PeerToPeerFlags) {
  const mpa::EnhancedData client_server{};
  mpa::EnhancedData p2p_none;
  p2p_none.peer_to_peer = true;
  mpa::EnhancedData p2p_write = p2p_none;
  p2p_write.rtr_write = true;
  mpa::EnhancedData p2p_all = p2p_write;
  p2p_all.rtr_send = p2p_all.rtr_read = true;

  EXPECT_FALSE(p2p_offer(client_server));
  EXPECT_FALSE(p2p_offer(p2p_write));
  auto offer = p2p_offer(p2p_none);
  ASSERT_TRUE(offer);
  EXPECT_EQ(offer->rule, &kP2pOffer);
  EXPECT_EQ(offer->octet, 20u);  // the IRD/ORD block follows the 20-octet header

  EXPECT_FALSE(p2p_echo(p2p_all, p2p_write));
  EXPECT_FALSE(p2p_echo(client_server, client_server));
  auto echo = p2p_echo(p2p_all, client_server);
  ASSERT_TRUE(echo);
  EXPECT_EQ(echo->rule, &kP2pEcho);
  EXPECT_EQ(echo->field, "A");
  EXPECT_EQ(p2p_echo(client_server, p2p_write)->seen, 1u);

  // Several kinds, and kinds not offered, are allowed; none is not.
  EXPECT_FALSE(reply_rtr_at_least_one(p2p_write, p2p_all));
  EXPECT_FALSE(reply_rtr_at_least_one(client_server, p2p_none));  // A not asked: not this rule's
  auto rtr = reply_rtr_at_least_one(p2p_all, p2p_none);
  ASSERT_TRUE(rtr);
  EXPECT_EQ(rtr->rule, &kReplyRtrAtLeastOne);
}

TEST(CheckMpaStartup, RtrKindsAndTheFirstFpdu) {
  using K = mpa::RtrKind;
  const auto untagged_last = ddp::Control::from_octets(0x41, 0x40);  // L, DV 1; RV 1
  const auto tagged_last = ddp::Control::from_octets(0xc1, 0x40);
  const auto send = static_cast<std::uint8_t>(rdmap::Opcode::kSend);
  const auto write = static_cast<std::uint8_t>(rdmap::Opcode::kRdmaWrite);
  const auto read = static_cast<std::uint8_t>(rdmap::Opcode::kRdmaReadRequest);
  EXPECT_EQ(rtr_kind(untagged_last, send, 0, 0), K::kZeroLengthSend);
  EXPECT_EQ(rtr_kind(untagged_last, send, 1, 0), K::kNone);
  EXPECT_EQ(rtr_kind(ddp::Control::from_octets(0x01, 0x40), send, 0, 0), K::kNone);  // L clear
  EXPECT_EQ(rtr_kind(tagged_last, write, 0, 0), K::kZeroLengthWrite);
  EXPECT_EQ(rtr_kind(untagged_last, write, 0, 0), K::kNone);
  EXPECT_EQ(rtr_kind(untagged_last, read, rdmap::kReadRequestHeaderSize, 0), K::kZeroLengthRead);
  EXPECT_EQ(rtr_kind(untagged_last, read, rdmap::kReadRequestHeaderSize, 4), K::kNone);

  mpa::RtrKinds write_only;
  write_only.write = true;
  EXPECT_FALSE(rtr_first_fpdu(write_only, K::kZeroLengthWrite));
  auto v = rtr_first_fpdu(write_only, K::kZeroLengthSend);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kRtrFirst);
  EXPECT_TRUE(rtr_first_fpdu(write_only, K::kNone));
}

TEST(CheckMpaStartup, FrameCodecErrorsNameTheirRow) {
  auto rule_of = [](std::vector<std::uint8_t> octets) {
    mpa::ReqRepDecodeOptions strict;
    strict.check_reserved = true;
    auto r = mpa::decode_req_rep(octets, strict);
    EXPECT_FALSE(r);
    return r ? nullptr : &req_rep_rule(r.error());
  };
  mpa::ReqRepFields f;
  f.kind = mpa::FrameKind::kRequest;
  f.revision = 1;
  f.res = 1;
  EXPECT_EQ(rule_of(mpa::encode_req_rep(f)), &kReqRepReserved);
  f.res = 0;
  f.s_flag = true;  // S is a Res bit in a Rev 1 frame
  EXPECT_EQ(rule_of(mpa::encode_req_rep(f)), &kReqRepReserved);
  f.s_flag.reset();
  f.revision = 3;
  EXPECT_EQ(rule_of(mpa::encode_req_rep(f)), &kReqRepRevision);
  f.revision = 1;
  f.reject = true;
  EXPECT_EQ(rule_of(mpa::encode_req_rep(f)), &kRequestReject);
  f.reject = false;
  f.revision = 2;
  f.s_flag = true;  // S without the 4 octets of IRD/ORD data
  EXPECT_EQ(rule_of(mpa::encode_req_rep(f)), &kEnhancedDataShort);
  f.s_flag.reset();
  f.revision = 1;
  f.key = mpa::kReplyKey;
  f.key->at(0) = 'X';
  EXPECT_EQ(rule_of(mpa::encode_req_rep(f)), &kReqRepKey);
  mpa::ReqRepFields big;
  big.pd_length = 600;
  auto too_long = mpa::required_frame_size(mpa::encode_req_rep(big));
  ASSERT_FALSE(too_long);
  EXPECT_EQ(&req_rep_rule(too_long.error()), &kPdLengthMax);
}

}  // namespace
}  // namespace rdmaconf::check
