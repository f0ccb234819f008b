// One DDP segment as MPA hands it over (RFC 5041 §4, RFC 5040 §4,
// RFC 7306 §4), decoded by declaration, and DDP segmentation.
//
// Input: one mode octet, then the segment. Every header the segment holds
// (DDP tagged or untagged header, RDMAP control field, Invalidate STag, and
// the RDMAP header the opcode table says opens the payload: Read Request,
// Terminate, Atomic Request/Response, Immediate Data) is decoded through its
// declaration, must round-trip field by field and print. With mode bit 0
// the segment is also re-segmented: its header fields become a DDP target,
// its payload the message, and segment_tagged/untagged (MULPDU from the mode
// octet) must give segments no longer than the MULPDU whose headers decode
// to the target with TO/MO advancing, L on the last one only, and whose
// payloads concatenate to the message (the first KiB of the payload).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/header_check.hpp"
#include "common/input.hpp"
#include "ddp/headers.hpp"
#include "ddp/segmentation.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "rdmap/terminate.hpp"

using namespace rdmaconf;

namespace {

// Decodes a generated segment header through its declaration (the input's
// own headers get the full round trip; these come from our encoder).
template <typename Spec>
wire::Header<Spec> decode_generated(wire::Bytes header) {
  wire::ByteReader r(header);
  auto h = wire::Header<Spec>::decode(r);
  FUZZ_CHECK(h.ok());
  return *h;
}

// Checks the segments without copying them: each header is decoded from the
// segment's header octets, and the message octets (after the DDP header) are
// compared in place, piece by piece, with `ulp_header ++ payload`.
void check_segments(const std::vector<ddp::Segment>& segments, bool tagged, std::uint64_t first_offset,
                    wire::Bytes ulp_header, wire::Bytes payload, std::size_t mulpdu,
                    const ddp::Control& ctl, std::uint32_t stag_or_qn, std::uint32_t msn) {
  FUZZ_CHECK(!segments.empty());
  const std::size_t ddp_size = ctl.header_size();
  const std::size_t total = ulp_header.size() + payload.size();
  std::size_t offset = 0;  // message octets so far
  // `piece` must be the message's next octets (one comparison per part,
  // not per octet: the fuzzer traces comparisons).
  const auto next_octets = [&](wire::Bytes piece) {
    FUZZ_CHECK(piece.size() <= total - offset);
    std::size_t done = 0;
    if (offset < ulp_header.size()) {
      done = std::min(piece.size(), ulp_header.size() - offset);
      FUZZ_CHECK(std::equal(piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(done),
                            ulp_header.begin() + static_cast<std::ptrdiff_t>(offset)));
    }
    const std::size_t from = offset + done - ulp_header.size();
    FUZZ_CHECK(std::equal(piece.begin() + static_cast<std::ptrdiff_t>(done), piece.end(),
                          payload.begin() + static_cast<std::ptrdiff_t>(from)));
    offset += piece.size();
  };
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const ddp::Segment& s = segments[i];
    FUZZ_CHECK(s.size() <= mulpdu);
    const wire::Bytes header = s.header();
    FUZZ_CHECK(header.size() >= ddp_size);
    const bool last = i + 1 == segments.size();
    if (tagged) {
      const auto h = decode_generated<ddp::TaggedSpec>(header);
      using F = ddp::TaggedSpec::Field;
      FUZZ_CHECK(h.flag(F::T) && h.flag(F::L) == last && h.get(F::DV) == ctl.dv);
      FUZZ_CHECK(h.get(F::STag) == stag_or_qn && h.get(F::TO) == first_offset + offset);
      FUZZ_CHECK(h.get(F::RsvdULP) == ctl.rsvd_ulp);
    } else {
      const auto h = decode_generated<ddp::UntaggedSpec>(header);
      using F = ddp::UntaggedSpec::Field;
      FUZZ_CHECK(!h.flag(F::T) && h.flag(F::L) == last && h.get(F::DV) == ctl.dv);
      FUZZ_CHECK(h.get(F::QN) == stag_or_qn && h.get(F::MSN) == msn && h.get(F::MO) == offset);
    }
    next_octets(header.subspan(ddp_size));
    s.payload.for_each(next_octets);
  }
  FUZZ_CHECK(offset == total);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const std::uint8_t mode = in.u8();
  // The pretty-printers allocate: one input in eight exercises them.
  const bool print = (mode & 0xc2) == 0xc2;
  const fuzz::Bytes segment = in.rest();
  if (segment.size() < ddp::kControlSize) return 0;

  const ddp::Control ctl = ddp::Control::read(segment);
  if (segment.size() < ctl.header_size()) return 0;
  const fuzz::Bytes payload = segment.subspan(ctl.header_size());
  std::uint32_t stag_or_qn = 0, msn = 0;
  std::uint64_t to = 0;
  if (ctl.tagged) {
    auto h = fuzz::header_round_trip<ddp::TaggedSpec>(segment, print);
    stag_or_qn = static_cast<std::uint32_t>(h.get(ddp::TaggedSpec::Field::STag));
    to = h.get(ddp::TaggedSpec::Field::TO);
  } else {
    auto h = fuzz::header_round_trip<ddp::UntaggedSpec>(segment, print);
    stag_or_qn = static_cast<std::uint32_t>(h.get(ddp::UntaggedSpec::Field::QN));
    msn = static_cast<std::uint32_t>(h.get(ddp::UntaggedSpec::Field::MSN));
    // RFC 5040 §4.2: RsvdULP32 carries the Invalidate STag.
    fuzz::header_round_trip<rdmap::InvalidateStagSpec>(
        segment.subspan(ddp::UntaggedHeader::field_decl(ddp::UntaggedSpec::Field::RsvdULP32).octet_offset()), print);
  }

  // RFC 5040 §4.2: the RDMAP control field is DDP's RsvdULP octet.
  auto control = fuzz::header_round_trip<rdmap::ControlSpec>(segment.subspan(ddp::kRsvdUlpOctet), print);
  const rdmap::Control rc = rdmap::Control::from_octet(ctl.rsvd_ulp);
  FUZZ_CHECK(control.get(rdmap::ControlSpec::Field::Opcode) == rc.opcode);
  wire::Bytes rdmap_header;
  if (const rdmap::OpcodeInfo* op = rdmap::find_opcode(rc.opcode)) {
    using O = rdmap::Opcode;
    if (payload.size() >= op->rdmap_header_size) rdmap_header = payload.first(op->rdmap_header_size);
    if (!rdmap_header.empty()) {
      switch (op->opcode) {
        case O::kRdmaReadRequest: fuzz::header_round_trip<rdmap::ReadRequestSpec>(payload, print); break;
        case O::kAtomicRequest: fuzz::header_round_trip<rdmap::AtomicRequestSpec>(payload, print); break;
        case O::kAtomicResponse: fuzz::header_round_trip<rdmap::AtomicResponseSpec>(payload, print); break;
        case O::kImmediateData:
        case O::kImmediateDataWithSe: fuzz::header_round_trip<rdmap::ImmediateDataSpec>(payload, print); break;
        case O::kTerminate: {
          fuzz::header_round_trip<rdmap::TerminateControlSpec>(payload, print);
          if (payload.size() >= rdmap::kTerminateControlSize + rdmap::kTerminateSegmentLengthSize)
            fuzz::header_round_trip<rdmap::TerminateSegmentLengthSpec>(payload.subspan(rdmap::kTerminateControlSize), print);
          auto t = rdmap::decode_terminate(payload);
          if (t) FUZZ_CHECK(t->encoded_size() == payload.size());
          break;
        }
        default: break;
      }
    }
  }

  if (mode & 1) {
    // At least 8 payload octets per segment and at most 1 KiB of message:
    // enough for every boundary case, bounded work per input.
    const std::size_t mulpdu = ctl.header_size() + 8 + static_cast<std::size_t>(mode >> 2) * 4;
    const fuzz::Bytes body = payload.subspan(rdmap_header.size()).first(
        std::min<std::size_t>(1024, payload.size() - rdmap_header.size()));
    const wire::Chunks message(body);
    if (ctl.tagged) {
      ddp::TaggedTarget target{ctl.rsvd_ulp, ddp::Stag{stag_or_qn}, to, ctl.dv};
      auto segments = ddp::segment_tagged(target, rdmap_header, message, mulpdu);
      if (segments)
        check_segments(*segments, true, to, rdmap_header, body, mulpdu, ctl,
                       stag_or_qn, 0);
      else
        FUZZ_CHECK(rdmap_header.size() > mulpdu - ctl.header_size());
    } else {
      const auto rsvd_ulp32 =
          static_cast<std::uint32_t>(ddp::UntaggedHeader::read(segment, ddp::UntaggedSpec::Field::RsvdULP32));
      ddp::UntaggedTarget target{ctl.rsvd_ulp, rsvd_ulp32, ddp::QueueNumber{stag_or_qn}, ddp::Msn{msn}, ctl.dv};
      auto segments = ddp::segment_untagged(target, rdmap_header, message, mulpdu);
      if (segments)
        check_segments(*segments, false, 0, rdmap_header, body, mulpdu, ctl,
                       stag_or_qn, msn);
      else
        FUZZ_CHECK(rdmap_header.size() > mulpdu - ctl.header_size());
    }
  }
  return 0;
}
