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
}

}  // namespace
}  // namespace rdmaconf::check
