// rdmap/diagnosis.hpp: the Terminate Control word read as a little-endian
// C bitfield, on the octets Linux siw sends (see docs/interop.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "check/segment.hpp"
#include "rdmap/diagnosis.hpp"
#include "rdmap/error_codes.hpp"
#include "wire/hint.hpp"

namespace rdmaconf::rdmap {
namespace {

using Octets = std::vector<std::uint8_t>;

Octets cat(Octets a, const Octets& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// An untagged Read Request header (18) and its RDMAP header (28).
const Octets kReadRequestHeaders = {0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0,
                                    0, 0, 0x12, 0x34, 0, 0, 0x7f, 0, 0, 0, 0x10, 0, 0, 0, 0, 0x40,
                                    0, 0xde, 0xad, 0, 0, 0, 0x7f, 0, 0, 0, 0x20, 0};
// A tagged RDMA Write header (14).
const Octets kWriteHeader = {0xc1, 0x40, 0, 0xde, 0xad, 0, 0, 0, 0x7f, 0, 0, 0, 0x10, 0};

TEST(TerminateDiagnosis, SiwReadRequestInvalidStag) {
  // siw: RDMAP / Remote Protection / Invalid STag with M, D, R as 10 00 07 00.
  const Octets body = cat({0x10, 0x00, 0x07, 0x00, 0x00, 0x00}, kReadRequestHeaders);
  ASSERT_FALSE(decode_terminate(body).ok());
  const auto t = read_as_le_bitfield(body);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->code, protection(ErrorCode::kInvalidStag));
  EXPECT_TRUE(t->m && t->d && t->r);
  EXPECT_EQ(t->rdma_header_size, kReadRequestHeaderSize);
  const auto h = diagnose_terminate(body);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->mistake, "le-bitfield");
  // The layout itself breaks RFC 5040 §4.8's, whatever the word meant.
  EXPECT_EQ(h->rule, check::kTerminateFormat.id);
  EXPECT_NE(h->text.find("RDMAP / Remote Protection Error / Invalid STag"), std::string::npos) << h->text;
  EXPECT_NE(h->text.find("01 00 e0 00"), std::string::npos) << h->text;
}

// A report that kept only a mistake's id finds the rule it breaks here.
TEST(TerminateDiagnosis, TheRuleAMistakeBreaksByItsId) {
  EXPECT_EQ(rule_broken_by(wire::kLeBitfield.id), check::kTerminateFormat.id);
  EXPECT_EQ(rule_broken_by("byte-swapped"), "");  // an MPA mistake: it breaks the rule it explains only
  EXPECT_EQ(rule_broken_by(""), "");
}

TEST(TerminateDiagnosis, SiwWriteInvalidStag) {
  // siw: DDP / Tagged Buffer / Invalid STag with M, D as 11 00 03 00.
  const Octets body = cat({0x11, 0x00, 0x03, 0x00, 0x00, 0x40}, kWriteHeader);
  const auto h = diagnose_terminate(body);
  ASSERT_TRUE(h.has_value());
  EXPECT_NE(h->text.find("DDP / Tagged Buffer Error / Invalid STag with M, D set"), std::string::npos) << h->text;
  EXPECT_NE(h->text.find("11 00 c0 00"), std::string::npos) << h->text;
}

TEST(TerminateDiagnosis, SiwSendWithoutReceiveBuffer) {
  // siw: DDP / Untagged Buffer / no buffer (code 2) with M, D as 21 02 03 00.
  const Octets send = {0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
  const Octets body = cat({0x21, 0x02, 0x03, 0x00, 0x00, 0x10}, send);
  const auto t = read_as_le_bitfield(body);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->code.layer, ddp::Layer::kDdp);
  EXPECT_EQ(t->code.etype, 2);
  EXPECT_EQ(t->code.code, 2);
}

TEST(TerminateDiagnosis, NoHintForAWellFormedTerminate) {
  const auto right = encode_control(protection(ErrorCode::kInvalidStag), true, true, true);
  const Octets body = cat(cat(Octets(right.begin(), right.end()), {0, 0}), kReadRequestHeaders);
  ASSERT_TRUE(decode_terminate(body).ok());
  EXPECT_FALSE(diagnose_terminate(body).has_value());
}

TEST(TerminateDiagnosis, NoHintWhenTheOtherReadingIsNoBetter) {
  // Reserved bits high in the last octet: wrong either way.
  EXPECT_FALSE(diagnose_terminate(Octets{0x10, 0x00, 0x07, 0x80}).has_value());
  // The bitfield reading names a flag whose octets are missing.
  EXPECT_FALSE(diagnose_terminate(Octets{0x10, 0x00, 0x07, 0x00}).has_value());
  // An unregistered code (Layer 3) in the bitfield reading.
  EXPECT_FALSE(diagnose_terminate(Octets{0x03, 0x00, 0x08, 0x00}).has_value());
  EXPECT_FALSE(diagnose_terminate(Octets{0x10, 0x00}).has_value());
}

TEST(TerminateDiagnosis, DescribesCodesByName) {
  EXPECT_EQ(describe_code(protection(ErrorCode::kBaseOrBoundsViolation)),
            "RDMAP / Remote Protection Error / Base or bounds violation");
  EXPECT_EQ(describe_control(Octets{0x10, 0x00, 0x07, 0x00}),
            " (Layer 1, EType 0, Error Code 0x00, M/D/R 000, Reserved 0x0700)");
}

// Every diagnosed mistake has its words in one table; an id it does not know
// stands for itself (a report of another rdmaconf).
TEST(Mistakes, EachIdHasItsWordsOnce) {
  for (const wire::Mistake& m : wire::kMistakes) {
    EXPECT_FALSE(m.words.empty()) << m.id;
    EXPECT_NE(m.words, m.id);
    EXPECT_EQ(wire::mistake_words(m.id), m.words);
    EXPECT_EQ(std::count_if(wire::kMistakes.begin(), wire::kMistakes.end(),
                            [&](const wire::Mistake& o) { return o.id == m.id; }),
              1);
  }
  EXPECT_EQ(wire::mistake_words("a-mistake-of-tomorrow"), "a-mistake-of-tomorrow");
}

}  // namespace
}  // namespace rdmaconf::rdmap
