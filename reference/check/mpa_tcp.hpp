// How an MPA sender hands its FPDUs to TCP (RFC 5044 §4.5, §5.1): each rule
// implemented once. Only a watcher of the sender's TCP segments can judge
// them, since a receiver takes any segmentation (RFC 5044 §5.1, App. A.4):
// the capture observer (pcap/analysis/observer.hpp, fed the segments by the
// capture analyzer) calls them.
//
// What a capture can know of the sender's EMSS, which RFC 5044 §2 defines
// as the smaller of TCP's MSS and what the path MTU leaves (EmssBounds):
//  - at most the MSS its receiver announced in its SYN (RFC 9293 §3.7.1: no
//    segment carries more), so an FPDU longer than that fits no segment;
//  - at least the largest segment the sender did send (up to that MSS):
//    an FPDU no longer than that would have fitted in one.
// Between the two the capture cannot tell, and no rule judges. Below
// kSmallestMulpdu octets of known EMSS nothing is judged either: §4.5 lets
// MULPDU stay at 128 octets however small the EMSS, and frees the sender
// from §5.1's segmentation rules then.
//
// A segment boundary inside an FPDU (SplitFpdu) is charged once, to the
// segment where the FPDU began, under the row its cause falls under: the
// FPDU opened that segment and did not end in it (no_splitting_small), or
// it was packed behind other octets and did not end in it
// (segment_alignment: §5.1 lets FPDUs share a segment only whole). The
// segment after the boundary starting inside the FPDU is the same event, not
// a second one. An FPDU too long for any segment is fpdu_fits_segment's,
// and the boundaries it forces are nobody's.
//
// Markers (§4.3) and the MPA startup phase are not these rules' concern: the
// observer judges segmentation in full operation on directions without
// Markers, where an FPDU starts exactly where the previous one ended.
//
// Retransmitted octets (retransmit_same): TCP names each octet by its
// sequence number (RFC 9293 §3.4), and an FPDU handed to TCP cannot be
// taken back (RFC 5044 App. A.1), so octets sent again at a sequence number
// are the octets first sent there; RFC 5044's text states this without a
// keyword (docs/requirements.md, "Read with the text"). The capture layer
// finds the first octet that differs; the rule judges it.
//
// mpa_tcp_implementations() lists which function implements which rule id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "check/rule.hpp"
#include "mpa/headers.hpp"

namespace rdmaconf::check {

// ---- registry rows (reference/requirements/rfc5044.hpp)
inline constexpr const Rule& kFpduFitsSegment = rule<"rfc5044-4.5-fpdu-fits-segment">;
inline constexpr const Rule& kSegmentAlignment = rule<"rfc5044-5.1-segment-alignment">;
inline constexpr const Rule& kNoSplittingSmall = rule<"rfc5044-5.1-no-splitting-small">;
inline constexpr const Rule& kRetransmitSame = rule<"rfc5044-5.1-retransmit-same">;

// RFC 5044 §4.5: the MULPDU MPA never goes below, and the FPDU that carries
// a ULPDU of that size (length field and CRC; 128 needs no PAD).
inline constexpr std::size_t kSmallestMulpdu = 128;
inline constexpr std::size_t kSmallestMulpduFpdu = mpa::kUlpduLengthSize + kSmallestMulpdu + mpa::kCrcSize;

// What the capture knows of the sender's EMSS (see above). at_least is no
// more than at_most.
struct EmssBounds {
  std::size_t at_most = 0;   // the MSS the receiver announced
  std::size_t at_least = 0;  // the largest segment the sender sent, up to at_most
};

// An FPDU a segment boundary fell inside: it began `offset` octets into a
// segment of `segment_octets` octets that ended before the FPDU did.
struct SplitFpdu {
  std::size_t fpdu_octets = 0;  // the whole FPDU: ULPDU_Length, ULPDU, PAD, CRC
  std::size_t offset = 0;
  std::size_t segment_octets = 0;
};

// RFC 5044 §4.5 (and §3): FPDUs are sized to fit one segment of the EMSS.
// Judged against the MSS, the most the EMSS can be; never below the FPDU of
// the smallest MULPDU, which §4.5 allows whatever the EMSS.
Outcome fpdu_fits_segment(std::size_t fpdu_octets, const EmssBounds& emss);
// RFC 5044 §5.1, App. A.1: FPDUs packed into a segment behind other octets
// are whole in it. Judged when the FPDU would have fitted in one segment.
Outcome segment_alignment(const SplitFpdu& s, const EmssBounds& emss);
// RFC 5044 §5.1, App. A.1: an FPDU that opens a segment and fits in one is
// not continued in the next.
Outcome no_splitting_small(const SplitFpdu& s, const EmssBounds& emss);
// RFC 5044 §5.1 (with App. A.1 and RFC 9293 §3.4): an octet sent again
// carries the value first sent at its sequence number.
Outcome retransmit_same(std::uint8_t first_sent, std::uint8_t resent);

// ---- which function implements which rule (the table in mpa_tcp.cpp)
std::span<const Implementation> mpa_tcp_implementations();
std::span<const Rule* const> mpa_tcp_rules();

// ---- definitions: inline, as the analyzer runs them per FPDU and segment.

namespace detail {
// The EMSS is known to hold `fpdu_octets`, and to be large enough for §5.1
// to apply (RFC 5044 §4.5).
constexpr bool fits_known(std::size_t fpdu_octets, const EmssBounds& emss) {
  return emss.at_least >= kSmallestMulpdu && fpdu_octets <= emss.at_least;
}
}  // namespace detail

inline Outcome fpdu_fits_segment(std::size_t fpdu_octets, const EmssBounds& emss) {
  if (emss.at_most == 0 || fpdu_octets <= emss.at_most || fpdu_octets <= kSmallestMulpduFpdu) return std::nullopt;
  return Violation{&kFpduFitsSegment, "FPDU", 0, fpdu_octets, emss.at_most};
}

inline Outcome segment_alignment(const SplitFpdu& s, const EmssBounds& emss) {
  if (s.offset == 0 || s.offset + s.fpdu_octets <= s.segment_octets || !detail::fits_known(s.fpdu_octets, emss))
    return std::nullopt;
  // The octets of the FPDU its segment holds, beside the whole FPDU.
  return Violation{&kSegmentAlignment, "FPDU", s.offset, s.segment_octets - s.offset, s.fpdu_octets};
}

inline Outcome no_splitting_small(const SplitFpdu& s, const EmssBounds& emss) {
  if (s.offset != 0 || s.fpdu_octets <= s.segment_octets || !detail::fits_known(s.fpdu_octets, emss))
    return std::nullopt;
  return Violation{&kNoSplittingSmall, "FPDU", 0, s.segment_octets, s.fpdu_octets};
}

inline Outcome retransmit_same(std::uint8_t first_sent, std::uint8_t resent) {
  if (first_sent == resent) return std::nullopt;
  return Violation{&kRetransmitSame, "TCP payload", 0, resent, first_sent};
}

}  // namespace rdmaconf::check
