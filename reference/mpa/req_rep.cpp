#include "mpa/req_rep.hpp"

#include <algorithm>

namespace rdmaconf::mpa {
namespace {

using F = ReqRepSpec::Field;

wire::DecodeError error(F field, std::string_view rule, std::string_view section = {}) {
  const wire::FieldDecl& d = ReqRepHeader::field_decl(field);
  return wire::DecodeError{d.name, rule, section.empty() ? d.rfc_section : section, d.octet_offset()};
}

// Checks the key octets received so far; `n` may be shorter than the key.
wire::Status check_key(wire::Bytes received, std::optional<FrameKind> expect) {
  const std::size_t n = std::min(received.size(), kKeySize);
  auto matches = [&](const std::array<std::uint8_t, kKeySize>& key) {
    return std::equal(received.begin(), received.begin() + static_cast<std::ptrdiff_t>(n), key.begin());
  };
  if (expect == FrameKind::kRequest && !matches(kRequestKey))
    return error(F::Key, "is not \"MPA ID Req Frame\" (a Request was expected)");
  if (expect == FrameKind::kReply && !matches(kReplyKey))
    return error(F::Key, "is not \"MPA ID Rep Frame\" (a Reply was expected)");
  if (!expect && !matches(kRequestKey) && !matches(kReplyKey))
    return error(F::Key, "is neither \"MPA ID Req Frame\" nor \"MPA ID Rep Frame\"");
  return {};
}

}  // namespace

EnhancedDataHeader EnhancedData::to_header() const {
  using E = EnhancedDataSpec::Field;
  EnhancedDataHeader h;
  h.set(E::A, peer_to_peer).set(E::B, rtr_send).set(E::IRD, ird);
  h.set(E::C, rtr_write).set(E::D, rtr_read).set(E::ORD, ord);
  return h;
}

EnhancedData EnhancedData::from_header(const EnhancedDataHeader& h) {
  using E = EnhancedDataSpec::Field;
  EnhancedData d;
  d.peer_to_peer = h.flag(E::A);
  d.rtr_send = h.flag(E::B);
  d.rtr_write = h.flag(E::C);
  d.rtr_read = h.flag(E::D);
  d.ird = static_cast<std::uint16_t>(h.get(E::IRD));
  d.ord = static_cast<std::uint16_t>(h.get(E::ORD));
  return d;
}

wire::Result<std::size_t> required_frame_size(wire::Bytes received, std::optional<FrameKind> expect) {
  if (auto key = check_key(received, expect); !key) return key.error();
  if (received.size() < kReqRepHeaderSize) return kReqRepHeaderSize;
  const ReqRepHeader h(received.first<kReqRepHeaderSize>());
  const std::uint64_t pd_length = h.get(F::PD_Length);
  // RFC 5044 §7.1.4: checked before anything waits for or stores the data.
  if (pd_length > kMaxPrivateDataLength) return error(F::PD_Length, "must not exceed 512");
  return kReqRepHeaderSize + static_cast<std::size_t>(pd_length);
}

wire::Result<ReqRepFrame> decode_req_rep(wire::Bytes frame, const ReqRepDecodeOptions& options) {
  wire::ByteReader r(frame);
  auto header = ReqRepHeader::decode(r);
  if (!header) return header.error();
  if (auto key = check_key(frame, options.expect); !key) return key.error();

  ReqRepFrame out;
  out.header = *header;
  out.kind = std::equal(kRequestKey.begin(), kRequestKey.end(), frame.begin()) ? FrameKind::kRequest
                                                                              : FrameKind::kReply;
  out.markers = header->flag(F::M);
  out.crc = header->flag(F::C);
  out.reject = header->flag(F::R);
  out.revision = static_cast<std::uint8_t>(header->get(F::Rev));
  const bool s = header->flag(F::S);

  if (out.revision != kRevision1 && out.revision != kRevision2)
    return error(F::Rev, "must be 1 (RFC 5044) or 2 (RFC 6581)");
  if (options.check_reserved) {
    if (header->get(F::Res) != 0) return error(F::Res, "reserved bits must be zero");
    // In a Rev 1 frame the S bit is still part of Res.
    if (out.revision == kRevision1 && s)
      return error(F::S, "is a reserved bit in a Rev 1 frame and must be zero", cite::kReqRepFormat);
  }
  // RFC 5044 §7.1.1: only a Reply can reject.
  if (out.kind == FrameKind::kRequest && out.reject) return error(F::R, "must be zero in a Request");

  const std::uint64_t pd_length = header->get(F::PD_Length);
  if (pd_length > kMaxPrivateDataLength) return error(F::PD_Length, "must not exceed 512");
  auto pd = r.take(static_cast<std::size_t>(pd_length));
  if (!pd) return error(F::PD_Length, "announces more private data than was received");
  out.private_data = *pd;
  out.ulp_private_data = *pd;
  out.frame_size = kReqRepHeaderSize + pd->size();

  if (out.revision == kRevision2 && s) {
    out.enhanced = true;
    wire::ByteReader pr(*pd, kReqRepHeaderSize);
    auto block = EnhancedDataHeader::decode(pr);
    if (!block) {
      const wire::FieldDecl& ird = EnhancedDataHeader::field_decl(EnhancedDataSpec::Field::IRD);
      return wire::DecodeError{ird.name, "S is set but private data is shorter than the 4-octet IRD/ORD data",
                               cite::kEnhancedData, kReqRepHeaderSize};
    }
    out.enhanced_data = EnhancedData::from_header(*block);
    out.ulp_private_data = pr.rest();
  }
  return out;
}

std::size_t encode_req_rep(const ReqRepFields& f, std::vector<std::uint8_t>& out) {
  const std::size_t start = out.size();
  ReqRepHeader h;
  const auto& key = f.key ? *f.key : (f.kind == FrameKind::kRequest ? kRequestKey : kReplyKey);
  h.set_octets(F::Key, key);
  h.set(F::M, f.markers).set(F::C, f.crc).set(F::R, f.reject);
  h.set(F::S, f.s_flag.value_or(f.enhanced.has_value()));
  h.set(F::Res, f.res.value_or(0)).set(F::Rev, f.revision);

  std::size_t pd_octets = 0;
  if (f.raw_private_data) {
    pd_octets = f.raw_private_data->size();
  } else {
    pd_octets = (f.enhanced ? kEnhancedDataSize : 0) + f.private_data.size();
  }
  h.set(F::PD_Length, f.pd_length.value_or(static_cast<std::uint16_t>(pd_octets)));

  wire::ByteWriter w(out);
  h.encode(w);
  if (f.raw_private_data) {
    w.put(*f.raw_private_data);
  } else {
    if (f.enhanced) f.enhanced->to_header().encode(w);
    w.put(f.private_data);
  }
  return out.size() - start;
}

std::vector<std::uint8_t> encode_req_rep(const ReqRepFields& fields) {
  std::vector<std::uint8_t> out;
  encode_req_rep(fields, out);
  return out;
}

}  // namespace rdmaconf::mpa
