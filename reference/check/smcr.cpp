#include "check/smcr.hpp"

namespace rdmaconf::check {
namespace {

constexpr Implementation kImplementations[] = {
    {&kLlcReplyAnswersRequest, "llc_reply_answers_request"},
    {&kCdcConsumerNotAhead, "consumer_not_ahead"},
    {&kCdcCursorWithinRmbe, "cursor_within_rmbe"},
    {&kCdcSequenceNumber, "cdc_sequence_number"},
    {&kWriteInsideRmbe, "write_inside_rmbe"},
    {&kProducerCursorTracksWrites, "producer_tracks_writes"},
    {&kUrgentPresentPending, "urgent_present_pending"},
    {&kNoWritesAfterDone, "no_writes_after_done"},
    {&kNothingAfterClosed, "nothing_after_closed"},
};
constexpr const Rule* kRules[] = {&kLlcReplyAnswersRequest, &kCdcConsumerNotAhead,     &kCdcCursorWithinRmbe,
                                  &kCdcSequenceNumber,      &kWriteInsideRmbe,         &kProducerCursorTracksWrites,
                                  &kUrgentPresentPending,   &kNoWritesAfterDone,       &kNothingAfterClosed};

// Where the CDC message's fields start (RFC 7609 App. A.4, Figure 41).
constexpr std::size_t kSequenceOctet = 2;
constexpr std::size_t kProducerOctet = 12;
constexpr std::size_t kConsumerOctet = 20;
constexpr std::size_t kFlagsOctet = 24;
constexpr std::size_t kStateFlagsOctet = 25;

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
  return Violation{&kCdcConsumerNotAhead, "Consumer Cursor", kConsumerOctet, consumer.count, peer_producer.count};
}

//= rfc7609-a.4-cursor-within-rmbe (RFC 7609 App. A.4)
Outcome cursor_within_rmbe(const smcr::CdcMessage& m, std::uint64_t receiver_rmbe_size,
                           std::uint64_t sender_rmbe_size) {
  // A failover validation message's cursors are not significant (A.4, F-bit).
  if (m.flag(smcr::CdcSpec::Field::F)) return std::nullopt;
  // The producer cursor is an offset in the receiver's RMBE, the consumer
  // cursor in the sender's own; an offset equal to the size has wrapped.
  if (m.producer().count >= receiver_rmbe_size)
    return Violation{&kCdcCursorWithinRmbe, "Producer Cursor", kProducerOctet, m.producer().count,
                     receiver_rmbe_size};
  if (m.consumer().count >= sender_rmbe_size)
    return Violation{&kCdcCursorWithinRmbe, "Consumer Cursor", kConsumerOctet, m.consumer().count, sender_rmbe_size};
  return std::nullopt;
}

//= rfc7609-a.4-sequence-number (RFC 7609 App. A.4)
Outcome cdc_sequence_number(const smcr::CdcMessage& m, std::optional<std::uint16_t> previous) {
  // A failover validation message names the message it validates (§4.6.1).
  if (m.flag(smcr::CdcSpec::Field::F)) return std::nullopt;
  const std::uint16_t expected = previous ? static_cast<std::uint16_t>(*previous + 1) : std::uint16_t{1};
  if (m.sequence_number() == expected) return std::nullopt;
  return Violation{&kCdcSequenceNumber, "Sequence number", kSequenceOctet, m.sequence_number(), expected};
}

//= rfc7609-4.4.1-write-inside-rmbe (RFC 7609 §4.4.1)
Outcome write_inside_rmbe(std::uint64_t virtual_address, std::uint64_t length, std::uint64_t rmbe_start,
                          std::uint64_t rmbe_size) {
  // Subtractions only: an address near 2^64 must not wrap into the range.
  const bool inside = virtual_address >= rmbe_start && virtual_address - rmbe_start <= rmbe_size &&
                      length <= rmbe_size - (virtual_address - rmbe_start);
  if (inside) return std::nullopt;
  // The Virtual Address is the RETH's first field.
  return Violation{&kWriteInsideRmbe, "Virtual Address", 0, virtual_address, rmbe_start};
}

//= rfc7609-a.4-producer-tracks-writes (RFC 7609 App. A.4)
Outcome producer_tracks_writes(smcr::Cursor written_to, smcr::Cursor seen, bool write) {
  if (seen == written_to) return std::nullopt;
  if (write) return Violation{&kProducerCursorTracksWrites, "Virtual Address", 0, seen.count, written_to.count};
  return Violation{&kProducerCursorTracksWrites, "Producer Cursor", kProducerOctet, seen.count, written_to.count};
}

//= rfc7609-a.4-urgent-present-pending (RFC 7609 App. A.4)
Outcome urgent_present_pending(const smcr::CdcMessage& m) {
  using F = smcr::CdcSpec::Field;
  if (!m.flag(F::U) || m.flag(F::P)) return std::nullopt;
  // U is bit 2 of the flag octet.
  return Violation{&kUrgentPresentPending, "P", kFlagsOctet, 0, 1};
}

//= rfc7609-a.4-no-writes-after-done (RFC 7609 App. A.4)
Outcome no_writes_after_done(bool done, bool write, smcr::Cursor then, smcr::Cursor now) {
  if (!done) return std::nullopt;
  if (write) return Violation{&kNoWritesAfterDone, "D", kStateFlagsOctet, 1, 0};
  if (now == then) return std::nullopt;
  return Violation{&kNoWritesAfterDone, "Producer Cursor", kProducerOctet, now.count, then.count};
}

//= rfc7609-a.4-nothing-after-closed (RFC 7609 App. A.4)
Outcome nothing_after_closed(bool closed) {
  if (!closed) return std::nullopt;
  return Violation{&kNothingAfterClosed, "C", kStateFlagsOctet, 1, 0};
}

std::span<const Implementation> smcr_implementations() { return kImplementations; }
std::span<const Rule* const> smcr_rules() { return kRules; }

}  // namespace rdmaconf::check
