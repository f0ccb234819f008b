// RDMAP headers (RFC 5040 §4, RFC 7306 §4), the opcode table and the error
// registry: known-answer bytes with their meaning, round trips.
#include "rdmap/headers.hpp"

#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "rdmap/error_codes.hpp"
#include "rdmap/opcodes.hpp"

namespace rdmaconf::rdmap {
namespace {

std::vector<std::uint8_t> vec(wire::Bytes b) { return {b.begin(), b.end()}; }

// RFC 5040 §4.2: RV=01 Rsvd=00 Opcode=0001 (RDMA Read Request).
TEST(RdmapHeaders, ControlFieldKnownAnswer) {
  const std::vector<std::uint8_t> octet = {0x41};
  wire::ByteReader r(octet);
  auto c = ControlHeader::decode(r);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->get(ControlSpec::Field::RV), 1u);
  EXPECT_EQ(c->get(ControlSpec::Field::Rsvd), 0u);
  EXPECT_EQ(c->get(ControlSpec::Field::Opcode), 0x1u);
  EXPECT_EQ(Control::octet(Opcode::kRdmaReadRequest), 0x41);
  EXPECT_EQ(Control::octet(Opcode::kAtomicResponse), 0x4b);
  EXPECT_EQ(Control::from_octet(0xb7).rv, 2u);
  EXPECT_EQ(Control::from_octet(0xb7).rsvd, 3u);
  EXPECT_EQ(Control::from_octet(0xb7).opcode, 7u);
}

// RFC 5040 §4.4: the 28-octet RDMA Read Request header.
TEST(RdmapHeaders, ReadRequestKnownAnswer) {
  const std::vector<std::uint8_t> wire_bytes = {
      0x00, 0x00, 0x01, 0x00,                          // Data Sink STag 0x100
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,  // Data Sink TO 0x1000
      0x00, 0x00, 0x02, 0x00,                          // RDMA Read Message Size 512
      0x00, 0x00, 0x02, 0x00,                          // Data Source STag 0x200
      0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x20, 0x00,  // Data Source TO 0xffffffff00002000
  };
  wire::ByteReader r(wire_bytes);
  auto h = ReadRequestHeader::decode(r);
  ASSERT_TRUE(h.ok());
  using F = ReadRequestSpec::Field;
  EXPECT_EQ(h->get(F::SinkSTag), 0x100u);
  EXPECT_EQ(h->get(F::SinkTO), 0x1000u);
  EXPECT_EQ(h->get(F::ReadSize), 512u);
  EXPECT_EQ(h->get(F::SourceSTag), 0x200u);
  EXPECT_EQ(h->get(F::SourceTO), 0xffffffff00002000ull);
  ReadRequestHeader b;
  b.set(F::SinkSTag, 0x100).set(F::SinkTO, 0x1000).set(F::ReadSize, 512);
  b.set(F::SourceSTag, 0x200).set(F::SourceTO, 0xffffffff00002000ull);
  EXPECT_EQ(vec(b.bytes()), wire_bytes);
}

// RFC 5040 §4.8: Layer=1 (DDP) EType=2 (untagged) Code=0x03 (MSN range), M D set.
TEST(RdmapHeaders, TerminateControlKnownAnswer) {
  const std::vector<std::uint8_t> wire_bytes = {0x12, 0x03, 0xc0, 0x00};
  wire::ByteReader r(wire_bytes);
  auto h = TerminateControlHeader::decode(r);
  ASSERT_TRUE(h.ok());
  using F = TerminateControlSpec::Field;
  EXPECT_EQ(h->get(F::Layer), 1u);
  EXPECT_EQ(h->get(F::EType), 2u);
  EXPECT_EQ(h->get(F::ErrorCode), 3u);
  EXPECT_EQ(h->get(F::M), 1u);
  EXPECT_EQ(h->get(F::D), 1u);
  EXPECT_EQ(h->get(F::R), 0u);
  EXPECT_EQ(h->get(F::Reserved), 0u);
  TerminateControlHeader b;
  b.set(F::Layer, 1).set(F::EType, 2).set(F::ErrorCode, 3).set(F::M, 1).set(F::D, 1);
  EXPECT_EQ(vec(b.bytes()), wire_bytes);
  b.set(F::R, 1).set(F::Reserved, 0x1fff);
  EXPECT_EQ(vec(b.bytes()), (std::vector<std::uint8_t>{0x12, 0x03, 0xff, 0xff}));
}

// RFC 7306 §4: Atomic Request (CmpSwap), 52 octets.
TEST(RdmapHeaders, AtomicRequestKnownAnswer) {
  const std::vector<std::uint8_t> wire_bytes = {
      0x00, 0x00, 0x00, 0x02,                          // Reserved=0, Atomic Operation=2 CmpSwap
      0xde, 0xad, 0xbe, 0xef,                          // Request Identifier
      0x00, 0x00, 0x03, 0x00,                          // Remote STag 0x300
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08,  // Remote TO 8
      0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,  // Swap Data
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  // Swap Mask: all bits
      0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22,  // Compare Data
      0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,  // Compare Mask: low half
  };
  wire::ByteReader r(wire_bytes);
  auto h = AtomicRequestHeader::decode(r);
  ASSERT_TRUE(h.ok());
  using F = AtomicRequestSpec::Field;
  EXPECT_EQ(h->get(F::Reserved), 0u);
  EXPECT_EQ(h->get(F::AtomicOpcode), 2u);
  EXPECT_EQ(h->get(F::RequestIdentifier), 0xdeadbeefu);
  EXPECT_EQ(h->get(F::RemoteSTag), 0x300u);
  EXPECT_EQ(h->get(F::RemoteTO), 8u);
  EXPECT_EQ(h->get(F::AddOrSwapData), 0x1111111111111111ull);
  EXPECT_EQ(h->get(F::AddOrSwapMask), ~0ull);
  EXPECT_EQ(h->get(F::CompareData), 0x2222222222222222ull);
  EXPECT_EQ(h->get(F::CompareMask), 0xffffffffull);
  AtomicRequestHeader b;
  b.set(F::AtomicOpcode, 2).set(F::RequestIdentifier, 0xdeadbeef).set(F::RemoteSTag, 0x300);
  b.set(F::RemoteTO, 8).set(F::AddOrSwapData, 0x1111111111111111ull).set(F::AddOrSwapMask, ~0ull);
  b.set(F::CompareData, 0x2222222222222222ull).set(F::CompareMask, 0xffffffffull);
  EXPECT_EQ(vec(b.bytes()), wire_bytes);
}

// RFC 7306 §4: Atomic Response (12 octets) and Immediate Data (8 octets).
TEST(RdmapHeaders, AtomicResponseAndImmediateKnownAnswer) {
  const std::vector<std::uint8_t> resp = {0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04,
                                          0x05, 0x06, 0x07, 0x08};
  wire::ByteReader r(resp);
  auto h = AtomicResponseHeader::decode(r);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->get(AtomicResponseSpec::Field::OriginalRequestIdentifier), 0xdeadbeefu);
  EXPECT_EQ(h->get(AtomicResponseSpec::Field::OriginalRemoteDataValue), 0x0102030405060708ull);
  ImmediateDataHeader imm;
  imm.set(ImmediateDataSpec::Field::ImmediateData, 0x0102030405060708ull);
  EXPECT_EQ(vec(imm.bytes()), (std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

// RFC 5040 §4.3 + RFC 7306 §4: one row per opcode, the DDP usage of each.
TEST(RdmapOpcodes, TableMatchesTheRfcs) {
  std::set<std::uint8_t> seen;
  for (const OpcodeInfo& i : kOpcodeTable) {
    EXPECT_TRUE(seen.insert(static_cast<std::uint8_t>(i.opcode)).second);
    EXPECT_EQ(i.tagged, !i.queue.has_value()) << i.name;
  }
  for (std::uint8_t v = 0; v < 12; ++v) EXPECT_NE(find_opcode(v), nullptr) << int(v);
  for (std::uint8_t v = 12; v < 16; ++v) EXPECT_EQ(find_opcode(v), nullptr) << int(v);
  EXPECT_EQ(info(Opcode::kRdmaReadRequest).queue, Queue::kReadRequest);
  EXPECT_EQ(info(Opcode::kTerminate).queue, Queue::kTerminate);
  EXPECT_EQ(info(Opcode::kAtomicRequest).queue, Queue::kReadRequest);  // RFC 7306 §5.2: QN 1
  EXPECT_EQ(info(Opcode::kAtomicResponse).queue, Queue::kAtomic);
  EXPECT_EQ(info(Opcode::kImmediateData).queue, Queue::kSend);
  EXPECT_TRUE(info(Opcode::kSendWithSeAndInvalidate).carries_invalidate_stag);
  EXPECT_TRUE(info(Opcode::kSendWithSeAndInvalidate).solicited_event);
  EXPECT_FALSE(info(Opcode::kSendWithSe).carries_invalidate_stag);
  EXPECT_TRUE(info(Opcode::kRdmaWrite).tagged);
  EXPECT_TRUE(info(Opcode::kRdmaReadResponse).tagged);
  EXPECT_EQ(info(Opcode::kRdmaReadRequest).rdmap_header_size, 28u);
  EXPECT_EQ(info(Opcode::kAtomicRequest).rdmap_header_size, 52u);
}

// RFC 6580's registries: every row unique and found by its triple.
TEST(RdmapErrorRegistry, EveryRowIsFoundByItsTriple) {
  std::size_t n = 0;
  for (auto rows : {rdmap_error_rows(), ddp_error_rows(), llp_error_rows()}) {
    for (const ErrorRow& row : rows) {
      EXPECT_EQ(find_error(row.triple), &row) << row.name;
      EXPECT_FALSE(row.name.empty());
      EXPECT_FALSE(row.rfc_section.empty());
      ++n;
    }
  }
  EXPECT_EQ(n, 14u + 12u + 7u);
  // Local Catastrophic covers every code of its type.
  EXPECT_EQ(find_error({Layer::kRdmap, 0, 0x42}), &kRdmapErrorRows[0]);
  EXPECT_EQ(find_error({Layer::kRdmap, 2, 0x42}), nullptr);
  EXPECT_EQ(find_error(protection(ErrorCode::kAccessRightsViolation))->name,
            "Access rights violation");
  EXPECT_EQ(find_error(code_of(LlpErrorCode::kNoMatchingRtr))->name, "No Matching RTR Option");
  EXPECT_EQ(find_error({Layer::kDdp, 2, 0x03})->name, "Invalid MSN - MSN range is not valid");
}

}  // namespace
}  // namespace rdmaconf::rdmap
