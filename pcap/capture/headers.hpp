// Link, network and transport headers of captured frames, declared once each
// in the style of wire/field.hpp. The decoder (capture/decode.hpp), the frame
// synthesizer (capture/synth.hpp) and the analyzer's printer all read these
// tables; no offset is written anywhere else.
//
// Link-layer formats without an RFC cite the document that defines them: the
// IEEE standard, or the tcpdump.org LINKTYPE registry (which Wireshark and
// libpcap follow) for the Linux cooked and BSD loopback headers.
#pragma once

#include <cstdint>

#include "clc/tcp_option.hpp"
#include "wire/field.hpp"

namespace rdmaconf::capture {

using wire::Display;
using wire::FieldDecl;
using wire::HeaderDecl;
using wire::Rule;
using wire::ValueName;

// LINKTYPE_* values as stored in pcap/pcapng files (tcpdump.org registry).
// The libpcap layer maps its platform DLT_* values onto these.
enum class LinkType : std::uint32_t {
  kNull = 0,         // BSD loopback, address family in the capturing host's byte order
  kEthernet = 1,     // Ethernet II / 802.3
  kRaw = 101,        // raw IP, version nibble says IPv4 or IPv6
  kLoop = 108,       // OpenBSD loopback, address family in network byte order
  kLinuxSll = 113,   // Linux cooked capture v1 ("any" device)
  kIpv4 = 228,       // raw IPv4
  kIpv6 = 229,       // raw IPv6
  kLinuxSll2 = 276,  // Linux cooked capture v2
};
std::string_view link_type_name(LinkType t);

namespace ethertype {
inline constexpr std::uint16_t kIpv4 = 0x0800;
inline constexpr std::uint16_t kArp = 0x0806;
inline constexpr std::uint16_t kVlan = 0x8100;      // IEEE 802.1Q C-tag
inline constexpr std::uint16_t kIpv6 = 0x86dd;
inline constexpr std::uint16_t kQinQ = 0x88a8;      // IEEE 802.1ad S-tag
inline constexpr std::uint16_t kQinQOld = 0x9100;   // pre-standard stacked tag, still seen
// Values up to 1500 are an IEEE 802.3 length, not a type (IEEE 802.3 §3.2.6).
inline constexpr std::uint16_t kMaxLength8023 = 1500;
inline constexpr bool is_vlan_tpid(std::uint16_t t) { return t == kVlan || t == kQinQ || t == kQinQOld; }
}  // namespace ethertype

inline constexpr ValueName kEtherTypeNames[] = {
    {ethertype::kIpv4, "IPv4"},      {ethertype::kArp, "ARP"},
    {ethertype::kVlan, "802.1Q"},    {ethertype::kIpv6, "IPv6"},
    {ethertype::kQinQ, "802.1ad"},   {ethertype::kQinQOld, "802.1Q-in-Q (pre-standard)"},
};

// Ethernet II (IEEE 802.3 §3.2; RFC 894 for IP over Ethernet).
struct EthernetSpec {
  enum class Field : std::uint8_t { Destination, Source, EtherType };
  static constexpr FieldDecl fields[] = {
      {"Destination", "dst", 0, 48, "destination MAC address", "IEEE 802.3 §3.2.3", Display::kHex},
      {"Source", "src", 48, 48, "source MAC address", "IEEE 802.3 §3.2.3", Display::kHex},
      {"EtherType", "type", 96, 16, "payload protocol (or an 802.3 length when <= 1500)",
       "IEEE 802.3 §3.2.6", Display::kHex, kEtherTypeNames},
  };
  static constexpr HeaderDecl decl{"Ethernet II header", "eth", 14, fields, "IEEE 802.3 §3.2"};
};
using EthernetHeader = wire::Header<EthernetSpec>;

// One VLAN tag after its TPID: the tag control information and the EtherType
// of what follows (which may be another tag: 802.1ad stacking).
struct VlanTagSpec {
  enum class Field : std::uint8_t { Pcp, Dei, Vid, EtherType };
  static constexpr FieldDecl fields[] = {
      {"PCP", "pcp", 0, 3, "priority code point", "IEEE 802.1Q §6.9.3"},
      {"DEI", "dei", 3, 1, "drop eligible indicator", "IEEE 802.1Q §6.9.3", Display::kFlag},
      {"VID", "vid", 4, 12, "VLAN identifier", "IEEE 802.1Q §6.9.3"},
      {"EtherType", "type", 16, 16, "protocol of what follows the tag", "IEEE 802.1Q §9.5",
       Display::kHex, kEtherTypeNames},
  };
  static constexpr HeaderDecl decl{"802.1Q VLAN tag", "vlan", 4, fields, "IEEE 802.1Q §9.6"};
};
using VlanTag = wire::Header<VlanTagSpec>;

inline constexpr ValueName kSllPacketTypes[] = {
    {0, "to us"}, {1, "broadcast"}, {2, "multicast"}, {3, "to another host"}, {4, "sent by us"},
};

// Linux cooked capture v1 (LINKTYPE_LINUX_SLL): what libpcap builds for the
// "any" device, where frames have no common link header.
struct SllSpec {
  enum class Field : std::uint8_t { PacketType, ArphrdType, AddressLength, Address, Protocol };
  static constexpr FieldDecl fields[] = {
      {"Packet type", "pkttype", 0, 16, "direction/kind of the packet", "LINKTYPE_LINUX_SLL",
       Display::kDecimal, kSllPacketTypes},
      {"ARPHRD type", "hatype", 16, 16, "link-layer device type (ARPHRD_*)", "LINKTYPE_LINUX_SLL"},
      {"Link-layer address length", "halen", 32, 16, "octets of Address in use",
       "LINKTYPE_LINUX_SLL"},
      {"Address", "src", 48, 64, "link-layer source address, zero-padded to 8 octets",
       "LINKTYPE_LINUX_SLL", Display::kHex},
      {"Protocol type", "etype", 112, 16, "EtherType of the payload", "LINKTYPE_LINUX_SLL",
       Display::kHex, kEtherTypeNames},
  };
  static constexpr HeaderDecl decl{"Linux cooked capture header", "sll", 16, fields,
                                   "LINKTYPE_LINUX_SLL"};
};
using SllHeader = wire::Header<SllSpec>;

// Linux cooked capture v2 (LINKTYPE_LINUX_SLL2): adds the interface index.
struct Sll2Spec {
  enum class Field : std::uint8_t {
    Protocol, Reserved, InterfaceIndex, ArphrdType, PacketType, AddressLength, Address
  };
  static constexpr FieldDecl fields[] = {
      {"Protocol type", "etype", 0, 16, "EtherType of the payload", "LINKTYPE_LINUX_SLL2",
       Display::kHex, kEtherTypeNames},
      {"Reserved", "reserved", 16, 16, "reserved", "LINKTYPE_LINUX_SLL2", Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"Interface index", "ifindex", 32, 32, "capturing interface's index", "LINKTYPE_LINUX_SLL2"},
      {"ARPHRD type", "hatype", 64, 16, "link-layer device type (ARPHRD_*)", "LINKTYPE_LINUX_SLL2"},
      {"Packet type", "pkttype", 80, 8, "direction/kind of the packet", "LINKTYPE_LINUX_SLL2",
       Display::kDecimal, kSllPacketTypes},
      {"Link-layer address length", "halen", 88, 8, "octets of Address in use",
       "LINKTYPE_LINUX_SLL2"},
      {"Address", "src", 96, 64, "link-layer source address, zero-padded to 8 octets",
       "LINKTYPE_LINUX_SLL2", Display::kHex},
  };
  static constexpr HeaderDecl decl{"Linux cooked capture v2 header", "sll2", 20, fields,
                                   "LINKTYPE_LINUX_SLL2"};
};
using Sll2Header = wire::Header<Sll2Spec>;

// BSD loopback (LINKTYPE_NULL: host byte order of the capturing machine;
// LINKTYPE_LOOP: network byte order). The field reads big-endian; the decoder
// byte-swaps for LINKTYPE_NULL when the value is only sensible swapped.
struct NullSpec {
  enum class Field : std::uint8_t { Family };
  static constexpr FieldDecl fields[] = {
      {"Family", "family", 0, 32, "address family of the payload (AF_INET, AF_INET6)",
       "LINKTYPE_NULL"},
  };
  static constexpr HeaderDecl decl{"BSD loopback header", "null", 4, fields, "LINKTYPE_NULL"};
};
using NullHeader = wire::Header<NullSpec>;

// Address families the BSD loopback header carries: AF_INET is 2 everywhere,
// AF_INET6 differs by system (Linux 10, NetBSD/OpenBSD 24, FreeBSD 28, Darwin 30).
namespace bsd_family {
inline constexpr std::uint32_t kInet = 2;
inline constexpr bool is_inet6(std::uint32_t f) { return f == 10 || f == 24 || f == 28 || f == 30; }
}  // namespace bsd_family

namespace ip_protocol {
inline constexpr std::uint8_t kHopByHop = 0;
inline constexpr std::uint8_t kIcmp = 1;
inline constexpr std::uint8_t kTcp = 6;
inline constexpr std::uint8_t kUdp = 17;
inline constexpr std::uint8_t kRouting = 43;
inline constexpr std::uint8_t kFragment = 44;
inline constexpr std::uint8_t kEsp = 50;
inline constexpr std::uint8_t kAh = 51;
inline constexpr std::uint8_t kIcmpv6 = 58;
inline constexpr std::uint8_t kNoNextHeader = 59;
inline constexpr std::uint8_t kDestinationOptions = 60;
inline constexpr std::uint8_t kSctp = 132;
inline constexpr std::uint8_t kMobility = 135;
inline constexpr std::uint8_t kHip = 139;
inline constexpr std::uint8_t kShim6 = 140;
}  // namespace ip_protocol

inline constexpr ValueName kIpProtocolNames[] = {
    {ip_protocol::kHopByHop, "IPv6 Hop-by-Hop Options"},
    {ip_protocol::kIcmp, "ICMP"},
    {ip_protocol::kTcp, "TCP"},
    {ip_protocol::kUdp, "UDP"},
    {ip_protocol::kRouting, "IPv6 Routing"},
    {ip_protocol::kFragment, "IPv6 Fragment"},
    {ip_protocol::kEsp, "ESP"},
    {ip_protocol::kAh, "AH"},
    {ip_protocol::kIcmpv6, "ICMPv6"},
    {ip_protocol::kNoNextHeader, "IPv6 No Next Header"},
    {ip_protocol::kDestinationOptions, "IPv6 Destination Options"},
    {ip_protocol::kSctp, "SCTP"},
    {ip_protocol::kMobility, "Mobility"},
    {ip_protocol::kHip, "HIP"},
    {ip_protocol::kShim6, "Shim6"},
};

// IPv4 (RFC 791 §3.1; DSCP RFC 2474 §3, ECN RFC 3168 §5).
struct Ipv4Spec {
  enum class Field : std::uint8_t {
    Version, Ihl, Dscp, Ecn, TotalLength, Identification, ReservedFlag, DontFragment,
    MoreFragments, FragmentOffset, Ttl, Protocol, HeaderChecksum, Source, Destination
  };
  static constexpr FieldDecl fields[] = {
      {"Version", "version", 0, 4, "IP version, 4", "RFC 791 §3.1"},
      {"IHL", "hdr_len", 4, 4, "header length in 32-bit words, at least 5", "RFC 791 §3.1"},
      {"DSCP", "dsfield.dscp", 8, 6, "differentiated services code point", "RFC 2474 §3"},
      {"ECN", "dsfield.ecn", 14, 2, "explicit congestion notification", "RFC 3168 §5"},
      {"Total Length", "len", 16, 16, "octets of header and data", "RFC 791 §3.1"},
      {"Identification", "id", 32, 16, "fragment reassembly identifier", "RFC 791 §3.1",
       Display::kHex},
      {"Reserved flag", "flags.rb", 48, 1, "reserved, zero", "RFC 791 §3.1", Display::kFlag, {},
       Rule::kIgnoredOnReceive},
      {"DF", "flags.df", 49, 1, "don't fragment", "RFC 791 §3.1", Display::kFlag},
      {"MF", "flags.mf", 50, 1, "more fragments follow", "RFC 791 §3.1", Display::kFlag},
      {"Fragment Offset", "frag_offset", 51, 13, "offset of this fragment in 8-octet units",
       "RFC 791 §3.1"},
      {"Time to Live", "ttl", 64, 8, "hop limit", "RFC 791 §3.1"},
      {"Protocol", "proto", 72, 8, "protocol of the payload", "RFC 791 §3.1", Display::kDecimal,
       kIpProtocolNames},
      {"Header Checksum", "checksum", 80, 16, "ones' complement sum of the header",
       "RFC 791 §3.1", Display::kHex},
      {"Source Address", "src", 96, 32, "source address", "RFC 791 §3.1", Display::kHex},
      {"Destination Address", "dst", 128, 32, "destination address", "RFC 791 §3.1",
       Display::kHex},
  };
  static constexpr HeaderDecl decl{"IPv4 header", "ip", 20, fields, "RFC 791 §3.1"};
};
using Ipv4Header = wire::Header<Ipv4Spec>;

// IPv6 fixed header (RFC 8200 §3).
struct Ipv6Spec {
  enum class Field : std::uint8_t {
    Version, TrafficClass, FlowLabel, PayloadLength, NextHeader, HopLimit, Source, Destination
  };
  static constexpr FieldDecl fields[] = {
      {"Version", "version", 0, 4, "IP version, 6", "RFC 8200 §3"},
      {"Traffic Class", "tclass", 4, 8, "DSCP and ECN", "RFC 8200 §7"},
      {"Flow Label", "flow", 12, 20, "flow label", "RFC 8200 §6", Display::kHex},
      {"Payload Length", "plen", 32, 16, "octets after this header, extension headers included",
       "RFC 8200 §3"},
      {"Next Header", "nxt", 48, 8, "type of the header that follows", "RFC 8200 §3",
       Display::kDecimal, kIpProtocolNames},
      {"Hop Limit", "hlim", 56, 8, "hop limit", "RFC 8200 §3"},
      {"Source Address", "src", 64, 128, "source address", "RFC 8200 §3", Display::kBytes},
      {"Destination Address", "dst", 192, 128, "destination address", "RFC 8200 §3",
       Display::kBytes},
  };
  static constexpr HeaderDecl decl{"IPv6 header", "ipv6", 40, fields, "RFC 8200 §3"};
};
using Ipv6Header = wire::Header<Ipv6Spec>;

// The two octets every IPv6 extension header in the RFC 6564 §4 uniform
// format starts with (Hop-by-Hop, Routing, Destination Options, Mobility, HIP,
// Shim6): its length counts 8-octet units beyond the first 8.
struct Ipv6ExtensionSpec {
  enum class Field : std::uint8_t { NextHeader, HdrExtLen };
  static constexpr FieldDecl fields[] = {
      {"Next Header", "nxt", 0, 8, "type of the header that follows", "RFC 8200 §4.3",
       Display::kDecimal, kIpProtocolNames},
      {"Hdr Ext Len", "len", 8, 8, "length in 8-octet units, not counting the first 8",
       "RFC 8200 §4.3"},
  };
  static constexpr HeaderDecl decl{"IPv6 extension header", "ipv6.ext", 2, fields,
                                   "RFC 6564 §4"};
};
using Ipv6ExtensionHeader = wire::Header<Ipv6ExtensionSpec>;

// IPv6 Fragment header (RFC 8200 §4.5).
struct Ipv6FragmentSpec {
  enum class Field : std::uint8_t {
    NextHeader, Reserved, FragmentOffset, Res, MoreFragments, Identification
  };
  static constexpr FieldDecl fields[] = {
      {"Next Header", "nxt", 0, 8, "type of the fragmentable part", "RFC 8200 §4.5",
       Display::kDecimal, kIpProtocolNames},
      {"Reserved", "reserved", 8, 8, "reserved", "RFC 8200 §4.5", Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"Fragment Offset", "offset", 16, 13, "offset in 8-octet units", "RFC 8200 §4.5"},
      {"Res", "res", 29, 2, "reserved", "RFC 8200 §4.5", Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"M", "more", 31, 1, "more fragments follow", "RFC 8200 §4.5", Display::kFlag},
      {"Identification", "id", 32, 32, "fragment reassembly identifier", "RFC 8200 §4.5",
       Display::kHex},
  };
  static constexpr HeaderDecl decl{"IPv6 Fragment header", "ipv6.frag", 8, fields,
                                   "RFC 8200 §4.5"};
};
using Ipv6FragmentHeader = wire::Header<Ipv6FragmentSpec>;

// IP Authentication Header's first two octets (RFC 4302 §2): its length
// counts 4-octet units minus 2, unlike the other extension headers.
struct AhPrefixSpec {
  enum class Field : std::uint8_t { NextHeader, PayloadLen };
  static constexpr FieldDecl fields[] = {
      {"Next Header", "nxt", 0, 8, "type of the header that follows", "RFC 4302 §2.1",
       Display::kDecimal, kIpProtocolNames},
      {"Payload Len", "len", 8, 8, "length in 4-octet units, minus 2", "RFC 4302 §2.2"},
  };
  static constexpr HeaderDecl decl{"IP Authentication Header", "ah", 2, fields, "RFC 4302 §2"};
};
using AhPrefix = wire::Header<AhPrefixSpec>;

// TCP header (RFC 9293 §3.1; CWR/ECE RFC 3168 §6.1).
struct TcpSpec {
  enum class Field : std::uint8_t {
    SourcePort, DestinationPort, SequenceNumber, AcknowledgmentNumber, DataOffset, Rsrvd,
    Cwr, Ece, Urg, Ack, Psh, Rst, Syn, Fin, Window, Checksum, UrgentPointer
  };
  static constexpr FieldDecl fields[] = {
      {"Source Port", "srcport", 0, 16, "sender's port", "RFC 9293 §3.1"},
      {"Destination Port", "dstport", 16, 16, "receiver's port", "RFC 9293 §3.1"},
      {"Sequence Number", "seq_raw", 32, 32, "sequence number of the first data octet (or of SYN)",
       "RFC 9293 §3.1"},
      {"Acknowledgment Number", "ack_raw", 64, 32, "next sequence number the sender expects",
       "RFC 9293 §3.1"},
      {"Data Offset", "hdr_len", 96, 4, "header length in 32-bit words, at least 5",
       "RFC 9293 §3.1"},
      {"Rsrvd", "flags.res", 100, 4, "reserved", "RFC 9293 §3.1", Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"CWR", "flags.cwr", 104, 1, "congestion window reduced", "RFC 3168 §6.1", Display::kFlag},
      {"ECE", "flags.ece", 105, 1, "ECN-Echo", "RFC 3168 §6.1", Display::kFlag},
      {"URG", "flags.urg", 106, 1, "urgent pointer significant", "RFC 9293 §3.1", Display::kFlag},
      {"ACK", "flags.ack", 107, 1, "acknowledgment field significant", "RFC 9293 §3.1",
       Display::kFlag},
      {"PSH", "flags.push", 108, 1, "push function", "RFC 9293 §3.1", Display::kFlag},
      {"RST", "flags.reset", 109, 1, "reset the connection", "RFC 9293 §3.1", Display::kFlag},
      {"SYN", "flags.syn", 110, 1, "synchronize sequence numbers", "RFC 9293 §3.1",
       Display::kFlag},
      {"FIN", "flags.fin", 111, 1, "no more data from sender", "RFC 9293 §3.1", Display::kFlag},
      {"Window", "window_size_value", 112, 16, "receive window (unscaled)", "RFC 9293 §3.1"},
      {"Checksum", "checksum", 128, 16, "ones' complement sum over pseudo-header and segment",
       "RFC 9293 §3.1", Display::kHex},
      {"Urgent Pointer", "urgent_pointer", 144, 16, "offset of urgent data", "RFC 9293 §3.1"},
  };
  static constexpr HeaderDecl decl{"TCP header", "tcp", 20, fields, "RFC 9293 §3.1"};
};
using TcpHeader = wire::Header<TcpSpec>;

// UDP header (RFC 768): RoCEv2 rides on it (IBTA Annex A17, port 4791).
struct UdpSpec {
  enum class Field : std::uint8_t { SourcePort, DestinationPort, Length, Checksum };
  static constexpr FieldDecl fields[] = {
      {"Source Port", "srcport", 0, 16, "sender's port", "RFC 768"},
      {"Destination Port", "dstport", 16, 16, "receiver's port", "RFC 768"},
      {"Length", "length", 32, 16, "octets of header and data", "RFC 768"},
      {"Checksum", "checksum", 48, 16, "ones' complement sum, or 0 when not computed (IPv4)", "RFC 768",
       Display::kHex},
  };
  static constexpr HeaderDecl decl{"UDP header", "udp", 8, fields, "RFC 768"};
};
using UdpHeader = wire::Header<UdpSpec>;

namespace tcp_option {
inline constexpr std::uint8_t kEndOfList = 0;
inline constexpr std::uint8_t kNop = 1;
inline constexpr std::uint8_t kMss = 2;
inline constexpr std::uint8_t kWindowScale = 3;
inline constexpr std::uint8_t kSackPermitted = 4;
inline constexpr std::uint8_t kSack = 5;
inline constexpr std::uint8_t kTimestamps = 8;
inline constexpr std::uint8_t kExperimental253 = 253;
inline constexpr std::uint8_t kExperimental254 = 254;
// SMC-R's experimental option: kind 254 with the 32-bit ExID "SMCR" in
// EBCDIC, sent in SYN and SYN-ACK to offer SMC (RFC 7609; RFC 6994 §3 for
// the ExID). The value is the CLC module's; the capture layer only reads it
// more leniently (kind 253 too, any length >= 6), as captures can hold
// what a strict endpoint would refuse.
inline constexpr std::uint32_t kSmcExid = clc::kTcpOptionSmcExId;
}  // namespace tcp_option

inline constexpr ValueName kTcpOptionKinds[] = {
    {tcp_option::kEndOfList, "End of Option List"}, {tcp_option::kNop, "No-Operation"},
    {tcp_option::kMss, "Maximum Segment Size"},     {tcp_option::kWindowScale, "Window Scale"},
    {tcp_option::kSackPermitted, "SACK Permitted"}, {tcp_option::kSack, "SACK"},
    {tcp_option::kTimestamps, "Timestamps"},        {tcp_option::kExperimental253, "Experimental"},
    {tcp_option::kExperimental254, "Experimental"},
};

// Kind and Length, which every TCP option other than EOL and NOP starts with
// (RFC 9293 §3.1: Length counts the kind and length octets too).
struct TcpOptionSpec {
  enum class Field : std::uint8_t { Kind, Length };
  static constexpr FieldDecl fields[] = {
      {"Kind", "option_kind", 0, 8, "option kind", "RFC 9293 §3.1", Display::kDecimal,
       kTcpOptionKinds},
      {"Length", "option_len", 8, 8, "octets of the option, kind and length included",
       "RFC 9293 §3.1"},
  };
  static constexpr HeaderDecl decl{"TCP option", "tcp.option", 2, fields, "RFC 9293 §3.1"};
};
using TcpOptionHeader = wire::Header<TcpOptionSpec>;

inline constexpr ValueName kTcpExids[] = {{tcp_option::kSmcExid, "SMC-R"}};

// An experimental option with a 32-bit ExID (RFC 6994 §3), as SMC-R uses it.
struct TcpExperimentalSpec {
  enum class Field : std::uint8_t { Kind, Length, Exid };
  static constexpr FieldDecl fields[] = {
      {"Kind", "option_kind", 0, 8, "253 or 254", "RFC 6994 §3"},
      {"Length", "option_len", 8, 8, "octets of the option", "RFC 6994 §3"},
      {"ExID", "option.exp.exid", 16, 32, "experiment identifier", "RFC 6994 §3", Display::kHex,
       kTcpExids},
  };
  static constexpr HeaderDecl decl{"TCP experimental option", "tcp.option.exp", 6, fields,
                                   "RFC 6994 §3"};
};
using TcpExperimentalOption = wire::Header<TcpExperimentalSpec>;

}  // namespace rdmaconf::capture
