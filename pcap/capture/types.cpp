#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <string>

#include "capture/headers.hpp"
#include "capture/report.hpp"
#include "capture/types.hpp"
#include "wire/bytes.hpp"

namespace rdmaconf::capture {

IpAddress ipv4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  IpAddress ip;
  ip.version = IpVersion::kV4;
  const std::array<std::uint8_t, kIpv4Octets> v = {a, b, c, d};
  std::copy(v.begin(), v.end(), ip.octets.begin());
  return ip;
}

IpAddress ipv6(const std::array<std::uint8_t, 16>& octets) {
  IpAddress ip;
  ip.version = IpVersion::kV6;
  ip.octets = octets;
  return ip;
}

namespace {

// The printers append to one string: the capture fuzz targets print every
// report, and building each piece as its own std::string (and through
// snprintf) cost them more than decoding and reassembly together.
void append_number(std::string& s, std::uint64_t v, int base = 10) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, base);
  s.append(buf, r.ptr);
}

void append_address(std::string& s, const IpAddress& ip) {
  const auto& o = ip.octets;
  if (ip.version == IpVersion::kV4) {
    for (int i = 0; i < 4; ++i) {
      if (i > 0) s += '.';
      append_number(s, o[i]);
    }
    return;
  }
  // RFC 5952 §4: lowercase hex, leading zeros dropped, the longest run of two
  // or more zero groups shortened to "::".
  constexpr std::size_t kGroupOctets = 2;  // RFC 4291 §2.2: eight 16-bit pieces
  std::array<unsigned, kIpv6Octets / kGroupOctets> g{};
  for (std::size_t i = 0; i < g.size(); ++i)
    g[i] = static_cast<unsigned>(wire::load_be(wire::Bytes(o).subspan(i * kGroupOctets, kGroupOctets)));
  int best = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (g[i] != 0) { ++i; continue; }
    int j = i;
    while (j < 8 && g[j] == 0) ++j;
    if (j - i > best_len && j - i >= 2) { best = i; best_len = j - i; }
    i = j;
  }
  const std::size_t start = s.size();
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      s += "::";
      i += best_len - 1;
      continue;
    }
    if (s.size() > start && s.back() != ':') s += ':';
    append_number(s, g[i], 16);
  }
}

void append_endpoint(std::string& s, const Endpoint& e) {
  const bool v6 = e.address.version == IpVersion::kV6;
  if (v6) s += '[';
  append_address(s, e.address);
  if (v6) s += ']';
  s += ':';
  append_number(s, e.port);
}

void append_stream(std::string& s, const StreamKey& k) {
  append_endpoint(s, k.source);
  s += " -> ";
  append_endpoint(s, k.destination);
}

}  // namespace

std::string IpAddress::to_string() const {
  std::string s;
  append_address(s, *this);
  return s;
}

std::string Endpoint::to_string() const {
  std::string s;
  append_endpoint(s, *this);
  return s;
}

std::string StreamKey::to_string() const {
  std::string s;
  append_stream(s, *this);
  return s;
}

std::size_t ConnectionKey::Hash::operator()(const ConnectionKey& k) const {
  // Four address octets at a time (an IPv4 address is one such word), then
  // the port, each multiplied in.
  constexpr std::size_t kWord = 4;
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  const auto mix = [&](std::uint64_t v) { h = (h ^ v) * 0xff51afd7ed558ccdull; };
  for (const Endpoint* e : {&k.a, &k.b}) {
    const wire::Bytes address = wire::Bytes(e->address.octets).first(address_octets(e->address.version));
    for (std::size_t i = 0; i < address.size(); i += kWord) mix(wire::load_be(address.subspan(i, kWord)));
    mix(e->port);
  }
  return static_cast<std::size_t>(h ^ (h >> 29));
}

std::string_view link_type_name(LinkType t) {
  switch (t) {
    case LinkType::kNull: return "BSD loopback (LINKTYPE_NULL)";
    case LinkType::kEthernet: return "Ethernet (LINKTYPE_ETHERNET)";
    case LinkType::kRaw: return "raw IP (LINKTYPE_RAW)";
    case LinkType::kLoop: return "OpenBSD loopback (LINKTYPE_LOOP)";
    case LinkType::kLinuxSll: return "Linux cooked (LINKTYPE_LINUX_SLL)";
    case LinkType::kIpv4: return "raw IPv4 (LINKTYPE_IPV4)";
    case LinkType::kIpv6: return "raw IPv6 (LINKTYPE_IPV6)";
    case LinkType::kLinuxSll2: return "Linux cooked v2 (LINKTYPE_LINUX_SLL2)";
  }
  return "unsupported link type";
}

std::string_view report_kind_name(ReportKind k) {
  switch (k) {
    case ReportKind::kMalformedFrame: return "malformed frame";
    case ReportKind::kUnsupportedLinkType: return "unsupported link type";
    case ReportKind::kNotTcp: return "not TCP";
    case ReportKind::kIpFragment: return "IP fragment";
    case ReportKind::kSnaplenCut: return "cut by snaplen";
    case ReportKind::kMalformedTcpOptions: return "malformed TCP options";
    case ReportKind::kMidStreamStart: return "stream starts mid-connection";
    case ReportKind::kRetransmission: return "retransmission";
    case ReportKind::kConflictingOverlap: return "overlapping segments disagree";
    case ReportKind::kGap: return "gap";
    case ReportKind::kBufferLimit: return "buffer limit hit";
    case ReportKind::kConnectionLimit: return "connection limit hit";
    case ReportKind::kDataBeforeStreamStart: return "data before the stream's start";
    case ReportKind::kDataAfterFin: return "data after FIN";
    case ReportKind::kLateData: return "data arrived after its gap was reported";
    case ReportKind::kReset: return "reset";
    case ReportKind::kTruncatedFile: return "truncated capture file";
    case ReportKind::kReadError: return "read error";
    case ReportKind::kKernelDrop: return "frames dropped by the kernel";
  }
  return "unknown";
}

std::string_view gap_cause_name(GapCause c) {
  switch (c) {
    case GapCause::kNotCaptured: return "not in the capture";
    case GapCause::kSnaplen: return "cut by snaplen";
    case GapCause::kBufferLimit: return "flushed at a buffer limit";
  }
  return "unknown";
}

std::string Report::to_string() const {
  std::string s;
  s.reserve(160);
  if (frame.value != 0) {
    s += "frame ";
    append_number(s, frame.value);
    s += ": ";
  }
  s += report_kind_name(kind);
  if (has_stream) {
    s += " [";
    append_stream(s, stream);
    s += ']';
  }
  if (kind == ReportKind::kGap || kind == ReportKind::kConflictingOverlap ||
      kind == ReportKind::kRetransmission || kind == ReportKind::kBufferLimit ||
      kind == ReportKind::kDataAfterFin || kind == ReportKind::kLateData || kind == ReportKind::kDataBeforeStreamStart) {
    s += " at stream offset ";
    append_number(s, offset);
    s += ", ";
    append_number(s, length);
    s += " octets";
  }
  if (kind == ReportKind::kGap) s.append(" (").append(gap_cause_name(gap_cause)).append(")");
  if (kind == ReportKind::kKernelDrop) {
    s += ": ";
    append_number(s, value);
    s += " frames (a larger capture buffer helps)";
  }
  if (kind == ReportKind::kConflictingOverlap) {
    s += " (first copy in frame ";
    append_number(s, other_frame.value);
    s += ')';
  }
  if (!detail.field.empty()) s.append(": ").append(detail.to_string());
  return s;
}

}  // namespace rdmaconf::capture
