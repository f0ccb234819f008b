#include "capture/decode.hpp"

#include <algorithm>

namespace rdmaconf::capture {
namespace {

using wire::ByteReader;
using wire::Bytes;
using wire::DecodeError;

// IPv6 extension headers we walk before giving up on a frame; real stacks
// send two or three, and a loop bound keeps a crafted chain from costing more.
constexpr int kMaxExtensionHeaders = 8;

class FrameDecoder {
 public:
  FrameDecoder(const RawFrame& f, ReportSink& sink)
      : f_(f), sink_(sink), cut_(f.original_length > f.captured.size()) {}

  std::optional<TcpSegment> run();

 private:
  // A header did not fit in the captured octets: snaplen's doing when the
  // frame was cut, otherwise the frame itself is short.
  std::nullopt_t truncated(const DecodeError& e) {
    return report(cut_ ? ReportKind::kSnaplenCut : ReportKind::kMalformedFrame, e);
  }
  std::nullopt_t malformed(const DecodeError& e) { return report(ReportKind::kMalformedFrame, e); }
  std::nullopt_t report(ReportKind kind, const DecodeError& e, std::uint64_t value = 0) {
    Report r;
    r.kind = kind;
    r.frame = f_.number;
    r.offset = e.offset;
    r.detail = e;
    r.value = value;
    sink_.on_report(r);
    return std::nullopt;
  }

  std::optional<TcpSegment> link_ethertype(ByteReader& r, std::uint16_t type);
  std::optional<TcpSegment> ipv4(ByteReader& r);
  std::optional<TcpSegment> ipv6(ByteReader& r);
  std::optional<TcpSegment> tcp(ByteReader& r, std::size_t declared_length);
  std::optional<TcpSegment> udp(ByteReader& r, std::size_t declared_length, std::size_t ip_start);
  std::optional<TcpSegment> sctp(ByteReader& r, std::size_t declared_length, std::size_t ip_start);
  // Octets of the frame on the wire from `captured_offset` on.
  std::size_t wire_length_from(std::size_t captured_offset) const {
    return f_.original_length > captured_offset ? f_.original_length - captured_offset : 0;
  }

  const RawFrame& f_;
  ReportSink& sink_;
  bool cut_;
  TcpSegment seg_;
};

std::optional<TcpSegment> FrameDecoder::run() {
  seg_.frame = f_.number;
  seg_.time = f_.time;
  ByteReader r(f_.captured);
  switch (f_.link) {
    case LinkType::kEthernet: {
      auto eth = EthernetHeader::decode(r);
      if (!eth) return truncated(eth.error());
      return link_ethertype(r, static_cast<std::uint16_t>(eth->get(EthernetSpec::Field::EtherType)));
    }
    case LinkType::kLinuxSll: {
      auto sll = SllHeader::decode(r);
      if (!sll) return truncated(sll.error());
      return link_ethertype(r, static_cast<std::uint16_t>(sll->get(SllSpec::Field::Protocol)));
    }
    case LinkType::kLinuxSll2: {
      auto sll = Sll2Header::decode(r);
      if (!sll) return truncated(sll.error());
      return link_ethertype(r, static_cast<std::uint16_t>(sll->get(Sll2Spec::Field::Protocol)));
    }
    case LinkType::kNull:
    case LinkType::kLoop: {
      auto h = NullHeader::decode(r);
      if (!h) return truncated(h.error());
      auto family = static_cast<std::uint32_t>(h->get(NullSpec::Field::Family));
      // LINKTYPE_NULL stores the family in the writer's byte order. Every
      // family value is below 256, so a value above 0xffff was written
      // little-endian and reads right swapped.
      if (f_.link == LinkType::kNull && family > 0xffff)
        family = __builtin_bswap32(family);
      if (family == bsd_family::kInet) return ipv4(r);
      if (bsd_family::is_inet6(family)) return ipv6(r);
      return report(ReportKind::kNotTcp,
                    wire::field_error(NullSpec::fields[0], "address family is neither IPv4 nor IPv6", 0),
                    family);
    }
    case LinkType::kRaw: {
      // LINKTYPE_RAW: the IP version nibble tells which IP follows.
      if (r.empty())
        return truncated(DecodeError{"Version", "frame holds no IP header", "LINKTYPE_RAW", 0});
      // The Version field opens both IP headers (RFC 791 §3.1, RFC 8200 §3).
      const auto version = static_cast<IpVersion>(
          wire::read_field(r.rest(), Ipv4Header::field_decl(Ipv4Spec::Field::Version)));
      if (version == IpVersion::kV4) return ipv4(r);
      if (version == IpVersion::kV6) return ipv6(r);
      return malformed(DecodeError{"Version", "raw IP frame with an IP version other than 4 or 6",
                                   "LINKTYPE_RAW", 0});
    }
    case LinkType::kIpv4:
      return ipv4(r);
    case LinkType::kIpv6:
      return ipv6(r);
  }
  return report(ReportKind::kUnsupportedLinkType,
                DecodeError{"Link type", "no decoder for this capture link type", "LINKTYPE registry", 0},
                static_cast<std::uint32_t>(f_.link));
}

// After the link header: zero or more VLAN tags, then IPv4 or IPv6.
std::optional<TcpSegment> FrameDecoder::link_ethertype(ByteReader& r, std::uint16_t type) {
  while (ethertype::is_vlan_tpid(type)) {
    if (seg_.vlan_count == kMaxVlanTags)
      return malformed(DecodeError{"802.1Q VLAN tag", "more stacked VLAN tags than we decode (4)",
                                   "IEEE 802.1Q §9.6", r.offset()});
    auto tag = VlanTag::decode(r);
    if (!tag) return truncated(tag.error());
    seg_.vlan_ids[seg_.vlan_count++] = static_cast<std::uint16_t>(tag->get(VlanTagSpec::Field::Vid));
    type = static_cast<std::uint16_t>(tag->get(VlanTagSpec::Field::EtherType));
  }
  if (type == ethertype::kIpv4) return ipv4(r);
  if (type == ethertype::kIpv6) return ipv6(r);
  if (type <= ethertype::kMaxLength8023)
    return report(ReportKind::kNotTcp,
                  DecodeError{"EtherType", "IEEE 802.3 length field: an LLC frame, not IP",
                              "IEEE 802.3 §3.2.6", r.offset() - 2},
                  type);
  return report(ReportKind::kNotTcp,
                DecodeError{"EtherType", "neither IPv4 nor IPv6: skipped", "IEEE 802.3 §3.2.6",
                            r.offset() - 2},
                type);
}

std::optional<TcpSegment> FrameDecoder::ipv4(ByteReader& r) {
  using F = Ipv4Spec::Field;
  const std::size_t start = r.offset();
  auto h = Ipv4Header::decode(r);
  if (!h) return truncated(h.error());
  if (h->get(F::Version) != 4)
    return malformed(wire::field_error(Ipv4Header::field_decl(F::Version), "must be 4", start));
  const std::size_t header_length = h->get(F::Ihl) * 4;
  if (header_length < Ipv4Header::kSize)
    return malformed(wire::field_error(Ipv4Header::field_decl(F::Ihl), "must be at least 5", start));
  std::size_t total_length = h->get(F::TotalLength);
  const std::size_t on_wire = wire_length_from(start);
  // A Total Length of 0 is what a host capture shows for a segment handed to
  // the NIC for segmentation (TSO): the frame's own length is the truth.
  if (total_length == 0) total_length = on_wire;
  if (total_length < header_length)
    return malformed(wire::field_error(Ipv4Header::field_decl(F::TotalLength),
                                       "smaller than the header length", start));
  if (total_length > on_wire)
    return malformed(wire::field_error(Ipv4Header::field_decl(F::TotalLength),
                                       "larger than the frame that carried it", start));
  if (!r.skip(header_length - Ipv4Header::kSize))
    return truncated(DecodeError{"Options", "IPv4 options cut short", "RFC 791 §3.1", r.offset()});
  if (h->flag(F::MoreFragments) || h->get(F::FragmentOffset) != 0)
    return report(ReportKind::kIpFragment,
                  wire::field_error(Ipv4Header::field_decl(F::FragmentOffset),
                                    "IP fragment: fragments are not reassembled, skipped", start));
  const auto protocol = static_cast<std::uint8_t>(h->get(F::Protocol));
  const bool udp_wanted = protocol == ip_protocol::kUdp && sink_.wants_udp();
  const bool sctp_wanted = protocol == ip_protocol::kSctp && sink_.wants_sctp();
  if (protocol != ip_protocol::kTcp && !udp_wanted && !sctp_wanted)
    return report(ReportKind::kNotTcp,
                  wire::field_error(Ipv4Header::field_decl(F::Protocol), "not TCP: skipped", start),
                  protocol);
  // The address's octets as the header carries them (RFC 791 §3.1).
  auto address = [&](F f) {
    IpAddress ip;
    ip.version = IpVersion::kV4;
    std::copy_n(h->bytes().begin() + Ipv4Header::field_decl(f).octet_offset(), kIpv4Octets, ip.octets.begin());
    return ip;
  };
  seg_.key.source.address = address(F::Source);
  seg_.key.destination.address = address(F::Destination);
  if (udp_wanted) return udp(r, total_length - header_length, start);
  if (sctp_wanted) return sctp(r, total_length - header_length, start);
  return tcp(r, total_length - header_length);
}

std::optional<TcpSegment> FrameDecoder::ipv6(ByteReader& r) {
  using F = Ipv6Spec::Field;
  const std::size_t start = r.offset();
  auto h = Ipv6Header::decode(r);
  if (!h) return truncated(h.error());
  if (h->get(F::Version) != 6)
    return malformed(wire::field_error(Ipv6Header::field_decl(F::Version), "must be 6", start));
  const std::size_t on_wire = wire_length_from(start);
  std::size_t payload_length = h->get(F::PayloadLength);
  auto next = static_cast<std::uint8_t>(h->get(F::NextHeader));
  // RFC 2675 §3: a jumbogram says 0 here and carries its length in a
  // Hop-by-Hop option; host captures of large GSO segments look the same.
  if (payload_length == 0 && next == ip_protocol::kHopByHop)
    payload_length = on_wire - Ipv6Header::kSize;
  if (Ipv6Header::kSize + payload_length > on_wire)
    return malformed(wire::field_error(Ipv6Header::field_decl(F::PayloadLength),
                                       "larger than the frame that carried it", start));
  auto address = [&](F f) {
    std::array<std::uint8_t, 16> a{};
    Bytes o = h->octets(f);
    std::copy(o.begin(), o.end(), a.begin());
    return capture::ipv6(a);
  };
  seg_.key.source.address = address(F::Source);
  seg_.key.destination.address = address(F::Destination);

  // Walk the extension headers inside the declared payload (RFC 8200 §4.1).
  std::size_t walked = 0;  // octets of extension headers
  for (int i = 0;; ++i) {
    if (next == ip_protocol::kTcp) break;
    if (next == ip_protocol::kUdp && sink_.wants_udp()) return udp(r, payload_length - walked, start);
    if (next == ip_protocol::kSctp && sink_.wants_sctp()) return sctp(r, payload_length - walked, start);
    if (i == kMaxExtensionHeaders)
      return malformed(DecodeError{"Next Header", "more extension headers than we walk (8)",
                                   "RFC 8200 §4.1", r.offset()});
    const std::size_t at = r.offset();
    std::size_t length = 0;
    switch (next) {
      case ip_protocol::kHopByHop:
      case ip_protocol::kRouting:
      case ip_protocol::kDestinationOptions:
      case ip_protocol::kMobility:
      case ip_protocol::kHip:
      case ip_protocol::kShim6: {
        auto e = Ipv6ExtensionHeader::decode(r);
        if (!e) return truncated(e.error());
        length = (e->get(Ipv6ExtensionSpec::Field::HdrExtLen) + 1) * 8;
        next = static_cast<std::uint8_t>(e->get(Ipv6ExtensionSpec::Field::NextHeader));
        break;
      }
      case ip_protocol::kAh: {
        auto e = AhPrefix::decode(r);
        if (!e) return truncated(e.error());
        length = (e->get(AhPrefixSpec::Field::PayloadLen) + 2) * 4;
        next = static_cast<std::uint8_t>(e->get(AhPrefixSpec::Field::NextHeader));
        break;
      }
      case ip_protocol::kFragment: {
        auto e = Ipv6FragmentHeader::decode(r);
        if (!e) return truncated(e.error());
        // RFC 6946: offset 0 without M is an "atomic fragment", the whole
        // packet; anything else is a real fragment, which we don't reassemble.
        if (e->get(Ipv6FragmentSpec::Field::FragmentOffset) != 0 ||
            e->flag(Ipv6FragmentSpec::Field::MoreFragments))
          return report(ReportKind::kIpFragment,
                        wire::field_error(Ipv6FragmentHeader::field_decl(Ipv6FragmentSpec::Field::FragmentOffset),
                                          "IP fragment: fragments are not reassembled, skipped", at));
        length = Ipv6FragmentHeader::kSize;
        next = static_cast<std::uint8_t>(e->get(Ipv6FragmentSpec::Field::NextHeader));
        break;
      }
      default:
        // ESP hides what follows; UDP, ICMPv6, No Next Header etc. are not TCP.
        return report(ReportKind::kNotTcp,
                      DecodeError{"Next Header", "not TCP: skipped", "RFC 8200 §4", at}, next);
    }
    walked += length;
    if (walked > payload_length)
      return malformed(DecodeError{"Hdr Ext Len", "extension header runs past the payload length",
                                   "RFC 8200 §4", at});
    if (!r.skip(length - (r.offset() - at)))
      return truncated(DecodeError{"Hdr Ext Len", "extension header cut short", "RFC 8200 §4", at});
  }
  return tcp(r, payload_length - walked);
}

// The TCP segment of `declared_length` octets (from the IP header) starts at r.
std::optional<TcpSegment> FrameDecoder::tcp(ByteReader& r, std::size_t declared_length) {
  using F = TcpSpec::Field;
  const std::size_t start = r.offset();
  // Only the declared octets belong to the segment; Ethernet padding after
  // them is not TCP data (IEEE 802.3 pads frames to 60 octets).
  ByteReader t(r.rest().first(std::min(declared_length, r.remaining())), start);
  if (declared_length < TcpHeader::kSize)
    return malformed(DecodeError{"TCP header", "IP payload shorter than a TCP header", "RFC 9293 §3.1", start});
  auto h = TcpHeader::decode(t);
  if (!h) return truncated(h.error());
  const std::size_t header_length = h->get(F::DataOffset) * 4;
  if (header_length < TcpHeader::kSize)
    return malformed(wire::field_error(TcpHeader::field_decl(F::DataOffset), "must be at least 5", start));
  if (header_length > declared_length)
    return malformed(wire::field_error(TcpHeader::field_decl(F::DataOffset),
                                       "header longer than the IP payload", start));
  auto options = t.take(header_length - TcpHeader::kSize);
  if (!options)
    return truncated(DecodeError{"Options", "TCP options cut short", "RFC 9293 §3.1", t.offset()});

  seg_.key.source.port = static_cast<std::uint16_t>(h->get(F::SourcePort));
  seg_.key.destination.port = static_cast<std::uint16_t>(h->get(F::DestinationPort));
  seg_.seq = SeqNum{static_cast<std::uint32_t>(h->get(F::SequenceNumber))};
  seg_.ack = SeqNum{static_cast<std::uint32_t>(h->get(F::AcknowledgmentNumber))};
  seg_.flags = TcpFlags{h->flag(F::Cwr), h->flag(F::Ece), h->flag(F::Urg), h->flag(F::Ack),
                        h->flag(F::Psh), h->flag(F::Rst), h->flag(F::Syn), h->flag(F::Fin)};
  seg_.window = static_cast<std::uint16_t>(h->get(F::Window));
  seg_.payload_length = static_cast<std::uint32_t>(declared_length - header_length);
  seg_.payload = t.rest();

  // Broken options don't make the data less real: report and keep the segment.
  wire::Status st = parse_tcp_options(*options, seg_.options);
  if (!st) {
    DecodeError e = st.error();
    e.offset += start + TcpHeader::kSize;
    report(ReportKind::kMalformedTcpOptions, e);
  }
  return seg_;
}

// The UDP datagram of `declared_length` octets (from the IP header) starts
// at r: handed to the sink whole, or reported.
std::optional<TcpSegment> FrameDecoder::udp(ByteReader& r, std::size_t declared_length, std::size_t ip_start) {
  using F = UdpSpec::Field;
  const std::size_t start = r.offset();
  if (declared_length < UdpHeader::kSize)
    return malformed(DecodeError{"UDP header", "IP payload shorter than a UDP header", "RFC 768", start});
  auto h = UdpHeader::decode(r);
  if (!h) return truncated(h.error());
  const std::size_t length = h->get(F::Length);
  // RFC 768: Length counts the header; it cannot exceed what IP carried
  // (Ethernet padding may follow it, which is not data).
  if (length < UdpHeader::kSize || length > declared_length)
    return malformed(wire::field_error(UdpHeader::field_decl(F::Length),
                                       "smaller than the header or larger than the IP payload", start));
  const std::size_t data = length - UdpHeader::kSize;
  if (r.remaining() < data)
    return report(ReportKind::kSnaplenCut,
                  DecodeError{"UDP data", "datagram cut by the snaplen: skipped", "RFC 768", r.offset()});
  UdpDatagram d;
  d.frame = f_.number;
  d.time = f_.time;
  d.key = seg_.key;
  d.key.source.port = static_cast<std::uint16_t>(h->get(F::SourcePort));
  d.key.destination.port = static_cast<std::uint16_t>(h->get(F::DestinationPort));
  d.vlan_ids = seg_.vlan_ids;
  d.vlan_count = seg_.vlan_count;
  d.payload = r.rest().first(data);
  if (sink_.on_udp(d)) return std::nullopt;
  return report(ReportKind::kNotTcp, DecodeError{"Protocol", "not TCP: skipped", "RFC 791 §3.1", ip_start},
                ip_protocol::kUdp);
}

// The SCTP packet of `declared_length` octets (from the IP header) starts
// at r: handed to the sink whole, or reported. Its own headers are read by
// the sink (sctp/packet.hpp).
std::optional<TcpSegment> FrameDecoder::sctp(ByteReader& r, std::size_t declared_length, std::size_t ip_start) {
  if (r.remaining() < declared_length)
    return report(ReportKind::kSnaplenCut,
                  DecodeError{"SCTP packet", "packet cut by the snaplen: skipped", "RFC 9260 §3", r.offset()});
  SctpPacket p;
  p.frame = f_.number;
  p.time = f_.time;
  p.key = seg_.key;
  p.vlan_ids = seg_.vlan_ids;
  p.vlan_count = seg_.vlan_count;
  p.packet = r.rest().first(declared_length);
  if (sink_.on_sctp(p)) return std::nullopt;
  return report(ReportKind::kNotTcp, DecodeError{"Protocol", "not TCP: skipped", "RFC 791 §3.1", ip_start},
                ip_protocol::kSctp);
}

}  // namespace

std::optional<TcpKeyOctets> tcp_key_octets(const RawFrame& frame) {
  const Bytes f = frame.captured;
  std::size_t at = 0;
  IpVersion version{};
  if (frame.link == LinkType::kEthernet || frame.link == LinkType::kLinuxSll || frame.link == LinkType::kLinuxSll2) {
    std::uint16_t type = 0;
    if (frame.link == LinkType::kEthernet) {
      if (f.size() < EthernetHeader::kSize) return std::nullopt;
      type = static_cast<std::uint16_t>(EthernetHeader::read(f, EthernetSpec::Field::EtherType));
      at = EthernetHeader::kSize;
    } else if (frame.link == LinkType::kLinuxSll) {
      if (f.size() < SllHeader::kSize) return std::nullopt;
      type = static_cast<std::uint16_t>(SllHeader::read(f, SllSpec::Field::Protocol));
      at = SllHeader::kSize;
    } else {
      if (f.size() < Sll2Header::kSize) return std::nullopt;
      type = static_cast<std::uint16_t>(Sll2Header::read(f, Sll2Spec::Field::Protocol));
      at = Sll2Header::kSize;
    }
    for (std::size_t tags = 0; ethertype::is_vlan_tpid(type); ++tags) {
      if (tags == kMaxVlanTags || f.size() < at + VlanTag::kSize) return std::nullopt;
      type = static_cast<std::uint16_t>(VlanTag::read(f.subspan(at), VlanTagSpec::Field::EtherType));
      at += VlanTag::kSize;
    }
    if (type == ethertype::kIpv4) version = IpVersion::kV4;
    else if (type == ethertype::kIpv6) version = IpVersion::kV6;
    else return std::nullopt;
  } else if (frame.link == LinkType::kRaw || frame.link == LinkType::kIpv4 || frame.link == LinkType::kIpv6) {
    if (f.empty()) return std::nullopt;
    version = static_cast<IpVersion>(wire::read_field(f, Ipv4Header::field_decl(Ipv4Spec::Field::Version)));
    if (frame.link == LinkType::kIpv4 && version != IpVersion::kV4) return std::nullopt;
    if (frame.link == LinkType::kIpv6 && version != IpVersion::kV6) return std::nullopt;
  } else {
    return std::nullopt;
  }
  TcpKeyOctets key;
  const Bytes ip = f.subspan(at);
  std::size_t tcp_at = 0;
  if (version == IpVersion::kV4) {
    using F = Ipv4Spec::Field;
    if (ip.size() < Ipv4Header::kSize || Ipv4Header::read(ip, F::Version) != 4) return std::nullopt;
    // Fragments and other protocols are decode_frame's to report.
    if (Ipv4Header::read(ip, F::MoreFragments) != 0 || Ipv4Header::read(ip, F::FragmentOffset) != 0 ||
        Ipv4Header::read(ip, F::Protocol) != ip_protocol::kTcp)
      return std::nullopt;
    tcp_at = Ipv4Header::read(ip, F::Ihl) * 4;
    if (tcp_at < Ipv4Header::kSize) return std::nullopt;
    constexpr std::size_t kFrom = Ipv4Header::field_decl(F::Source).octet_offset();
    constexpr std::size_t kTo = Ipv4Header::field_decl(F::Destination).octet_offset() + kIpv4Octets;
    static_assert(kTo - kFrom == 2 * kIpv4Octets, "the destination address follows the source");
    key.version = IpVersion::kV4;
    key.addresses = ip.subspan(kFrom, kTo - kFrom);
  } else if (version == IpVersion::kV6) {
    using F = Ipv6Spec::Field;
    if (ip.size() < Ipv6Header::kSize || Ipv6Header::read(ip, F::Version) != 6 ||
        Ipv6Header::read(ip, F::NextHeader) != ip_protocol::kTcp)
      return std::nullopt;
    tcp_at = Ipv6Header::kSize;
    constexpr std::size_t kFrom = Ipv6Header::field_decl(F::Source).octet_offset();
    constexpr std::size_t kTo = Ipv6Header::field_decl(F::Destination).octet_offset() + kIpv6Octets;
    static_assert(kTo - kFrom == 2 * kIpv6Octets, "the destination address follows the source");
    key.version = IpVersion::kV6;
    key.addresses = ip.subspan(kFrom, kTo - kFrom);
  } else {
    return std::nullopt;
  }
  // The key needs the two ports only, not the whole TCP header.
  static_assert(TcpHeader::field_decl(TcpSpec::Field::SourcePort).octet_offset() == 0, "the ports come first");
  constexpr std::size_t kPortsEnd = TcpHeader::field_decl(TcpSpec::Field::DestinationPort).octet_offset() +
                                    sizeof(std::uint16_t);
  if (ip.size() < tcp_at + kPortsEnd) return std::nullopt;
  key.ports = ip.subspan(tcp_at, kPortsEnd);
  return key;
}

StreamKey stream_key_of(const TcpKeyOctets& k) {
  StreamKey key;
  const std::size_t n = address_octets(k.version);
  key.source.address.version = key.destination.address.version = k.version;
  std::copy_n(k.addresses.begin(), n, key.source.address.octets.begin());
  std::copy_n(k.addresses.begin() + static_cast<std::ptrdiff_t>(n), n, key.destination.address.octets.begin());
  key.source.port = static_cast<std::uint16_t>(wire::read_field(k.ports, TcpHeader::field_decl(TcpSpec::Field::SourcePort)));
  key.destination.port =
      static_cast<std::uint16_t>(wire::read_field(k.ports, TcpHeader::field_decl(TcpSpec::Field::DestinationPort)));
  return key;
}

std::optional<StreamKey> tcp_key_of(const RawFrame& frame) {
  const std::optional<TcpKeyOctets> k = tcp_key_octets(frame);
  if (!k) return std::nullopt;
  return stream_key_of(*k);
}

std::optional<TcpSegment> decode_frame(const RawFrame& frame, ReportSink& sink) {
  return FrameDecoder(frame, sink).run();
}

wire::Status parse_tcp_options(wire::Bytes options, TcpOptions& out) {
  using K = TcpOptionSpec::Field;
  ByteReader r(options);
  while (!r.empty()) {
    const std::size_t at = r.offset();
    const std::uint8_t kind = options[at];
    if (kind == tcp_option::kEndOfList) break;  // the rest is padding
    if (kind == tcp_option::kNop) {
      r.skip(1);
      continue;
    }
    auto head = TcpOptionHeader::decode(r);
    if (!head)
      return DecodeError{"Length", "option has no length octet before the header ends", "RFC 9293 §3.1", at};
    const std::size_t length = head->get(K::Length);
    if (length < 2)
      return wire::field_error(TcpOptionHeader::field_decl(K::Length), "must be at least 2", at);
    auto body = r.take(length - 2);
    if (!body)
      return wire::field_error(TcpOptionHeader::field_decl(K::Length), "option runs past the TCP header", at);
    switch (kind) {
      case tcp_option::kMss:
        if (length != 4) return DecodeError{"Length", "MSS option must be 4 octets", "RFC 9293 §3.2", at};
        out.mss = static_cast<std::uint16_t>(wire::load_be(*body));
        break;
      case tcp_option::kWindowScale:
        if (length != 3) return DecodeError{"Length", "Window Scale option must be 3 octets", "RFC 7323 §2.2", at};
        out.window_scale = (*body)[0];
        break;
      case tcp_option::kSackPermitted:
        if (length != 2) return DecodeError{"Length", "SACK-Permitted option must be 2 octets", "RFC 2018 §2", at};
        out.sack_permitted = true;
        break;
      case tcp_option::kTimestamps:
        if (length != 10) return DecodeError{"Length", "Timestamps option must be 10 octets", "RFC 7323 §3.2", at};
        out.timestamps = true;
        break;
      case tcp_option::kExperimental253:
      case tcp_option::kExperimental254: {
        // RFC 6994 §3: a 16- or 32-bit ExID follows kind and length; SMC-R's
        // is 32 bits (Linux accepts it in an even-length option of >= 6).
        if (length >= 4) out.experimental.add(clc::read_experimental_option(options.subspan(at, length)));
        if (length >= TcpExperimentalOption::kSize) {
          ByteReader whole(options.subspan(at, length));
          auto exp = TcpExperimentalOption::decode(whole);
          if (exp && exp->get(TcpExperimentalSpec::Field::Exid) == tcp_option::kSmcExid) out.smc = true;
        }
        break;
      }
      default:
        break;  // SACK blocks and unknown kinds: their length was checked, nothing more needed
    }
  }
  return {};
}

}  // namespace rdmaconf::capture
