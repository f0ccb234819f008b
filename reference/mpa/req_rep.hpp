// MPA Request and Reply frames (RFC 5044 §7.1.1, RFC 6581): decoding with
// typed errors, an incremental size probe, and a scapy-style encoder.
//
// Decoding is two-step for stream use: once the 20-octet header has arrived,
// required_frame_size() says how many octets the whole frame takes (checking
// PD_Length against the 512-octet limit first, so an untrusted length never
// drives a wait or an allocation beyond 532 octets); decode_req_rep() then
// decodes exactly that many octets. The decoded frame refers to the caller's
// octets (views, no copies).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "mpa/headers.hpp"
#include "wire/bytes.hpp"
#include "wire/result.hpp"

namespace rdmaconf::mpa {

enum class FrameKind : std::uint8_t { kRequest, kReply };

// RFC 6581 enhanced connection establishment data, decoded.
struct EnhancedData {
  bool peer_to_peer = false;     // Control Flag A
  bool rtr_send = false;         // Control Flag B: zero-length Send
  bool rtr_write = false;        // Control Flag C: zero-length RDMA Write
  bool rtr_read = false;         // Control Flag D: zero-length RDMA Read
  std::uint16_t ird = 0;         // 14 bits
  std::uint16_t ord = 0;         // 14 bits

  EnhancedDataHeader to_header() const;
  static EnhancedData from_header(const EnhancedDataHeader& h);
  friend bool operator==(const EnhancedData&, const EnhancedData&) = default;
};

// A decoded Request or Reply. Views refer to the decoded octets.
struct ReqRepFrame {
  FrameKind kind = FrameKind::kRequest;
  ReqRepHeader header;
  bool markers = false;   // M
  bool crc = false;       // C
  bool reject = false;    // R
  bool enhanced = false;  // S in a Rev 2 frame
  std::uint8_t revision = 0;
  wire::Bytes private_data;       // all PD_Length octets
  std::optional<EnhancedData> enhanced_data;  // Rev 2 with S set
  wire::Bytes ulp_private_data;   // private data after the enhanced data (all of it otherwise)
  std::size_t frame_size = 0;     // 20 + PD_Length
};

struct ReqRepDecodeOptions {
  // Which frame is expected; nullopt accepts either key.
  std::optional<FrameKind> expect;
  // RFC 5044 §7.1.1: Res is sent as zero and NOT checked on receipt, so a
  // receiver accepts non-zero Res (Linux siw sets 0x08 there, its GSO
  // extension). Turning the check on is for observers that report the
  // sender's violation (the frame's header keeps the bits for that), and
  // for the conformance responder's "checks Res" fault.
  bool check_reserved = false;
};

// How many octets the complete frame occupies, from the first octets
// received. Fewer than 20: returns 20 (the header must arrive first), after
// failing fast on a wrong key prefix. From 20 on: checks PD_Length <= 512
// and returns 20 + PD_Length.
wire::Result<std::size_t> required_frame_size(wire::Bytes received,
                                              std::optional<FrameKind> expect = std::nullopt);

// Decodes one frame from the start of `frame`. Octets after
// 20 + PD_Length are not looked at (they belong to full operation).
// Errors name the field, rule, section and octet offset:
//   Key          neither key, or not the expected one
//   PD_Length    > 512, or more than the octets received
//   Res          non-zero (check_reserved), including S in a Rev 1 frame
//   R            set in a Request
//   Rev          neither 1 nor 2
//   IRD          S set but fewer than 4 octets of private data
wire::Result<ReqRepFrame> decode_req_rep(wire::Bytes frame, const ReqRepDecodeOptions& options = {});

// Everything a Request or Reply carries; each field of the header can be
// forced (scapy style) to build malformed frames for conformance cases.
struct ReqRepFields {
  FrameKind kind = FrameKind::kRequest;
  bool markers = false;
  bool crc = true;
  bool reject = false;
  std::uint8_t revision = kRevision1;
  std::optional<EnhancedData> enhanced;  // sets S and prepends the 4 octets
  wire::Bytes private_data;              // the ULP's private data

  // Overrides: left unset, each is computed from the fields above.
  std::optional<std::array<std::uint8_t, kKeySize>> key;
  std::optional<bool> s_flag;
  std::optional<std::uint8_t> res;           // the 4 Res bits
  std::optional<std::uint16_t> pd_length;    // a PD_Length that disagrees with the octets sent
  std::optional<wire::Bytes> raw_private_data;  // replaces enhanced data + private data
};

// Appends the frame to `out`; returns the number of octets appended.
std::size_t encode_req_rep(const ReqRepFields& fields, std::vector<std::uint8_t>& out);
std::vector<std::uint8_t> encode_req_rep(const ReqRepFields& fields);

}  // namespace rdmaconf::mpa
