// The SMC-R link-group rules (RFC 7609 App. A.3 and A.4) that the capture
// observer checks today, one function each, in the style of segment.hpp:
// each takes a decoded message (reference/smcr/messages.hpp) and the least
// state it needs, and returns a Violation or nothing. Standard library and
// the codec headers only.
#pragma once

#include <cstdint>
#include <span>

#include "check/rule.hpp"
#include "check/segment.hpp"
#include "smcr/messages.hpp"

namespace rdmaconf::check {

// ---- registry rows (conformance/requirements/rfc7609.cpp)
// A.3: LLC messages are request/response pairs of one type; the R flag marks
// the response. A response that answers no open request of its type from the
// peer is a protocol error (Linux drops it, smc_llc_rx_response).
inline constexpr Rule kLlcReplyAnswersRequest{
    "rfc7609-a.3-reply-answers-request", Level::kMust, "RFC 7609 App. A.3",
    "an LLC reply (R set) answers an open request of the same type from the peer"};
// A.4: the consumer cursor names the next octet its sender will consume in its
// own RMBE; the producer cursor the peer announces names the next octet the
// peer will write there. Nothing is consumed before it was produced.
inline constexpr Rule kCdcConsumerNotAhead{
    "rfc7609-a.4-consumer-not-ahead", Level::kMust, "RFC 7609 App. A.4",
    "a CDC message's consumer cursor (with its wrap count) is never ahead of the producer cursor the peer last "
    "announced for the same RMBE"};

// `peer_requests_open`: requests of the message's type the peer sent that no
// reply answered yet. Only replies are judged.
Outcome llc_reply_answers_request(const smcr::LlcMessage& m, std::uint32_t peer_requests_open);

// `consumer`: from a CDC message one side sent; `peer_producer`: the latest
// producer cursor the other side announced for the same connection. Cursors
// compare by wrap count (16-bit, wrapping) first, then offset.
Outcome consumer_not_ahead(smcr::Cursor consumer, smcr::Cursor peer_producer);

std::span<const Implementation> smcr_implementations();
std::span<const Rule* const> smcr_rules();

}  // namespace rdmaconf::check
