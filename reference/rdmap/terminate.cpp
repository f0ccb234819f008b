#include "rdmap/terminate.hpp"

#include <algorithm>

#include "rdmap/error_codes.hpp"

namespace rdmaconf::rdmap {
namespace {

constexpr std::string_view kSection = "RFC 5040 §4.8";

}  // namespace

std::size_t copied_rdma_header_size(std::uint8_t opcode) {
  switch (static_cast<Opcode>(opcode)) {
    case Opcode::kRdmaReadRequest:
      return kReadRequestHeaderSize;
    case Opcode::kAtomicRequest:  // RFC 7306 extends the copy to its request header
      return kAtomicRequestHeaderSize;
    default:
      return 0;
  }
}

TerminateMessage make_terminate(ddp::TerminateCode code, const OffendingSegment* offending,
                                std::optional<ddp::Copies> forced) {
  TerminateMessage t;
  t.code = code;
  const ddp::ErrorRow* row = find_error(code);
  const ddp::Copies copies = forced ? *forced : row ? row->copies : ddp::Copies::kDdpHeader;
  if (offending == nullptr || copies == ddp::Copies::kNothing) return t;
  const std::size_t n = std::min(offending->ddp_header.size(), t.ddp_header.size());
  if (n != ddp::kTaggedHeaderSize && n != ddp::kUntaggedHeaderSize) return t;
  // RFC 5040 §4.8: M and D: the segment's length and its DDP header.
  t.m = true;
  t.d = true;
  t.ddp_segment_length = static_cast<std::uint16_t>(std::min<std::uint32_t>(offending->segment_length, 0xffff));
  std::copy_n(offending->ddp_header.begin(), n, t.ddp_header.begin());
  t.ddp_header_size = n;
  // R: the RDMAP header of a request message (Read Request, Atomic Request).
  // Both are untagged messages; a tagged header carrying one of their
  // opcodes has no request header to copy (decode_terminate's rule too).
  const ddp::Control ctl = ddp::Control::read(offending->ddp_header);
  const std::size_t rn = ctl.tagged ? 0 : copied_rdma_header_size(Control::from_octet(ctl.rsvd_ulp).opcode);
  if (copies == ddp::Copies::kDdpAndRdmapHeader && rn != 0 && offending->rdma_header.size() >= rn) {
    t.r = true;
    std::copy_n(offending->rdma_header.begin(), rn, t.rdma_header.begin());
    t.rdma_header_size = rn;
  }
  return t;
}

void encode(const TerminateMessage& t, wire::ByteWriter& w) {
  TerminateControlHeader c;
  using F = TerminateControlSpec::Field;
  c.set(F::Layer, static_cast<std::uint8_t>(t.code.layer)).set(F::EType, t.code.etype);
  c.set(F::ErrorCode, t.code.code).set(F::M, t.m).set(F::D, t.d).set(F::R, t.r);
  c.set(F::Reserved, t.reserved);
  c.encode(w);
  if (t.has_segment_length()) w.put_be(t.ddp_segment_length, kTerminateSegmentLengthSize);
  w.put(t.copied_ddp_header());
  w.put(t.copied_rdma_header());
}

wire::Result<TerminateMessage> decode_terminate(wire::Bytes body) {
  wire::ByteReader r(body);
  auto control = TerminateControlHeader::decode(r);
  if (!control) return control.error();
  using F = TerminateControlSpec::Field;
  TerminateMessage t;
  t.code = ddp::TerminateCode{static_cast<ddp::Layer>(control->get(F::Layer)),
                              static_cast<std::uint8_t>(control->get(F::EType)),
                              static_cast<std::uint8_t>(control->get(F::ErrorCode))};
  t.m = control->flag(F::M);
  t.d = control->flag(F::D);
  t.r = control->flag(F::R);
  t.reserved = static_cast<std::uint16_t>(control->get(F::Reserved));
  if (t.reserved != 0)
    return wire::field_error(TerminateControlHeader::field_decl(F::Reserved),
                             "reserved bits must be zero", 0);
  if (t.r && !t.d)
    return wire::field_error(TerminateControlHeader::field_decl(F::R),
                             "R needs D: the copied RDMA header follows the copied DDP header", 0);

  if (t.has_segment_length()) {
    const std::size_t at = r.offset();
    auto len = r.take_be(kTerminateSegmentLengthSize);
    if (!len) return wire::truncated(TerminateSegmentLengthSpec::decl, at);
    t.ddp_segment_length = static_cast<std::uint16_t>(*len);
  }
  if (t.d) {
    const std::size_t at = r.offset();
    if (r.remaining() < ddp::kControlSize)
      return wire::DecodeError{"Terminated DDP Header", "missing though D is set", kSection, at};
    // The copied header's own T bit says whether it is 14 or 18 octets.
    const ddp::Control ctl = ddp::Control::from_octets(r.rest()[0], r.rest()[1]);
    const std::size_t n = ctl.header_size();
    auto hdr = r.take(n);
    if (!hdr)
      return wire::DecodeError{"Terminated DDP Header",
                               ctl.tagged ? "shorter than the 14 octets its T=1 demands"
                                          : "shorter than the 18 octets its T=0 demands",
                               kSection, at};
    std::copy(hdr->begin(), hdr->end(), t.ddp_header.begin());
    t.ddp_header_size = n;
    if (t.r) {
      const std::size_t rn = ctl.tagged ? 0 : copied_rdma_header_size(ctl.rsvd_ulp & 0x0f);
      if (rn == 0)
        return wire::DecodeError{"Terminated RDMA Header",
                                 "R set for a message without an RDMAP request header", kSection,
                                 at};
      const std::size_t rat = r.offset();
      auto rh = r.take(rn);
      if (!rh)
        return wire::DecodeError{"Terminated RDMA Header", "shorter than its opcode's header",
                                 kSection, rat};
      std::copy(rh->begin(), rh->end(), t.rdma_header.begin());
      t.rdma_header_size = rn;
    }
  }
  if (!r.empty())
    return wire::DecodeError{"Terminate", "octets beyond what M, D and R announce", kSection,
                             r.offset()};
  return t;
}

}  // namespace rdmaconf::rdmap
