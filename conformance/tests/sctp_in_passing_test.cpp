// Rules broken in passing over SCTP (docs/sctp-ddp.md): a case's chunks,
// put back together as the association's packets (engine/sctp_packets.hpp),
// go to the capture observer's SCTP rules, as a TCP case's octets go to
// its MPA rules; what the IUT breaks there fails the case.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/engine.hpp"
#include "engine/in_passing.hpp"
#include "engine/sctp_packets.hpp"
#include "sctp/messages.hpp"
#include "sctp/packet.hpp"

namespace rdmaconf::conformance {
namespace {

const Catalogue& catalogue() {
  static const Catalogue c = load_catalogue(RDMACONF_SOURCE_DIR "/conformance/cases");
  return c;
}

CaseResult run_one(std::string_view id, const char* fault = nullptr) {
  FaultSet f;
  if (fault) f.set(find_fault(fault)->id);
  RunOptions o;
  o.time_scale = 0.25;
  o.llp = RunOptions::Llp::kSctp;
  o.sctp = memory_sctp_factory(f);
  auto cases = select(catalogue(), {}, {std::string(id)});
  EXPECT_EQ(cases.size(), 1u) << id;
  auto results = run_cases(cases, o);
  EXPECT_EQ(results.size(), 1u);
  return std::move(results.at(0));
}

bool broke(const CaseResult& r, std::string_view rule) {
  return std::any_of(r.in_passing.begin(), r.in_passing.end(), [&](const InPassing& p) { return p.rule == rule; });
}

// The case checks echoes, not the U flag; the observer does (RFC 5043 §10).
TEST(SctpInPassing, ChunksWithoutTheUFlagFailACaseThatDoesNotLookAtThem) {
  const CaseResult clean = run_one("ddp-echo-msn-increment");
  EXPECT_EQ(clean.verdict, Verdict::kPass) << clean.reason;
  EXPECT_TRUE(clean.in_passing.empty());
  const CaseResult broken = run_one("ddp-echo-msn-increment", "sctp-ordered-chunks");
  EXPECT_EQ(broken.verdict, Verdict::kFail) << broken.reason;
  EXPECT_TRUE(broke(broken, "rfc5043-10-unordered"));
}

// DDP messages from an IUT whose INIT-ACK lacked DDP's Adaptation Layer
// Indication (§5.1, §11.1) are judged from the record's INIT-ACK.
TEST(SctpInPassing, AnInitAckWithoutTheIndicationIsJudged) {
  SctpExchange a;
  a.iut_init.outbound_streams = a.iut_init.inbound_streams = 16;
  for (const auto& [from_tester, function] :
       {std::pair{true, sctp::FunctionCode::kInitiate}, std::pair{false, sctp::FunctionCode::kAccept}}) {
    sctp::SessionControlFields f;
    f.function = function;
    SctpChunk c{0, sctp::kPpidSessionControl, true, {}};
    sctp::encode_session_control(f, c.octets);
    a.messages.push_back({from_tester, 0, std::move(c)});
  }
  EXPECT_FALSE(judge_in_passing(a, Role::kResponder).empty());
  a.iut_init.indication = sctp::kAdaptationIndicationDdp;
  EXPECT_TRUE(judge_in_passing(a, Role::kResponder).empty());
}

// The packets: INIT and INIT ACK with what each side announced, then one
// DATA chunk per message (fragments beyond kRecordedFragment octets), TSNs
// counting up per side, CRC32c right.
TEST(SctpPackets, TheRecordBecomesTheAssociationsPackets) {
  SctpExchange a;
  a.tester_port = 41000;
  a.iut_port = 9899;
  a.tester_init.streams = 16;
  a.iut_init = {sctp::kAdaptationIndicationDdp, 16, 16};
  a.messages.push_back({true, 1, SctpChunk{0, sctp::kPpidSessionControl, true, {0, 0, 0, 1}}});
  a.messages.push_back(
      {false, 2, SctpChunk{0, sctp::kPpidDdpSegment, false, std::vector<std::uint8_t>(kRecordedFragment + 5, 0xab)}});
  const auto packets = sctp_packets(a);
  ASSERT_EQ(packets.size(), 5u);  // INIT, INIT ACK, 1 chunk, 2 fragments
  std::vector<sctp::ChunkView> chunks;
  std::vector<std::uint16_t> ports;
  for (const SctpPacket& p : packets) {
    auto h = sctp::decode_packet_header(p.octets);
    ASSERT_TRUE(h);
    EXPECT_TRUE(h->checksum_ok());
    ports.push_back(h->source_port);
    sctp::ChunkWalker walk(h->chunks);
    auto c = walk.next();
    ASSERT_TRUE(c && *c);
    chunks.push_back(**c);
  }
  EXPECT_EQ(ports, (std::vector<std::uint16_t>{41000, 9899, 41000, 9899, 9899}));
  auto init = sctp::decode_init_chunk(chunks[0]);
  auto ack = sctp::decode_init_chunk(chunks[1]);
  ASSERT_TRUE(init && ack);
  EXPECT_FALSE(init->ack);
  EXPECT_EQ(init->adaptation_indication, sctp::kAdaptationIndicationDdp);  // SctpInit's default
  EXPECT_TRUE(ack->ack);
  EXPECT_EQ(ack->adaptation_indication, sctp::kAdaptationIndicationDdp);
  auto first = sctp::decode_data_chunk(chunks[2]);
  auto frag1 = sctp::decode_data_chunk(chunks[3]);
  auto frag2 = sctp::decode_data_chunk(chunks[4]);
  ASSERT_TRUE(first && frag1 && frag2);
  EXPECT_EQ(first->tsn, init->initial_tsn);
  EXPECT_TRUE(first->unordered && first->beginning && first->ending);
  EXPECT_EQ(frag1->tsn, ack->initial_tsn);
  EXPECT_EQ(frag2->tsn, ack->initial_tsn + 1);
  EXPECT_TRUE(frag1->beginning && !frag1->ending && !frag2->beginning && frag2->ending);
  EXPECT_FALSE(frag1->unordered);
  EXPECT_EQ(frag1->user_data.size() + frag2->user_data.size(), kRecordedFragment + 5);
}

}  // namespace
}  // namespace rdmaconf::conformance
