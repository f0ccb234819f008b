#include "check/smcr.hpp"

#include <algorithm>

#include "clc/headers.hpp"

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
    {&kTestLinkEcho, "test_link_echo"},
    {&kAddLinkEchoesLinkNumber, "add_link_link_number"},
    {&kConfirmLinkRoceInfo, "confirm_link_roce_info"},
    {&kDataOnConfirmedLink, "data_on_confirmed_link"},
    {&kWriteThroughAnnouncedRkey, "write_through_announced_rkey"},
    {&kRmbeReuseAfterClose, "rmbe_reuse_after_close"},
};
constexpr const Rule* kRules[] = {&kLlcReplyAnswersRequest, &kCdcConsumerNotAhead,     &kCdcCursorWithinRmbe,
                                  &kCdcSequenceNumber,      &kWriteInsideRmbe,         &kProducerCursorTracksWrites,
                                  &kUrgentPresentPending,   &kNoWritesAfterDone,       &kNothingAfterClosed,
                                  &kTestLinkEcho,           &kAddLinkEchoesLinkNumber, &kDataOnConfirmedLink,
                                  &kWriteThroughAnnouncedRkey, &kConfirmLinkRoceInfo, &kRmbeReuseAfterClose};

// Where the CDC message's fields start (RFC 7609 App. A.4, Figure 41).
constexpr std::size_t kSequenceOctet = 2;
constexpr std::size_t kProducerOctet = 12;
constexpr std::size_t kConsumerOctet = 20;
constexpr std::size_t kFlagsOctet = 24;
constexpr std::size_t kStateFlagsOctet = 25;

}  // namespace

//= rfc7609-3.3-reply-answers-request (RFC 7609 App. A.3)
Outcome llc_reply_answers_request(const smcr::LlcMessage& m, std::uint32_t peer_requests_open) {
  if (!m.reply() || peer_requests_open > 0) return std::nullopt;
  // The R flag is header octet 3's top bit.
  return Violation{&kLlcReplyAnswersRequest, "R", 3, 1, 0};
}

//= rfc7609-a.3.8-test-link-echo (RFC 7609 App. A.3.8)
Outcome test_link_echo(const smcr::LlcMessage& m, wire::Bytes user_data_request) {
  if (m.base_type() != smcr::llc_type::kTestLink || !m.reply()) return std::nullopt;
  using TF = smcr::TestLinkSpec::Field;
  const wire::FieldDecl& f = smcr::TestLinkSpec::fields[static_cast<std::size_t>(TF::UserData)];
  const wire::Bytes echoed = m.body.subspan(f.bit_offset / 8, f.bit_width / 8);
  if (user_data_request.size() == echoed.size() &&
      std::equal(echoed.begin(), echoed.end(), user_data_request.begin()))
    return std::nullopt;
  // Report the first octet that differs; User Data starts at message octet 4.
  std::size_t at = 0;
  while (at < echoed.size() && at < user_data_request.size() && echoed[at] == user_data_request[at]) ++at;
  const std::uint64_t seen = at < echoed.size() ? echoed[at] : 0;
  const std::uint64_t expected = at < user_data_request.size() ? user_data_request[at] : 0;
  return Violation{&kTestLinkEcho, "User Data", 4 + at, seen, expected};
}

//= rfc7609-3.5.1.6.1-add-link-link-number (RFC 7609 §3.5.1.6.1)
Outcome add_link_link_number(const smcr::LlcMessage& m, std::uint8_t offered) {
  if (m.base_type() != smcr::llc_type::kAddLink || !m.reply() || m.flag(smcr::kAddLinkFlags[1]) != 0)
    return std::nullopt;
  const auto named = m.get(smcr::AddLinkSpec::fields[static_cast<std::size_t>(smcr::AddLinkSpec::Field::LinkNumber)]);
  if (named == offered) return std::nullopt;
  // Link number: body bit 216, message octet 4 + 27.
  return Violation{&kAddLinkEchoesLinkNumber, "Link number", 31, named, offered};
}

//= rfc7609-3.5.1.5-confirm-link-roce-info (RFC 7609 §3.5.1.5)
Outcome confirm_link_roce_info(const smcr::LlcMessage& m, const LinkEnd& announced) {
  if (m.base_type() != smcr::llc_type::kConfirmLink) return std::nullopt;
  using CL = smcr::ConfirmLinkSpec::Field;
  const auto decl = [](CL f) -> const wire::FieldDecl& { return smcr::ConfirmLinkSpec::fields[static_cast<std::size_t>(f)]; };
  // Field octets count from the message's start: the body follows the
  // 4-octet LLC header (A.3.1, Figure 31). The fields in wire order.
  const auto octet = [&](CL f) { return 4 + decl(f).bit_offset / 8; };
  if (const std::uint64_t mac = m.get(decl(CL::Mac)); mac != announced.mac)
    return Violation{&kConfirmLinkRoceInfo, decl(CL::Mac).name, octet(CL::Mac), mac, announced.mac};
  // The GID: the first octet that differs.
  const wire::Bytes gid = m.body.subspan(decl(CL::Gid).bit_offset / 8, announced.gid.size());
  for (std::size_t k = 0; k < gid.size(); ++k)
    if (gid[k] != announced.gid[k])
      return Violation{&kConfirmLinkRoceInfo, decl(CL::Gid).name, octet(CL::Gid) + k, gid[k], announced.gid[k]};
  if (const std::uint64_t qp = m.get(decl(CL::QpNumber)); qp != announced.qp)
    return Violation{&kConfirmLinkRoceInfo, decl(CL::QpNumber).name, octet(CL::QpNumber), qp, announced.qp};
  return std::nullopt;
}

std::string_view name(LinkState s) {
  switch (s) {
    case LinkState::kUnknown: return "unknown";
    case LinkState::kAdding: return "adding";
    case LinkState::kConfirming: return "confirming";
    case LinkState::kUp: return "up";
    case LinkState::kDeleting: return "deleting";
    case LinkState::kDeleted: return "deleted";
  }
  return "?";
}

//= rfc7609-3.5.1.5-data-on-confirmed-link (RFC 7609 §3.5.1.5)
Outcome data_on_confirmed_link(LinkState s, bool write) {
  // A link being deleted still carries data until the exchange completed
  // (§3.5.5.1.3: resources are freed once the response arrived).
  if (s == LinkState::kUnknown || s == LinkState::kUp || s == LinkState::kDeleting) return std::nullopt;
  const std::uint64_t state = static_cast<std::uint64_t>(s), up = static_cast<std::uint64_t>(LinkState::kUp);
  if (write) return Violation{&kDataOnConfirmedLink, "Virtual Address", 0, state, up};
  return Violation{&kDataOnConfirmedLink, "Type", 0, state, up};
}

//= rfc7609-3.5.5.2-write-through-announced-rkey (RFC 7609 §3.5.5.2)
Outcome write_through_announced_rkey(bool announced, bool deleted, std::uint32_t rkey) {
  if (announced && !deleted) return std::nullopt;
  // The R_Key is the RETH's octets 8-11.
  return Violation{&kWriteThroughAnnouncedRkey, "R_Key", 8, rkey, 0};
}

//= rfc7609-a.4-consumer-not-ahead (RFC 7609 App. A.4)
Outcome consumer_not_ahead(smcr::Cursor consumer, smcr::Cursor peer_producer) {
  // Wrap counts are 16-bit and wrap (serial numbers): the consumer is in a
  // later wrap when its count is up to 2^15 - 1 beyond the producer's; in
  // the same wrap, ahead by offset.
  const auto wraps_ahead = static_cast<std::uint16_t>(consumer.wrap - peer_producer.wrap);
  const bool later_wrap = wraps_ahead != 0 && wraps_ahead < 0x8000;
  const bool ahead = later_wrap || (consumer.wrap == peer_producer.wrap && consumer.count > peer_producer.count);
  if (!ahead) return std::nullopt;
  return Violation{&kCdcConsumerNotAhead, "Consumer Cursor", kConsumerOctet, consumer.count, peer_producer.count};
}

//= rfc7609-a.4-cursor-within-rmbe (RFC 7609 App. A.4)
Outcome cursor_within_rmbe(const smcr::CdcMessage& m, std::uint64_t receiver_rmbe_size,
                           std::uint64_t sender_rmbe_size, std::uint32_t data_start) {
  // A failover validation message's cursors are not significant (A.4, F-bit).
  if (m.flag(smcr::CdcSpec::Field::F)) return std::nullopt;
  // The producer cursor is an offset in the receiver's RMBE, the consumer
  // cursor in the sender's own; an offset equal to the size has wrapped, one
  // inside the eyecatcher is no data octet (A.4: cursors start and wrap at 4).
  if (m.producer().count >= receiver_rmbe_size)
    return Violation{&kCdcCursorWithinRmbe, "Producer Cursor", kProducerOctet, m.producer().count,
                     receiver_rmbe_size};
  if (m.producer().count < data_start)
    return Violation{&kCdcCursorWithinRmbe, "Producer Cursor", kProducerOctet, m.producer().count, data_start};
  if (m.consumer().count >= sender_rmbe_size)
    return Violation{&kCdcCursorWithinRmbe, "Consumer Cursor", kConsumerOctet, m.consumer().count, sender_rmbe_size};
  if (m.consumer().count < data_start)
    return Violation{&kCdcCursorWithinRmbe, "Consumer Cursor", kConsumerOctet, m.consumer().count, data_start};
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

std::optional<std::size_t> rmbe_holder(const RmbeName& named, std::span<const RmbeHolder> group) {
  for (std::size_t i = 0; i < group.size(); ++i)
    if (!group[i].ended && group[i].rmbe == named) return i;
  return std::nullopt;
}

//= rfc7609-4.4.2-rmbe-reuse-after-close (RFC 7609 §4.4.2)
Outcome rmbe_reuse_after_close(const RmbeName& named, std::span<const RmbeHolder> group) {
  if (!rmbe_holder(named, group)) return std::nullopt;
  // The Accept's or Confirm's RMBE Index (App. A.2.3/A.2.4): after the 8-octet CLC header.
  using F = clc::SmcrAcceptConfirmSpec::Field;
  constexpr std::size_t kIndexOctet =
      8 + clc::SmcrAcceptConfirmSpec::fields[static_cast<std::size_t>(F::RmbeIndex)].bit_offset / 8;
  return Violation{&kRmbeReuseAfterClose, "RMBE Index", kIndexOctet, named.index, 0};
}

std::span<const Implementation> smcr_implementations() { return kImplementations; }
std::span<const Rule* const> smcr_rules() { return kRules; }

}  // namespace rdmaconf::check
