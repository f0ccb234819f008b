// RoCEv2 packets as far as SMC-R needs them: the Base Transport Header, the
// extended headers its opcode implies (RETH, AETH, ImmDt, IETH, AtomicETH,
// AtomicAckETH), the payload, and the ICRC's place (IBTA vol. 1 ch. 9 and
// Annex A17). One table row per RC opcode says which headers follow the BTH
// (the siw iwarp_pktinfo habit); other transports decode their BTH only.
//
// The decoder takes the UDP payload (everything after the UDP header) and
// checks that the headers, the pad and the 4-octet ICRC fit; it does not
// compute the ICRC (the capture has it as sent; see README.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "smcr/headers.hpp"
#include "wire/bytes.hpp"
#include "wire/field.hpp"
#include "wire/result.hpp"

namespace rdmaconf::smcr {

using Bth = wire::Header<BthSpec>;
using Reth = wire::Header<RethSpec>;
using Aeth = wire::Header<AethSpec>;

// IBTA vol. 1 §9.2.1: the RC opcodes (transport 0b000).
namespace opcode {
inline constexpr std::uint8_t kSendFirst = 0x00;
inline constexpr std::uint8_t kSendMiddle = 0x01;
inline constexpr std::uint8_t kSendLast = 0x02;
inline constexpr std::uint8_t kSendOnly = 0x04;
inline constexpr std::uint8_t kRdmaWriteFirst = 0x06;
inline constexpr std::uint8_t kRdmaWriteMiddle = 0x07;
inline constexpr std::uint8_t kRdmaWriteLast = 0x08;
inline constexpr std::uint8_t kRdmaWriteOnly = 0x0A;
inline constexpr std::uint8_t kAcknowledge = 0x11;
}  // namespace opcode

// What follows the BTH for one opcode.
struct OpcodeInfo {
  std::uint8_t opcode;
  std::string_view name;
  bool reth;                  // RDMA Extended Transport Header, 16 octets
  bool aeth;                  // ACK Extended Transport Header, 4 octets
  std::uint8_t other_octets;  // ImmDt / IETH (4), AtomicETH (28), AtomicAckETH (8)
  bool rdma_write;            // one of the RDMA Write opcodes
};

// The RC row for `op`, or nullptr (another transport or a reserved opcode).
const OpcodeInfo* find_opcode(std::uint8_t op);
// "RC Send Only", ... or "opcode 0x64" for one we have no row for.
std::string opcode_name(std::uint8_t op);

struct RocePacket {
  Bth bth;
  const OpcodeInfo* info = nullptr;  // nullptr: not an RC opcode we know
  std::optional<Reth> reth;
  std::optional<Aeth> aeth;
  wire::Bytes payload;               // after the extended headers, before pad and ICRC
  std::uint32_t icrc = 0;            // as carried (not verified)

  std::uint8_t opcode() const { return static_cast<std::uint8_t>(bth.get(BthSpec::Field::OpCode)); }
  std::uint32_t dest_qp() const { return static_cast<std::uint32_t>(bth.get(BthSpec::Field::DestQp)); }
  std::uint32_t psn() const { return static_cast<std::uint32_t>(bth.get(BthSpec::Field::Psn)); }
};

// Decodes one RoCEv2 UDP payload. The views in the result point into `udp_payload`.
wire::Result<RocePacket> decode_roce(wire::Bytes udp_payload);

}  // namespace rdmaconf::smcr
