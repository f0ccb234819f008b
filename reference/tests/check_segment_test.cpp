// The rule layer (check/segment.hpp): each function names its rule, the field
// and the octet it concerns, and says nothing about a header that keeps the
// rule; every rule has exactly one implementing entry.
#include "check/segment.hpp"

#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

namespace rdmaconf::check {
namespace {

const rdmap::OpcodeInfo& row(rdmap::Opcode op) { return rdmap::info(op); }

TEST(CheckSegment, EveryRuleHasExactlyOneImplementation) {
  std::map<std::string_view, int> count;
  for (const Implementation& i : segment_implementations()) {
    ASSERT_NE(i.rule, nullptr);
    EXPECT_FALSE(i.function.empty()) << i.rule->id;
    ++count[i.rule->id];
  }
  std::set<std::string_view> ids;
  for (const Rule* r : segment_rules()) {
    EXPECT_TRUE(ids.insert(r->id).second) << "listed twice: " << r->id;
    EXPECT_EQ(count[r->id], 1) << r->id;
  }
  EXPECT_EQ(count.size(), ids.size());
}

TEST(CheckSegment, HeaderRulesNameFieldAndOctet) {
  // RFC 5041 §4.1: DV (octet 0), RV and Opcode in the RsvdULP octet (1).
  ddp::Control c = ddp::Control::from_octets(0xc1, 0x43);  // tagged, last, DV 1; RV 1, Send
  EXPECT_FALSE(ddp_version(c));
  c.dv = 2;
  auto v = ddp_version(c);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kDdpVersion);
  EXPECT_EQ(v->field, "DV");
  EXPECT_EQ(v->octet, 0u);
  EXPECT_EQ(v->seen, 2u);
  EXPECT_EQ(v->expected, 1u);

  auto rv = rdmap_version(rdmap::Control::from_octet(0x83));
  ASSERT_TRUE(rv);
  EXPECT_EQ(rv->rule, &kRdmapVersion);
  EXPECT_EQ(rv->octet, 1u);
  EXPECT_FALSE(rdmap_version(rdmap::Control::from_octet(0x43)));

  EXPECT_EQ(opcode_defined(rdmap::Control::from_octet(0x4c), nullptr)->rule, &kOpcodeDefined);
  // A Send is untagged: T=1 breaks the buffer model rule.
  auto t = opcode_buffer_model(row(rdmap::Opcode::kSend), ddp::Control::from_octets(0xc1, 0x43));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->rule, &kOpcodeTagged);
  EXPECT_EQ(t->field, "T");
  EXPECT_FALSE(opcode_buffer_model(row(rdmap::Opcode::kRdmaWrite), ddp::Control::from_octets(0xc1, 0x40)));

  EXPECT_FALSE(segment_header(14, 14));
  EXPECT_EQ(segment_header(13, 14)->rule, &kSegmentHeader);
}

TEST(CheckSegment, QueueNumber) {
  EXPECT_FALSE(queue_number(&row(rdmap::Opcode::kSend), 0));
  auto v = queue_number(&row(rdmap::Opcode::kSend), 1);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kQueueNumber);
  EXPECT_EQ(v->field, "QN");
  EXPECT_EQ(v->octet, 6u);  // RFC 5041 §4.3: QN follows the 48 bits before it
  EXPECT_EQ(v->expected, 0u);
  EXPECT_FALSE(queue_number(nullptr, 3));
  EXPECT_TRUE(queue_number(nullptr, 4));
  EXPECT_EQ(queue_number(&row(rdmap::Opcode::kAtomicRequest), 3)->expected, 1u);  // RFC 7306 §5.2: QN 1
}

TEST(CheckSegment, MessageShape) {
  EXPECT_EQ(single_segment(row(rdmap::Opcode::kRdmaReadRequest), false)->rule, &kSingleSegment);
  EXPECT_FALSE(single_segment(row(rdmap::Opcode::kSend), false));
  EXPECT_FALSE(payload_size(row(rdmap::Opcode::kRdmaReadRequest), rdmap::kReadRequestHeaderSize));
  EXPECT_EQ(payload_size(row(rdmap::Opcode::kRdmaReadRequest), 27)->rule, &kExactSize);
  EXPECT_EQ(payload_size(row(rdmap::Opcode::kTerminate), 3)->rule, &kTerminateFormat);
  EXPECT_FALSE(payload_size(row(rdmap::Opcode::kTerminate), 4));
  EXPECT_FALSE(payload_size(row(rdmap::Opcode::kSend), 0));
}

TEST(CheckSegment, UntaggedSequence) {
  QueueSequence q{true, false, 1, 0};
  EXPECT_FALSE(untagged_sequence(q, 1, 0));
  advance(q, 1, 0, false, 100);
  auto mo = untagged_sequence(q, 1, 99);
  ASSERT_TRUE(mo);
  EXPECT_EQ(mo->rule, &kMoSequence);
  EXPECT_EQ(mo->expected, 100u);
  EXPECT_EQ(mo->octet, 14u);
  EXPECT_FALSE(untagged_sequence(q, 1, 100));
  advance(q, 1, 100, true, 5);
  auto msn = untagged_sequence(q, 3, 0);
  ASSERT_TRUE(msn);
  EXPECT_EQ(msn->rule, &kMsnSequence);
  EXPECT_EQ(msn->expected, 2u);
  // RFC 5041 §4.3: MSN wraps modulo 2^32.
  QueueSequence w{true, false, 0xffffffffu, 0};
  advance(w, 0xffffffffu, 0, true, 0);
  EXPECT_FALSE(untagged_sequence(w, 0, 0));
}

TEST(CheckSegment, TaggedSequenceAndReadResponse) {
  TaggedSequence t;
  EXPECT_FALSE(tagged_sequence(t, 7, 0x1000));
  advance(t, 7, 0x1000, false, 64);
  EXPECT_FALSE(tagged_sequence(t, 7, 0x1040));
  EXPECT_EQ(tagged_sequence(t, 8, 0x1040)->field, "STag");
  EXPECT_EQ(tagged_sequence(t, 7, 0x1000)->field, "TO");

  EXPECT_EQ(read_response_solicited(0)->rule, &kReadUnsolicited);
  EXPECT_FALSE(read_response_solicited(1));
  EXPECT_FALSE(read_response_sink(5, 0x20, 5, 0x20));
  EXPECT_EQ(read_response_sink(6, 0x20, 5, 0x20)->rule, &kReadResponseSink);
  EXPECT_EQ(read_response_size(9, 8)->rule, &kReadResponseSize);
  EXPECT_FALSE(read_response_size(8, 8));
  EXPECT_FALSE(inbound_requests(4, 4));
  EXPECT_EQ(inbound_requests(5, 4)->rule, &kOrdExceeded);
  EXPECT_FALSE(atomic_response_order(9u, 9));
  EXPECT_EQ(atomic_response_order(std::nullopt, 9)->rule, &kAtomicUnsolicited);
  EXPECT_EQ(atomic_response_order(8u, 9)->expected, 8u);
  EXPECT_EQ(after_terminate(true)->rule, &kAfterTerminate);
  EXPECT_FALSE(after_terminate(false));
}

}  // namespace
}  // namespace rdmaconf::check
