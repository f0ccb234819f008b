// The SMC-R link-group rules of the rule layer (check/smcr.hpp): each
// function names its rule and field, and says nothing about a message that
// keeps the rule; every rule has exactly one implementing entry.
#include "check/smcr.hpp"

#include <map>
#include <vector>

#include <gtest/gtest.h>

namespace rdmaconf::check {
namespace {

TEST(CheckSmcr, EveryRuleHasExactlyOneImplementation) {
  std::map<std::string_view, int> count;
  for (const Implementation& i : smcr_implementations()) ++count[i.rule->id];
  for (const Rule* r : smcr_rules()) EXPECT_EQ(count[r->id], 1) << r->id;
  EXPECT_EQ(count.size(), smcr_rules().size());
}

// A 44-octet TEST LINK v2 (RFC 7609 App. A.3.8; Linux type 0x27), request or reply.
std::vector<std::uint8_t> test_link(bool reply) {
  std::vector<std::uint8_t> v = {0x27, 0x2c, 0x00, static_cast<std::uint8_t>(reply ? 0x80 : 0x00)};
  v.resize(44, 0);
  return v;
}

TEST(CheckSmcr, ReplyNeedsAnOpenRequest) {
  const auto req = test_link(false);
  const auto rep = test_link(true);
  auto request = smcr::decode_llc(req);
  auto reply = smcr::decode_llc(rep);
  ASSERT_TRUE(request.ok() && reply.ok());
  // Requests are never judged by this rule; a reply with one open request is fine.
  EXPECT_FALSE(llc_reply_answers_request(*request, 0));
  EXPECT_FALSE(llc_reply_answers_request(*reply, 1));
  auto v = llc_reply_answers_request(*reply, 0);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kLlcReplyAnswersRequest);
  EXPECT_EQ(v->field, "R");
  EXPECT_EQ(v->octet, 3u);
}

TEST(CheckSmcr, ConsumerNeverAheadOfProducer) {
  // Same wrap: equal is fine, one octet beyond is not.
  EXPECT_FALSE(consumer_not_ahead({0, 4096}, {0, 4096}));
  EXPECT_FALSE(consumer_not_ahead({0, 0}, {0, 4096}));
  auto v = consumer_not_ahead({0, 4097}, {0, 4096});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kCdcConsumerNotAhead);
  EXPECT_EQ(v->field, "Consumer Cursor");
  EXPECT_EQ(v->octet, 20u);
  EXPECT_EQ(v->seen, 4097u);
  EXPECT_EQ(v->expected, 4096u);
  // The producer wrapped and the consumer has not: behind, whatever the offsets.
  EXPECT_FALSE(consumer_not_ahead({0, 60000}, {1, 100}));
  // The consumer in the next wrap: ahead, also across the 16-bit wrap of the count.
  EXPECT_TRUE(consumer_not_ahead({1, 0}, {0, 65000}));
  EXPECT_TRUE(consumer_not_ahead({0, 0}, {0xFFFF, 10}));
  EXPECT_FALSE(consumer_not_ahead({0xFFFF, 10}, {0, 0}));
  // Wrap counts are serial numbers: two or more wraps ahead is ahead too,
  // behind by up to half the space is behind.
  EXPECT_TRUE(consumer_not_ahead({2, 0}, {0, 65000}));
  EXPECT_TRUE(consumer_not_ahead({1, 0}, {0xFFFE, 10}));
  EXPECT_TRUE(consumer_not_ahead({0x7FFF, 0}, {0, 0}));
  EXPECT_FALSE(consumer_not_ahead({0x8000, 0}, {0, 0}));
  EXPECT_FALSE(consumer_not_ahead({0, 0}, {3, 0}));
}

// A 44-octet CDC message (RFC 7609 App. A.4, Figure 41) with the given
// sequence number, producer and consumer cursors and flag octets.
std::vector<std::uint8_t> cdc(std::uint16_t seq, smcr::Cursor prod, smcr::Cursor cons, std::uint8_t flags = 0,
                              std::uint8_t state = 0) {
  std::vector<std::uint8_t> v(44, 0);
  v[0] = 0xFE;
  v[1] = 44;
  v[2] = static_cast<std::uint8_t>(seq >> 8);
  v[3] = static_cast<std::uint8_t>(seq);
  v[7] = 1;  // alert token 1
  auto put = [&](std::size_t at, smcr::Cursor c) {
    v[at] = static_cast<std::uint8_t>(c.wrap >> 8);
    v[at + 1] = static_cast<std::uint8_t>(c.wrap);
    for (int i = 0; i < 4; ++i) v[at + 2 + i] = static_cast<std::uint8_t>(c.count >> (24 - 8 * i));
  };
  put(10, prod);
  put(18, cons);
  v[24] = flags;
  v[25] = state;
  return v;
}

smcr::CdcMessage decoded(const std::vector<std::uint8_t>& octets) {
  auto m = smcr::decode_cdc(octets);
  EXPECT_TRUE(m.ok());
  return *m;
}

TEST(CheckSmcr, CursorsStayInsideTheirRmbe) {
  const auto octets = cdc(1, {0, 65535}, {0, 4096});
  EXPECT_FALSE(cursor_within_rmbe(decoded(octets), 65536, 16384));
  // The producer cursor is judged against the receiver's RMBE ...
  auto v = cursor_within_rmbe(decoded(octets), 65535, 16384);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kCdcCursorWithinRmbe);
  EXPECT_EQ(v->field, "Producer Cursor");
  EXPECT_EQ(v->octet, 12u);
  EXPECT_EQ(v->seen, 65535u);
  EXPECT_EQ(v->expected, 65535u);
  // ... the consumer cursor against the sender's own.
  v = cursor_within_rmbe(decoded(octets), 65536, 4096);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->field, "Consumer Cursor");
  EXPECT_EQ(v->octet, 20u);
  // A failover validation message's cursors are not significant.
  EXPECT_FALSE(cursor_within_rmbe(decoded(cdc(1, {0, 65535}, {0, 4096}, 0x08)), 16, 16));
  // Behind an eyecatcher (§4.2) the first data octet is 4: a cursor below it
  // points into the eyecatcher (A.4).
  EXPECT_FALSE(cursor_within_rmbe(decoded(cdc(1, {0, 4}, {0, 4})), 16384, 16384, 4));
  v = cursor_within_rmbe(decoded(cdc(1, {0, 3}, {0, 4})), 16384, 16384, 4);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->field, "Producer Cursor");
  EXPECT_EQ(v->seen, 3u);
  EXPECT_EQ(v->expected, 4u);
  v = cursor_within_rmbe(decoded(cdc(1, {0, 4}, {7, 0})), 16384, 16384, 4);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->field, "Consumer Cursor");
  EXPECT_FALSE(cursor_within_rmbe(decoded(cdc(1, {0, 0}, {0, 0})), 16384, 16384));
}

TEST(CheckSmcr, SequenceNumbersCountFromOne) {
  EXPECT_FALSE(cdc_sequence_number(decoded(cdc(1, {}, {})), std::nullopt));
  EXPECT_FALSE(cdc_sequence_number(decoded(cdc(8, {}, {})), 7));
  EXPECT_FALSE(cdc_sequence_number(decoded(cdc(0, {}, {})), 0xFFFF));  // wraps to 0
  auto v = cdc_sequence_number(decoded(cdc(2, {}, {})), std::nullopt);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kCdcSequenceNumber);
  EXPECT_EQ(v->octet, 2u);
  EXPECT_EQ(v->seen, 2u);
  EXPECT_EQ(v->expected, 1u);
  EXPECT_TRUE(cdc_sequence_number(decoded(cdc(7, {}, {})), 7));  // repeated
  // A failover validation message repeats the number of the message it validates.
  EXPECT_FALSE(cdc_sequence_number(decoded(cdc(3, {}, {}, 0x08)), 7));
}

TEST(CheckSmcr, WritesStayInsideTheRmbe) {
  constexpr std::uint64_t kStart = 0xff39bb55c6030000, kSize = 65536;
  EXPECT_FALSE(write_inside_rmbe(kStart, 4096, kStart, kSize));
  EXPECT_FALSE(write_inside_rmbe(kStart + kSize - 4096, 4096, kStart, kSize));
  auto v = write_inside_rmbe(kStart + kSize - 4096, 4097, kStart, kSize);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kWriteInsideRmbe);
  EXPECT_EQ(v->field, "Virtual Address");
  EXPECT_TRUE(write_inside_rmbe(kStart - 1, 1, kStart, kSize));
  EXPECT_FALSE(write_inside_rmbe(kStart + kSize, 0, kStart, kSize));  // empty, at the end
  // An address near 2^64 does not wrap into the range.
  EXPECT_TRUE(write_inside_rmbe(~std::uint64_t{0} - 10, 4096, ~std::uint64_t{0} - 100, 64));
  EXPECT_TRUE(write_inside_rmbe(kStart, ~std::uint64_t{0}, kStart, kSize));
}

TEST(CheckSmcr, ProducerCursorTracksWrites) {
  EXPECT_FALSE(producer_tracks_writes({0, 4096}, {0, 4096}, true));
  auto v = producer_tracks_writes({0, 4096}, {0, 8192}, true);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kProducerCursorTracksWrites);
  EXPECT_EQ(v->field, "Virtual Address");
  v = producer_tracks_writes({1, 4096}, {0, 4096}, false);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->field, "Producer Cursor");
  EXPECT_EQ(v->octet, 12u);
}

TEST(CheckSmcr, UrgentPresentOnlyWithPending) {
  EXPECT_FALSE(urgent_present_pending(decoded(cdc(1, {}, {}, 0x60))));  // P and U
  EXPECT_FALSE(urgent_present_pending(decoded(cdc(1, {}, {}, 0x40))));  // P alone
  auto v = urgent_present_pending(decoded(cdc(1, {}, {}, 0x20)));        // U alone
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kUrgentPresentPending);
  EXPECT_EQ(v->octet, 24u);
}

TEST(CheckSmcr, NothingWrittenAfterDone) {
  EXPECT_FALSE(no_writes_after_done(false, true, {}, {}));
  EXPECT_FALSE(no_writes_after_done(true, false, {0, 4096}, {0, 4096}));
  auto v = no_writes_after_done(true, true, {}, {});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kNoWritesAfterDone);
  v = no_writes_after_done(true, false, {0, 4096}, {0, 8192});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->field, "Producer Cursor");
}

TEST(CheckSmcr, NothingSentAfterClosed) {
  EXPECT_FALSE(nothing_after_closed(false));
  auto v = nothing_after_closed(true);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kNothingAfterClosed);
}

TEST(CheckSmcr, TestLinkReplyEchoesUserData) {
  auto rep = test_link(true);
  const std::vector<std::uint8_t> sent(16, 0);
  auto reply = smcr::decode_llc(rep);
  ASSERT_TRUE(reply.ok());
  EXPECT_FALSE(test_link_echo(*reply, sent));
  // A request is not judged.
  auto req_octets = test_link(false);
  req_octets[9] = 0x42;
  auto request = smcr::decode_llc(req_octets);
  ASSERT_TRUE(request.ok());
  EXPECT_FALSE(test_link_echo(*request, sent));
  // User Data octet 5 (message octet 9) differs.
  rep[9] = 0x42;
  auto wrong = smcr::decode_llc(rep);
  ASSERT_TRUE(wrong.ok());
  auto v = test_link_echo(*wrong, sent);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kTestLinkEcho);
  EXPECT_EQ(v->field, "User Data");
  EXPECT_EQ(v->octet, 9u);
  EXPECT_EQ(v->seen, 0x42u);
  EXPECT_EQ(v->expected, 0u);
}

// A 44-octet ADD LINK v1 (App. A.3.2) naming link `number`; reply flags.
std::vector<std::uint8_t> add_link(std::uint8_t flags, std::uint8_t number) {
  std::vector<std::uint8_t> v = {0x02, 0x2c, 0x00, flags};
  v.resize(44, 0);
  v[31] = number;
  return v;
}

TEST(CheckSmcr, AcceptingAddLinkReplyEchoesTheLinkNumber) {
  // Decoded messages are views: the octets outlive them.
  const auto ok_octets = add_link(0x80, 2), wrong_octets = add_link(0x80, 3), rejecting_octets = add_link(0xC0, 3),
             request_octets = add_link(0x00, 3);
  auto ok = smcr::decode_llc(ok_octets);
  auto wrong = smcr::decode_llc(wrong_octets);
  auto rejecting = smcr::decode_llc(rejecting_octets);
  auto request = smcr::decode_llc(request_octets);
  ASSERT_TRUE(ok.ok() && wrong.ok() && rejecting.ok() && request.ok());
  EXPECT_FALSE(add_link_link_number(*ok, 2));
  EXPECT_FALSE(add_link_link_number(*rejecting, 2));
  EXPECT_FALSE(add_link_link_number(*request, 2));
  auto v = add_link_link_number(*wrong, 2);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kAddLinkEchoesLinkNumber);
  EXPECT_EQ(v->octet, 31u);
  EXPECT_EQ(v->seen, 3u);
  EXPECT_EQ(v->expected, 2u);
}

// A 44-octet CONFIRM LINK v2 (App. A.3.1; Linux type 0x21) from the server
// of the real SMC-Rv2 capture (frame 10): MAC 52:54:00:77:00:0a, GID
// ::ffff:10.77.0.1, QP 0x11, link 1.
std::vector<std::uint8_t> confirm_link(std::uint8_t flags) {
  std::vector<std::uint8_t> v = {0x21, 0x2c, 0x00, flags, 0x52, 0x54, 0x00, 0x77, 0x00, 0x0a};
  v.resize(20, 0);
  v.insert(v.end(), {0xff, 0xff, 0x0a, 0x4d, 0x00, 0x01, 0x00, 0x00, 0x11, 0x01});
  v.resize(44, 0);
  return v;
}

TEST(CheckSmcr, ConfirmLinkNamesTheSendersAnnouncedEnd) {
  const LinkEnd server{0x52540077000aull, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 77, 0, 1}, 0x11};
  struct Case {
    std::size_t octet;   // changed in the message
    std::string_view field;
    std::uint64_t seen, expected;
  };
  for (const std::uint8_t flags : {0x03, 0x83})  // request and reply
    for (const Case c : {Case{9, "Sender's RoCE MAC address", 0x52540077000bull, 0x52540077000aull},
                         Case{25, "Sender's RoCE GID", 0x02, 0x01}, Case{28, "Sender's QP number", 0x12, 0x11}}) {
      const auto right_octets = confirm_link(flags);
      auto wrong_octets = right_octets;
      wrong_octets[c.octet] = static_cast<std::uint8_t>(wrong_octets[c.octet] + 1);
      auto right = smcr::decode_llc(right_octets);
      auto wrong = smcr::decode_llc(wrong_octets);
      ASSERT_TRUE(right.ok() && wrong.ok());
      EXPECT_FALSE(confirm_link_roce_info(*right, server));
      auto v = confirm_link_roce_info(*wrong, server);
      ASSERT_TRUE(v) << c.field;
      EXPECT_EQ(v->rule, &kConfirmLinkRoceInfo);
      EXPECT_EQ(v->field, c.field);
      EXPECT_EQ(v->octet, c.field == "Sender's RoCE GID" ? c.octet : c.field == "Sender's QP number" ? 26u : 4u);
      EXPECT_EQ(v->seen, c.seen);
      EXPECT_EQ(v->expected, c.expected);
    }
  // Other messages are not judged.
  const auto other_octets = test_link(false);
  auto other = smcr::decode_llc(other_octets);
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(confirm_link_roce_info(*other, server));
}

TEST(CheckSmcr, DataOnlyOnAConfirmedLink) {
  // Up, being deleted, or joined mid-life: fine.
  for (LinkState s : {LinkState::kUp, LinkState::kDeleting, LinkState::kUnknown})
    EXPECT_FALSE(data_on_confirmed_link(s, true)) << name(s);
  for (LinkState s : {LinkState::kAdding, LinkState::kConfirming, LinkState::kDeleted}) {
    auto w = data_on_confirmed_link(s, true);
    auto c = data_on_confirmed_link(s, false);
    ASSERT_TRUE(w && c) << name(s);
    EXPECT_EQ(w->rule, &kDataOnConfirmedLink);
    EXPECT_EQ(w->field, "Virtual Address");
    EXPECT_EQ(c->field, "Type");
  }
}

TEST(CheckSmcr, WritesThroughAnnouncedRkeysOnly) {
  EXPECT_FALSE(write_through_announced_rkey(true, false, 0x312));
  for (bool deleted : {false, true}) {
    auto v = write_through_announced_rkey(deleted, deleted, 0x312);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->rule, &kWriteThroughAnnouncedRkey);
    EXPECT_EQ(v->field, "R_Key");
    EXPECT_EQ(v->octet, 8u);
    EXPECT_EQ(v->seen, 0x312u);
  }
}

}  // namespace
}  // namespace rdmaconf::check
