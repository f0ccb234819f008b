#include "check/smcr.hpp"

namespace rdmaconf::check {
namespace {

constexpr Implementation kImplementations[] = {
    {&kLlcReplyAnswersRequest, "llc_reply_answers_request"},
    {&kCdcConsumerNotAhead, "consumer_not_ahead"},
};
constexpr const Rule* kRules[] = {&kLlcReplyAnswersRequest, &kCdcConsumerNotAhead};

}  // namespace

//= rfc7609-a.3-reply-answers-request (RFC 7609 App. A.3)
Outcome llc_reply_answers_request(const smcr::LlcMessage& m, std::uint32_t peer_requests_open) {
  if (!m.reply() || peer_requests_open > 0) return std::nullopt;
  // The R flag is header octet 3's top bit.
  return Violation{&kLlcReplyAnswersRequest, "R", 3, 1, 0};
}

//= rfc7609-a.4-consumer-not-ahead (RFC 7609 App. A.4)
Outcome consumer_not_ahead(smcr::Cursor consumer, smcr::Cursor peer_producer) {
  // Wrap counts are 16-bit and wrap: the consumer is one wrap ahead when its
  // count is the producer's plus one; in the same wrap, ahead by offset.
  const bool next_wrap = static_cast<std::uint16_t>(peer_producer.wrap + 1) == consumer.wrap;
  const bool ahead = next_wrap || (consumer.wrap == peer_producer.wrap && consumer.count > peer_producer.count);
  if (!ahead) return std::nullopt;
  // The Consumer Cursor field is octets 20-23 of the CDC message.
  return Violation{&kCdcConsumerNotAhead, "Consumer Cursor", 20, consumer.count, peer_producer.count};
}

std::span<const Implementation> smcr_implementations() { return kImplementations; }
std::span<const Rule* const> smcr_rules() { return kRules; }

}  // namespace rdmaconf::check
