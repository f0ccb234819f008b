// MPA Request/Reply frames (RFC 5044 §7.1.1, RFC 6581): known-answer
// frames, every decode error (field and section asserted), the incremental
// size probe, and the encoder's overrides.
#include "mpa/req_rep.hpp"

#include <vector>

#include <gtest/gtest.h>

namespace rdmaconf::mpa {
namespace {

using Bytes = std::vector<std::uint8_t>;
Bytes to_vec(wire::Bytes b) { return Bytes(b.begin(), b.end()); }
Bytes cat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}


EnhancedData enhanced(bool a, bool b, bool c, bool d, std::uint16_t ird, std::uint16_t ord) {
  EnhancedData e;
  e.peer_to_peer = a;
  e.rtr_send = b;
  e.rtr_write = c;
  e.rtr_read = d;
  e.ird = ird;
  e.ord = ord;
  return e;
}
ReqRepFields fields(FrameKind kind, bool markers, bool crc, bool reject, std::uint8_t rev = kRevision1) {
  ReqRepFields f;
  f.kind = kind;
  f.markers = markers;
  f.crc = crc;
  f.reject = reject;
  f.revision = rev;
  return f;
}
ReqRepDecodeOptions expecting(std::optional<FrameKind> kind, bool check_reserved = true) {
  ReqRepDecodeOptions o;
  o.expect = kind;
  o.check_reserved = check_reserved;
  return o;
}

const Bytes kReqKey = {0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,   // "MPA ID R"
                       0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65};  // "eq Frame"
const Bytes kRepKey = {0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,   // "MPA ID R"
                       0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65};  // "ep Frame"

// Rev 1 Request, CRC wanted, no Markers, 3 octets of private data "abc".
const Bytes kRequestRev1 = cat(kReqKey, {0x40,        // M=0 C=1 R=0 Res=0
                                         0x01,        // Rev 1
                                         0x00, 0x03,  // PD_Length 3
                                         0x61, 0x62, 0x63});
// Rev 1 Reply rejecting the connection: C=1 R=1, no private data.
const Bytes kRejectRev1 = cat(kRepKey, {0x60, 0x01, 0x00, 0x00});
// Rev 1 Reply accepting with Markers wanted: M=1 C=1.
const Bytes kReplyRev1 = cat(kRepKey, {0xc0, 0x01, 0x00, 0x00});
// Rev 2 Request with enhanced data (RFC 6581): C=1 S=1, PD_Length 6:
// A=1 B=0 IRD=16 | C=0 D=1 ORD=4, then "hi".
const Bytes kRequestRev2 = cat(kReqKey, {0x50, 0x02, 0x00, 0x06,  //
                                         0x80, 0x10,              // A=1 B=0 IRD=16
                                         0x40, 0x04,              // C=0 D=1 ORD=4
                                         0x68, 0x69});
// Rev 2 Reply with enhanced data: C=1 S=1, PD_Length 4: A=1 IRD=4 | D=1 ORD=16.
const Bytes kReplyRev2 = cat(kRepKey, {0x50, 0x02, 0x00, 0x04, 0x80, 0x04, 0x40, 0x10});

TEST(MpaReqRep, DecodeRequestRev1) {
  auto f = decode_req_rep(kRequestRev1);
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_EQ(f->kind, FrameKind::kRequest);
  EXPECT_FALSE(f->markers);
  EXPECT_TRUE(f->crc);
  EXPECT_FALSE(f->reject);
  EXPECT_FALSE(f->enhanced);
  EXPECT_EQ(f->revision, 1);
  EXPECT_EQ(to_vec(f->private_data), (Bytes{'a', 'b', 'c'}));
  EXPECT_EQ(to_vec(f->ulp_private_data), (Bytes{'a', 'b', 'c'}));
  EXPECT_EQ(f->frame_size, 23u);
  // Views, not copies.
  EXPECT_EQ(f->private_data.data(), kRequestRev1.data() + 20);
}

TEST(MpaReqRep, DecodeRejectAndReplyRev1) {
  auto rej = decode_req_rep(kRejectRev1, expecting(FrameKind::kReply));
  ASSERT_TRUE(rej.ok()) << rej.error().to_string();
  EXPECT_EQ(rej->kind, FrameKind::kReply);
  EXPECT_TRUE(rej->reject);
  EXPECT_TRUE(rej->crc);
  auto rep = decode_req_rep(kReplyRev1);
  ASSERT_TRUE(rep.ok());
  EXPECT_TRUE(rep->markers);
  EXPECT_FALSE(rep->reject);
  EXPECT_TRUE(rep->private_data.empty());
}

TEST(MpaReqRep, DecodeRev2EnhancedRequestAndReply) {
  auto f = decode_req_rep(kRequestRev2);
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_EQ(f->revision, 2);
  EXPECT_TRUE(f->enhanced);
  ASSERT_TRUE(f->enhanced_data.has_value());
  EXPECT_EQ(*f->enhanced_data, enhanced(true, false, false, true, 16, 4));
  EXPECT_EQ(f->private_data.size(), 6u);
  EXPECT_EQ(to_vec(f->ulp_private_data), (Bytes{'h', 'i'}));

  auto r = decode_req_rep(kReplyRev2);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->enhanced_data->ird, 4);
  EXPECT_EQ(r->enhanced_data->ord, 16);
  EXPECT_TRUE(r->ulp_private_data.empty());
}

// Rev 2 without S: no enhanced data, all private data belongs to the ULP.
TEST(MpaReqRep, Rev2WithoutEnhancedFlag) {
  const Bytes frame = cat(kReqKey, {0x40, 0x02, 0x00, 0x02, 0x01, 0x02});
  auto f = decode_req_rep(frame);
  ASSERT_TRUE(f.ok());
  EXPECT_FALSE(f->enhanced);
  EXPECT_FALSE(f->enhanced_data.has_value());
  EXPECT_EQ(f->ulp_private_data.size(), 2u);
}

TEST(MpaReqRep, EncodeMatchesKnownAnswers) {
  const Bytes abc = {'a', 'b', 'c'};
  ReqRepFields request = fields(FrameKind::kRequest, false, true, false);
  request.private_data = abc;
  EXPECT_EQ(encode_req_rep(request), kRequestRev1);
  EXPECT_EQ(encode_req_rep(fields(FrameKind::kReply, false, true, true)), kRejectRev1);
  EXPECT_EQ(encode_req_rep(fields(FrameKind::kReply, true, true, false)), kReplyRev1);
  const Bytes hi = {'h', 'i'};
  ReqRepFields rev2 = fields(FrameKind::kRequest, false, true, false, kRevision2);
  rev2.enhanced = enhanced(true, false, false, true, 16, 4);
  rev2.private_data = hi;
  EXPECT_EQ(encode_req_rep(rev2), kRequestRev2);
  // Appending to a buffer that already holds octets.
  Bytes out = {0xee};
  EXPECT_EQ(encode_req_rep(rev2, out), kRequestRev2.size());
  EXPECT_EQ(Bytes(out.begin() + 1, out.end()), kRequestRev2);
}

TEST(MpaReqRep, EncodeDecodeRoundTripOfEveryFlagCombination) {
  const Bytes pd = {1, 2, 3, 4, 5};
  for (int bits = 0; bits < 16; ++bits) {
    for (std::uint8_t rev : {kRevision1, kRevision2}) {
      ReqRepFields in = fields((bits & 8) ? FrameKind::kReply : FrameKind::kRequest, (bits & 1) != 0,
                               (bits & 2) != 0, (bits & 8) && (bits & 4), rev);
      in.private_data = pd;
      if (rev == kRevision2 && (bits & 4)) in.enhanced = enhanced(true, false, true, false, 0x3fff, 1);
      const Bytes frame = encode_req_rep(in);
      auto out = decode_req_rep(frame);
      ASSERT_TRUE(out.ok()) << bits << ": " << out.error().to_string();
      EXPECT_EQ(out->kind, in.kind);
      EXPECT_EQ(out->markers, in.markers);
      EXPECT_EQ(out->crc, in.crc);
      EXPECT_EQ(out->reject, in.reject);
      EXPECT_EQ(out->revision, rev);
      EXPECT_EQ(out->enhanced_data, in.enhanced);
      EXPECT_EQ(to_vec(out->ulp_private_data), pd);
    }
  }
}

// --- every decode error: field, rule's section, offset -----------------

void expect_error(const Bytes& frame, std::string_view field, std::string_view section,
                  std::size_t offset, ReqRepDecodeOptions options = ReqRepDecodeOptions()) {
  auto f = decode_req_rep(frame, options);
  ASSERT_FALSE(f.ok()) << "decoded although " << field << " is wrong";
  EXPECT_EQ(f.error().field, field) << f.error().to_string();
  EXPECT_EQ(f.error().rfc_section, section) << f.error().to_string();
  EXPECT_EQ(f.error().offset, offset) << f.error().to_string();
}

TEST(MpaReqRepErrors, ShorterThanHeader) {
  expect_error(Bytes(kRequestRev1.begin(), kRequestRev1.begin() + 19), "MPA Request/Reply frame header",
               "RFC 5044 §7.1.1", 0);
}

TEST(MpaReqRepErrors, WrongKey) {
  Bytes frame = kRequestRev1;
  frame[9] = 'x';
  expect_error(frame, "Key", "RFC 5044 §7.1.1", 0);
  // The right key for the wrong frame.
  expect_error(kReplyRev1, "Key", "RFC 5044 §7.1.1", 0, expecting(FrameKind::kRequest));
  expect_error(kRequestRev1, "Key", "RFC 5044 §7.1.1", 0, expecting(FrameKind::kReply));
}

TEST(MpaReqRepErrors, RevisionNeitherOneNorTwo) {
  for (std::uint8_t rev : {0, 3, 255}) {
    Bytes frame = kRequestRev1;
    frame[17] = rev;
    expect_error(frame, "Rev", "RFC 5044 §7.1.1", 17);
  }
}

TEST(MpaReqRepErrors, PdLengthAbove512) {
  Bytes frame = cat(kReqKey, {0x40, 0x01, 0x02, 0x01});  // PD_Length 513
  frame.resize(20 + 513, 0);
  expect_error(frame, "PD_Length", "RFC 5044 §7.1.4", 18);
}

TEST(MpaReqRepErrors, PdLengthBeyondReceivedOctets) {
  Bytes frame = kRequestRev1;
  frame.pop_back();
  expect_error(frame, "PD_Length", "RFC 5044 §7.1.4", 18);
}

// RFC 5044 §7.1.1: Res is sent as zero and not checked on receipt. By
// default a receiver accepts it (keeping the bits in the header for an
// observer); with check_reserved the sender's violation is an error.
TEST(MpaReqRepErrors, ReservedBitsSet) {
  Bytes frame = kRequestRev1;
  frame[16] |= 0x08;  // what Linux siw sends as MPA_RR_FLAG_GSO_EXP
  auto accepted = decode_req_rep(frame);
  ASSERT_TRUE(accepted.ok()) << "Res is not checked on receipt by default";
  EXPECT_EQ(accepted->header.get(ReqRepHeader::Field::Res), 0x8u) << "the bits stay visible";
  expect_error(frame, "Res", "RFC 5044 §7.1.1", 16, expecting(std::nullopt, true));
  // S is a reserved bit in a Rev 1 frame.
  Bytes s_in_rev1 = kRequestRev1;
  s_in_rev1[16] |= 0x10;
  EXPECT_TRUE(decode_req_rep(s_in_rev1).ok());
  expect_error(s_in_rev1, "S", "RFC 5044 §7.1.1", 16, expecting(std::nullopt, true));
}

TEST(MpaReqRepErrors, RejectFlagInARequest) {
  Bytes frame = kRequestRev1;
  frame[16] |= 0x20;
  expect_error(frame, "R", "RFC 5044 §7.1.1", 16);
}

TEST(MpaReqRepErrors, EnhancedDataTooShort) {
  const Bytes frame = cat(kReqKey, {0x50, 0x02, 0x00, 0x03, 0x80, 0x10, 0x40});
  expect_error(frame, "IRD", "RFC 6581 §9", 20);
}

// --- the incremental size probe ------------------------------------------

TEST(MpaReqRep, RequiredFrameSizeGrowsWithTheHeaderOnly) {
  for (std::size_t n = 0; n < 20; ++n) {
    auto need = required_frame_size(wire::Bytes(kRequestRev2).first(n), FrameKind::kRequest);
    ASSERT_TRUE(need.ok()) << n;
    EXPECT_EQ(*need, 20u) << n;
  }
  for (std::size_t n = 20; n <= kRequestRev2.size(); ++n) {
    auto need = required_frame_size(wire::Bytes(kRequestRev2).first(n));
    ASSERT_TRUE(need.ok());
    EXPECT_EQ(*need, 26u);
  }
}

TEST(MpaReqRep, RequiredFrameSizeFailsFastOnKeyAndLimit) {
  // The third octet is already wrong: no need to wait for 20 octets.
  const Bytes bad = {'M', 'P', 'X'};
  auto need = required_frame_size(bad);
  ASSERT_FALSE(need.ok());
  EXPECT_EQ(need.error().field, "Key");
  // A Reply key where a Request is expected.
  auto wrong = required_frame_size(wire::Bytes(kReplyRev1).first(10), FrameKind::kRequest);
  ASSERT_FALSE(wrong.ok());
  // PD_Length 0xffff is refused before anything waits for 65535 octets.
  const Bytes huge = cat(kReqKey, {0x40, 0x01, 0xff, 0xff});
  auto big = required_frame_size(huge);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().field, "PD_Length");
  EXPECT_EQ(big.error().rfc_section, "RFC 5044 §7.1.4");
}

// --- scapy-style overrides --------------------------------------------

TEST(MpaReqRep, EncodeOverridesBuildMalformedFrames) {
  const Bytes pd = {9, 9};
  ReqRepFields f = fields(FrameKind::kRequest, false, true, true, 7);  // R is illegal in a Request
  f.private_data = pd;
  f.key = kReplyKey;
  f.s_flag = true;
  f.res = 0xf;
  f.pd_length = 600;
  auto frame = encode_req_rep(f);
  const Bytes expect = cat(kRepKey, {0x7f,        // M=0 C=1 R=1 S=1 Res=0xf
                                     0x07,        // Rev 7
                                     0x02, 0x58,  // PD_Length 600
                                     9, 9});
  EXPECT_EQ(frame, expect);
  const Bytes raw = {0xde, 0xad};
  ReqRepFields r = fields(FrameKind::kRequest, false, true, false, kRevision2);
  r.enhanced = EnhancedData{};
  r.raw_private_data = wire::Bytes(raw);
  auto raw_frame = encode_req_rep(r);
  EXPECT_EQ(Bytes(raw_frame.begin() + 20, raw_frame.end()), raw);
  EXPECT_EQ(raw_frame[19], 2);       // PD_Length follows the raw octets
  EXPECT_EQ(raw_frame[16] & 0x10, 0x10);  // S still set by the enhanced field
}

}  // namespace
}  // namespace rdmaconf::mpa
