// The SMC TCP option (RFC 7609 §3.1 and App. A.1): an experimental option
// (kind 254, RFC 6994) whose 32-bit ExID is EBCDIC "SMCR", 0xE2D4C3D9.
// A host that can do SMC puts it in its SYN; the server echoes it in the
// SYN-ACK. CLC messages follow the TCP handshake only when both SYNs carried
// it; otherwise the connection stays plain TCP (local reason PEERNOSMC).
//
// detect() walks a raw TCP header's options with bounds on every step; a
// malformed option list is a typed error, never a read past the header.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "clc/cite.hpp"
#include "wire/bytes.hpp"
#include "wire/field.hpp"
#include "wire/result.hpp"

namespace rdmaconf::clc {

inline constexpr std::uint8_t kTcpOptionKindExperimental = 254;  // RFC 6994
inline constexpr std::uint8_t kTcpOptionLengthSmc = 6;           // kind, length, 4-octet ExID
inline constexpr std::uint32_t kTcpOptionSmcExId = 0xE2D4C3D9;

// The option's layout (RFC 6994 §3 with RFC 7609 App. A.1's 32-bit ExID).
struct SmcTcpOptionSpec {
  enum class Field : std::uint8_t { Kind, Length, ExId };
  static constexpr wire::FieldDecl fields[] = {
      {"Kind", "kind", 0, 8, "254: an experimental option", "RFC 6994 §3"},
      {"Length", "length", 8, 8, "octets of the option, kind and length included: 6", "RFC 6994 §3"},
      {"ExID", "exid", 16, 32, "EBCDIC \"SMCR\": the SMC experiment", cite::kTcpOption, wire::Display::kHex},
  };
  static constexpr wire::HeaderDecl decl{"SMC TCP option", "smc.tcp_option", kTcpOptionLengthSmc, fields,
                                         cite::kTcpOption};
};
using SmcTcpOption = wire::Header<SmcTcpOptionSpec>;

// The six octets of the option.
std::array<std::uint8_t, 6> build_smc_option();
// The option preceded by two NOPs, keeping the option list 4-octet aligned
// as Linux sends it (TCPOLEN_EXP_SMC_BASE_ALIGNED).
std::array<std::uint8_t, 8> build_smc_option_aligned();

// Parses one option that starts with kind 254: true when it is the SMC
// option, false when it is another experiment's (different ExID); an error
// when it is too short to hold an ExID or is the SMC ExID with a wrong length.
wire::Result<bool> parse_smc_option(wire::Bytes option);

// One experimental option (RFC 6994 §3: kind 253 or 254) as a SYN or
// SYN-ACK carried it, for the rules of the SMC option (check/smc_tcp.hpp):
// its kind, its Length octet and the ExID after it (32 bits read when the
// option holds four octets after Length; a 16-bit ExID in the upper half
// when it holds two or three).
struct ExperimentalOption {
  // Where a 16-bit ExID sits in `exid`: its upper half.
  static constexpr unsigned kShortExidShift = 16;
  std::uint8_t kind = 0;
  std::uint8_t length = 0;
  std::uint32_t exid = 0;
  // The SMC ExID in four octets, whatever the kind and length around it.
  constexpr bool smc_exid() const { return length >= kTcpOptionLengthSmc && exid == kTcpOptionSmcExId; }
};
// Reads an option that starts with kind 253 or 254 and whose Length (at
// least 4, at most option.size()) the caller checked.
ExperimentalOption read_experimental_option(wire::Bytes option);

// The experimental options of one SYN, the first few: a TCP header holds
// at most 40 octets of options, and two are all any rule here looks at.
struct SynExperimentalOptions {
  static constexpr std::size_t kKept = 2;
  std::array<ExperimentalOption, kKept> options{};
  std::uint8_t count = 0;
  void add(const ExperimentalOption& o) {
    if (count < kKept) options[count++] = o;
  }
  std::span<const ExperimentalOption> kept() const { return {options.data(), count}; }
};

struct TcpSmcIndication {
  bool syn = false;           // SYN flag of the segment
  bool ack = false;           // ACK flag (SYN-ACK when both)
  bool smc_option = false;    // the SMC option was present
};

// Looks for the SMC option in a TCP header (20-60 octets with options).
wire::Result<TcpSmcIndication> detect(wire::Bytes tcp_header);

// CLC follows the TCP handshake only when the SYN and the SYN-ACK both
// carried the option (RFC 7609 §3.1).
constexpr bool clc_follows(bool syn_had_option, bool syn_ack_had_option) {
  return syn_had_option && syn_ack_had_option;
}

}  // namespace rdmaconf::clc
