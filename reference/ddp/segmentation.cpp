#include "ddp/segmentation.hpp"

#include <algorithm>

namespace rdmaconf::ddp {
namespace {

constexpr std::string_view kSection = "RFC 5041 §5.2";

// The two header kinds differ only in how the offset of a segment's first
// octet is written: TO (base + offset) or MO (offset).
template <typename WriteHeader>
wire::Status split(std::size_t ddp_header_size, wire::Bytes ulp_header, const wire::Chunks& payload,
                   std::size_t mulpdu, std::vector<Segment>& out, WriteHeader&& write_header) {
  out.clear();
  if (mulpdu <= ddp_header_size)
    return wire::DecodeError{"MULPDU", "leaves no room for payload after the DDP header",
                             kSection, 0};
  const std::size_t room = mulpdu - ddp_header_size;  // ULP octets per segment
  if (ulp_header.size() > room || ddp_header_size + ulp_header.size() > kMaxSegmentHeader)
    return wire::DecodeError{"ULP header", "does not fit in the first DDP segment", kSection, 0};
  const std::uint64_t total = std::uint64_t{ulp_header.size()} + payload.size();
  if (total > 0xffffffffull)
    return wire::DecodeError{"ULP message", "must be shorter than 2^32 octets", kSection, 0};

  out.reserve(total == 0 ? 1 : (total + room - 1) / room);
  std::uint64_t offset = 0;  // of the segment's first ULP octet in the message
  do {
    Segment s;
    const std::uint64_t n = std::min<std::uint64_t>(room, total - offset);
    const bool last = offset + n == total;
    write_header(wire::MutableBytes(s.header_octets).first(ddp_header_size), offset, last);
    s.header_size = ddp_header_size;
    std::uint64_t from_payload = n;
    if (offset == 0 && !ulp_header.empty()) {
      std::copy(ulp_header.begin(), ulp_header.end(), s.header_octets.begin() + ddp_header_size);
      s.header_size += ulp_header.size();
      from_payload -= ulp_header.size();
    }
    const std::uint64_t payload_from = offset == 0 ? 0 : offset - ulp_header.size();
    s.payload = payload.subrange(payload_from, from_payload);
    out.push_back(std::move(s));
    offset += n;
  } while (offset < total);
  return {};
}

}  // namespace

std::vector<std::uint8_t> Segment::to_vector() const {
  std::vector<std::uint8_t> v(header().begin(), header().end());
  payload.for_each([&](wire::Bytes p) { v.insert(v.end(), p.begin(), p.end()); });
  return v;
}

wire::Status segment_tagged(const TaggedTarget& target, wire::Bytes ulp_header,
                            const wire::Chunks& payload, std::size_t mulpdu,
                            std::vector<Segment>& out) {
  return split(kTaggedHeaderSize, ulp_header, payload, mulpdu, out,
               [&](wire::MutableBytes header, std::uint64_t offset, bool last) {
                 TaggedHeader h;
                 using F = TaggedSpec::Field;
                 h.set(F::T, 1).set(F::L, last).set(F::DV, target.dv);
                 h.set(F::RsvdULP, target.rsvd_ulp).set(F::STag, value(target.stag));
                 // RFC 5041 §5.2: TO advances with the octets already sent
                 // (modulo 2^64; the Data Sink reports a wrap).
                 h.set(F::TO, target.to + offset);
                 std::copy(h.bytes().begin(), h.bytes().end(), header.begin());
               });
}

wire::Status segment_untagged(const UntaggedTarget& target, wire::Bytes ulp_header,
                              const wire::Chunks& payload, std::size_t mulpdu,
                              std::vector<Segment>& out) {
  return split(kUntaggedHeaderSize, ulp_header, payload, mulpdu, out,
               [&](wire::MutableBytes header, std::uint64_t offset, bool last) {
                 UntaggedHeader h;
                 using F = UntaggedSpec::Field;
                 h.set(F::T, 0).set(F::L, last).set(F::DV, target.dv);
                 h.set(F::RsvdULP, target.rsvd_ulp).set(F::RsvdULP32, target.rsvd_ulp32);
                 h.set(F::QN, value(target.qn)).set(F::MSN, value(target.msn));
                 // RFC 5041 §5.2: MO is the offset from the message's first octet.
                 h.set(F::MO, offset);
                 std::copy(h.bytes().begin(), h.bytes().end(), header.begin());
               });
}

wire::Result<std::vector<Segment>> segment_tagged(const TaggedTarget& target,
                                                  wire::Bytes ulp_header,
                                                  const wire::Chunks& payload,
                                                  std::size_t mulpdu) {
  std::vector<Segment> out;
  if (auto s = segment_tagged(target, ulp_header, payload, mulpdu, out); !s) return s.error();
  return out;
}

wire::Result<std::vector<Segment>> segment_untagged(const UntaggedTarget& target,
                                                    wire::Bytes ulp_header,
                                                    const wire::Chunks& payload,
                                                    std::size_t mulpdu) {
  std::vector<Segment> out;
  if (auto s = segment_untagged(target, ulp_header, payload, mulpdu, out); !s) return s.error();
  return out;
}

}  // namespace rdmaconf::ddp
