// The SMC TCP option (RFC 7609 §3.1, RFC 6994) in a TCP header. The TCP
// header and its option list are read by hand here: their declarations
// (RFC 9293) live in pcap/capture/headers.hpp, above the reference codecs,
// which depend on nothing but the standard library (OSS-Fuzz builds them alone).
#include "clc/tcp_option.hpp"

namespace rdmaconf::clc {

using wire::Bytes;
using wire::DecodeError;

namespace {
constexpr std::string_view kTcpHeaderSection = "RFC 9293 §3.1";
}

std::array<std::uint8_t, 6> build_smc_option() {
  std::array<std::uint8_t, 6> o{kTcpOptionKindExperimental, kTcpOptionLengthSmc};
  wire::store_be(wire::MutableBytes(o).subspan(2, 4), kTcpOptionSmcExId);
  return o;
}

std::array<std::uint8_t, 8> build_smc_option_aligned() {
  std::array<std::uint8_t, 8> o{1, 1};  // two NOPs
  auto smc = build_smc_option();
  for (std::size_t i = 0; i < smc.size(); ++i) o[2 + i] = smc[i];
  return o;
}

ExperimentalOption read_experimental_option(Bytes option) {
  ExperimentalOption o;
  o.kind = option[0];
  o.length = option[1];
  if (o.length >= kTcpOptionLengthSmc) o.exid = static_cast<std::uint32_t>(wire::load_be(option.subspan(2, 4)));
  else o.exid = static_cast<std::uint32_t>(wire::load_be(option.subspan(2, 2))) << ExperimentalOption::kShortExidShift;
  return o;
}

wire::Result<bool> parse_smc_option(Bytes option) {
  if (option.size() < 2 || option[0] != kTcpOptionKindExperimental)
    return DecodeError{"Kind", "not an experimental option (kind 254)", cite::kTcpOption, 0};
  const std::uint8_t length = option[1];
  if (length < 4 || length > option.size())
    return DecodeError{"Length", "an experimental option holds at least kind, length and a 16-bit ExID",
                       "RFC 6994 §3", 1};
  // The SMC ExID is 32 bits; a 16-bit ExID of another experiment can share
  // its first two octets only by accident, so compare the full four.
  if (length < 6) return false;
  const std::uint32_t exid = static_cast<std::uint32_t>(wire::load_be(option.subspan(2, 4)));
  if (exid != kTcpOptionSmcExId) return false;
  if (length != kTcpOptionLengthSmc)
    return DecodeError{"Length", "the SMC option is exactly 6 octets", cite::kTcpOption, 1};
  return true;
}

wire::Result<TcpSmcIndication> detect(Bytes tcp) {
  if (tcp.size() < 20) return DecodeError{"TCP header", "shorter than 20 octets", kTcpHeaderSection, 0};
  const std::size_t data_offset = static_cast<std::size_t>(tcp[12] >> 4) * 4;
  if (data_offset < 20)
    return DecodeError{"Data Offset", "below 5 (20 octets)", kTcpHeaderSection, 12};
  if (data_offset > tcp.size())
    return DecodeError{"Data Offset", "points past the octets received", kTcpHeaderSection, 12};
  TcpSmcIndication out;
  out.syn = (tcp[13] & 0x02) != 0;
  out.ack = (tcp[13] & 0x10) != 0;
  std::size_t i = 20;
  while (i < data_offset) {
    const std::uint8_t kind = tcp[i];
    if (kind == 0) break;  // end of option list
    if (kind == 1) {       // NOP
      ++i;
      continue;
    }
    if (i + 1 >= data_offset)
      return DecodeError{"Option Length", "option has no length octet inside the header", kTcpHeaderSection, i};
    const std::uint8_t len = tcp[i + 1];
    if (len < 2) return DecodeError{"Option Length", "below 2", kTcpHeaderSection, i + 1};
    if (i + len > data_offset)
      return DecodeError{"Option Length", "runs past the end of the TCP header", kTcpHeaderSection, i + 1};
    if (kind == kTcpOptionKindExperimental) {
      auto smc = parse_smc_option(tcp.subspan(i, len));
      if (!smc) {
        DecodeError e = smc.error();
        e.offset += i;
        return e;
      }
      out.smc_option = out.smc_option || *smc;
    }
    i += len;
  }
  return out;
}

}  // namespace rdmaconf::clc
