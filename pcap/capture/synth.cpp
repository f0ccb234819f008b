#include "capture/synth.hpp"

#include <array>

#include "capture/headers.hpp"

namespace rdmaconf::capture {
namespace {

using wire::Bytes;
using wire::ByteWriter;

// RFC 1071 §1: the Internet checksum adds 16-bit words in ones' complement.
constexpr std::size_t kWord = sizeof(std::uint16_t);
constexpr std::uint32_t kWordBits = 16;
constexpr std::uint32_t kWordMask = 0xffff;

std::uint32_t sum_words(Bytes data, std::uint32_t sum) {
  std::size_t i = 0;
  for (; i + kWord <= data.size(); i += kWord) sum += static_cast<std::uint32_t>(wire::load_be(data.subspan(i, kWord)));
  if (i < data.size()) {
    // An odd last octet is a word's high octet, its low one zero.
    std::array<std::uint8_t, kWord> last{};
    last.front() = data.back();
    sum += static_cast<std::uint32_t>(wire::load_be(last));
  }
  return sum;
}

std::uint16_t fold(std::uint32_t sum) {
  while (sum >> kWordBits) sum = (sum & kWordMask) + (sum >> kWordBits);
  return static_cast<std::uint16_t>(~sum);
}

Bytes address_octets(const IpAddress& a) { return Bytes(a.octets).first(capture::address_octets(a.version)); }

}  // namespace

std::uint16_t internet_checksum(Bytes data, std::uint32_t initial) { return fold(sum_words(data, initial)); }

std::vector<std::uint8_t> build_ip_tcp(const TcpSegmentSpec& spec) {
  using T = TcpSpec::Field;
  std::vector<std::uint8_t> tcp;
  ByteWriter tw(tcp);
  TcpHeader th;
  th.set(T::SourcePort, spec.key.source.port).set(T::DestinationPort, spec.key.destination.port);
  th.set(T::SequenceNumber, spec.seq.value).set(T::AcknowledgmentNumber, spec.ack.value);
  th.set(T::DataOffset, (TcpHeader::kSize + spec.options.size()) / 4);
  th.set(T::Cwr, spec.flags.cwr).set(T::Ece, spec.flags.ece).set(T::Urg, spec.flags.urg);
  th.set(T::Ack, spec.flags.ack).set(T::Psh, spec.flags.psh).set(T::Rst, spec.flags.rst);
  th.set(T::Syn, spec.flags.syn).set(T::Fin, spec.flags.fin).set(T::Window, spec.window);
  th.encode(tw);
  tw.put(spec.options);
  tw.put(spec.payload);

  // RFC 9293 §3.1 / RFC 8200 §8.1: the checksum covers a pseudo-header of
  // both addresses, the protocol and the TCP length.
  const Bytes src = address_octets(spec.key.source.address), dst = address_octets(spec.key.destination.address);
  std::uint32_t pseudo = sum_words(src, 0);
  pseudo = sum_words(dst, pseudo);
  pseudo += ip_protocol::kTcp;
  pseudo += static_cast<std::uint32_t>(tcp.size() & kWordMask) + static_cast<std::uint32_t>(tcp.size() >> kWordBits);
  const std::uint16_t checksum = internet_checksum(tcp, pseudo);
  TcpHeader::write(tcp, TcpSpec::Field::Checksum, checksum);

  return build_ip(spec.key.source.address, spec.key.destination.address, ip_protocol::kTcp, tcp, spec.ttl);
}

std::vector<std::uint8_t> build_ip(const IpAddress& source, const IpAddress& destination, std::uint8_t protocol,
                                   Bytes payload, std::uint8_t ttl) {
  const Bytes src = address_octets(source), dst = address_octets(destination);
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  if (source.version == IpVersion::kV4) {
    using F = Ipv4Spec::Field;
    Ipv4Header h;
    h.set(F::Version, 4).set(F::Ihl, 5).set(F::TotalLength, Ipv4Header::kSize + payload.size());
    h.set(F::DontFragment, 1).set(F::Ttl, ttl).set(F::Protocol, protocol);
    h.set(F::Source, wire::load_be(src)).set(F::Destination, wire::load_be(dst));
    h.set(F::HeaderChecksum, internet_checksum(h.bytes()));
    h.encode(w);
  } else {
    using F = Ipv6Spec::Field;
    Ipv6Header h;
    h.set(F::Version, 6).set(F::PayloadLength, payload.size()).set(F::NextHeader, protocol);
    h.set(F::HopLimit, ttl).set_octets(F::Source, src).set_octets(F::Destination, dst);
    h.encode(w);
  }
  w.put(payload);
  return out;
}

std::vector<std::uint8_t> build_ip_udp(const StreamKey& key, Bytes payload) {
  using U = UdpSpec::Field;
  std::vector<std::uint8_t> udp;
  ByteWriter uw(udp);
  UdpHeader h;
  h.set(U::SourcePort, key.source.port).set(U::DestinationPort, key.destination.port);
  h.set(U::Length, UdpHeader::kSize + payload.size());
  h.encode(uw);
  uw.put(payload);
  // RFC 768 / RFC 8200 §8.1: the checksum over the same pseudo-header as TCP's.
  std::uint32_t pseudo = sum_words(address_octets(key.source.address), 0);
  pseudo = sum_words(address_octets(key.destination.address), pseudo);
  pseudo += ip_protocol::kUdp;
  pseudo += static_cast<std::uint32_t>(udp.size() & kWordMask) + static_cast<std::uint32_t>(udp.size() >> kWordBits);
  UdpHeader::write(udp, U::Checksum, internet_checksum(udp, pseudo));
  return build_ip(key.source.address, key.destination.address, ip_protocol::kUdp, udp);
}

std::vector<std::uint8_t> build_ethernet(const MacAddress& dst, const MacAddress& src, std::uint16_t ethertype,
                                         Bytes payload, std::span<const std::uint16_t> vlan_ids) {
  using E = EthernetSpec::Field;
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  EthernetHeader eth;
  eth.set(E::Destination, wire::load_be(dst)).set(E::Source, wire::load_be(src));
  eth.set(E::EtherType, vlan_ids.empty() ? ethertype : ethertype::kVlan);
  eth.encode(w);
  for (std::size_t i = 0; i < vlan_ids.size(); ++i) {
    VlanTag tag;
    tag.set(VlanTagSpec::Field::Vid, vlan_ids[i]);
    tag.set(VlanTagSpec::Field::EtherType, i + 1 < vlan_ids.size() ? ethertype::kVlan : ethertype);
    tag.encode(w);
  }
  w.put(payload);
  // IEEE 802.3 §3.2.8: frames shorter than 60 octets (without FCS) are padded.
  if (out.size() < 60) w.put_zeros(60 - out.size());
  return out;
}

std::vector<std::uint8_t> encode_syn_options(const TcpOptions& o) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  if (o.mss) {
    w.put_be(tcp_option::kMss, 1);
    w.put_be(4, 1);
    w.put_be(*o.mss, 2);
  }
  if (o.window_scale) {
    w.put_be(tcp_option::kNop, 1);
    w.put_be(tcp_option::kWindowScale, 1);
    w.put_be(3, 1);
    w.put_be(*o.window_scale, 1);
  }
  if (o.smc) {
    TcpExperimentalOption smc;
    smc.set(TcpExperimentalSpec::Field::Kind, tcp_option::kExperimental254);
    smc.set(TcpExperimentalSpec::Field::Length, TcpExperimentalOption::kSize);
    smc.set(TcpExperimentalSpec::Field::Exid, tcp_option::kSmcExid);
    smc.encode(w);
    w.put_be(tcp_option::kNop, 1);
    w.put_be(tcp_option::kNop, 1);
  }
  // Experimental options as given (a test's malformed SMC option): kind,
  // length, the ExID in the octets it fits, zeros to the length.
  for (const clc::ExperimentalOption& e : o.experimental.kept()) {
    const std::size_t exid_octets = e.length >= clc::kTcpOptionLengthSmc ? 4 : 2;
    if (e.length < 2 + exid_octets) continue;
    w.put_be(e.kind, 1);
    w.put_be(e.length, 1);
    w.put_be(exid_octets == 4 ? e.exid : e.exid >> clc::ExperimentalOption::kShortExidShift, exid_octets);
    w.put_zeros(e.length - 2 - exid_octets);
  }
  while (out.size() % 4) w.put_be(tcp_option::kEndOfList, 1);
  return out;
}

TcpRecorder::TcpRecorder(CaptureWriter& writer, RecordedEndpoint client, RecordedEndpoint server, Timestamp start,
                         std::uint16_t mss)
    : writer_(writer), client_{client, client.isn}, server_{server, server.isn}, now_(start), mss_(mss) {}

void TcpRecorder::emit(Side from, TcpFlags flags, Bytes options, Bytes payload, std::string_view comment) {
  State& me = side(from);
  State& peer = side(from == Side::kClient ? Side::kServer : Side::kClient);
  TcpSegmentSpec spec;
  spec.key = StreamKey{Endpoint{me.ep.address, me.ep.port}, Endpoint{peer.ep.address, peer.ep.port}};
  spec.seq = me.next;
  spec.ack = flags.ack ? peer.next : SeqNum{};
  spec.flags = flags;
  spec.options = options;
  spec.payload = payload;
  const std::vector<std::uint8_t> ip = build_ip_tcp(spec);
  const std::uint16_t type = me.ep.address.version == IpVersion::kV4 ? ethertype::kIpv4 : ethertype::kIpv6;
  const std::vector<std::uint8_t> frame = build_ethernet(peer.ep.mac, me.ep.mac, type, ip);
  writer_.write(now_, frame, comment);
  now_.ns += 10'000;  // 10 µs apart: readable in Wireshark's time column
  me.next.value += static_cast<std::uint32_t>(payload.size()) + (flags.syn ? 1 : 0) + (flags.fin ? 1 : 0);
}

void TcpRecorder::open(const TcpOptions& client_syn, const TcpOptions& server_syn, bool announce_mss) {
  TcpOptions c = client_syn, s = server_syn;
  if (!c.mss && announce_mss) c.mss = mss_;
  if (!s.mss && announce_mss) s.mss = mss_;
  const auto co = encode_syn_options(c), so = encode_syn_options(s);
  emit(Side::kClient, TcpFlags{.syn = true}, co, {}, {});
  emit(Side::kServer, TcpFlags{.ack = true, .syn = true}, so, {}, {});
  emit(Side::kClient, TcpFlags{.ack = true}, {}, {}, {});
}

void TcpRecorder::send(Side from, Bytes data, std::string_view comment) {
  const Side to = from == Side::kClient ? Side::kServer : Side::kClient;
  while (!data.empty()) {
    const std::size_t n = std::min<std::size_t>(data.size(), mss_);
    emit(from, TcpFlags{.ack = true, .psh = n == data.size()}, {}, data.first(n), comment);
    comment = {};
    data = data.subspan(n);
  }
  emit(to, TcpFlags{.ack = true}, {}, {}, {});
}

void TcpRecorder::lose(Side from, std::size_t octets) { side(from).next.value += static_cast<std::uint32_t>(octets); }

void TcpRecorder::close(Side first) {
  const Side second = first == Side::kClient ? Side::kServer : Side::kClient;
  emit(first, TcpFlags{.ack = true, .fin = true}, {}, {}, {});
  emit(second, TcpFlags{.ack = true, .fin = true}, {}, {}, {});
  emit(first, TcpFlags{.ack = true}, {}, {}, {});
}

void TcpRecorder::reset(Side from) { emit(from, TcpFlags{.ack = true, .rst = true}, {}, {}, {}); }

SctpRecorder::SctpRecorder(CaptureWriter& writer, Host a, Host b, Timestamp start, std::int64_t step_ns)
    : writer_(writer), a_(a), b_(b), now_(start), step_ns_(step_ns) {}

void SctpRecorder::send(bool from_a, Bytes sctp_packet, std::string_view comment) {
  const Host& src = from_a ? a_ : b_;
  const Host& dst = from_a ? b_ : a_;
  const std::vector<std::uint8_t> frame =
      over_udp() ? build_ip_udp({{src.address, src.udp_port}, {dst.address, dst.udp_port}}, sctp_packet)
                 : build_ip(src.address, dst.address, ip_protocol::kSctp, sctp_packet);
  now_.ns += step_ns_;
  writer_.write(now_, frame, comment);
}

}  // namespace rdmaconf::capture
