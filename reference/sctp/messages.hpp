// The adaptation layer's messages (RFC 5043 §5): decoding with typed errors
// and scapy-style encoders whose every field can be forced.
//
// A message is the user data of one SCTP DATA chunk (reassembled, if SCTP
// fragmented it) together with the chunk's Payload Protocol Identifier:
// PPID 16 carries a DDP-SSN and one DDP segment, PPID 17 a DDP-SSN, a
// Function Code and private data. Decoded messages refer to the caller's
// octets (views, no copies).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sctp/headers.hpp"
#include "wire/bytes.hpp"
#include "wire/chunks.hpp"
#include "wire/result.hpp"

namespace rdmaconf::sctp {

enum class MessageKind : std::uint8_t { kSegment, kControl };

// One decoded adaptation-layer message.
struct Message {
  MessageKind kind = MessageKind::kSegment;
  std::uint16_t ddp_ssn = 0;
  FunctionCode function = FunctionCode::kInitiate;  // kControl only
  wire::Bytes ddp_segment;   // kSegment: the DDP segment (RFC 5041 header and payload)
  wire::Bytes private_data;  // kControl: what follows the Function Code
};

struct DecodeOptions {
  // RFC 5043 §9: a receiver refuses DDP segments above the maximum size it
  // told DDP about; 0 leaves the size unchecked (an observer that does not
  // know the sender's limit).
  std::size_t max_segment_size = 0;
};

// Decodes the user data of one DATA chunk carried with `ppid`. Errors name
// the field, rule, section and octet offset:
//   PPID                neither 16 nor 17 (not this adaptation layer's)
//   DDP-SSN             fewer than 2 octets
//   DDP Segment         empty, or larger than max_segment_size
//   Function Code       fewer than 4 octets, or a code other than 1-4
//   Private Data        more than 512 octets, or any in a Terminate
wire::Result<Message> decode_message(std::uint32_t ppid, wire::Bytes user_data, const DecodeOptions& options = {});

// RFC 5043 §5.1: an Adaptation Layer Indication parameter, from its first
// octet; octets after its Length are not looked at. Errors: fewer than 8
// octets, Type not 0xC006, Length not 8.
wire::Result<std::uint32_t> decode_adaptation_layer_indication(wire::Bytes parameter);

// A DDP Segment Chunk: the DDP-SSN, then the segment.
struct SegmentChunkFields {
  std::uint16_t ddp_ssn = 0;
  wire::Chunks ddp_segment;
};
std::size_t encode_segment_chunk(const SegmentChunkFields& fields, std::vector<std::uint8_t>& out);

// A Session Control message; `raw_function_code` forces a code RFC 5043
// does not define, for conformance cases and fuzzers.
struct SessionControlFields {
  std::uint16_t ddp_ssn = 0;
  FunctionCode function = FunctionCode::kInitiate;
  wire::Bytes private_data;
  std::optional<std::uint16_t> raw_function_code;
};
std::size_t encode_session_control(const SessionControlFields& fields, std::vector<std::uint8_t>& out);
std::vector<std::uint8_t> encode_session_control(const SessionControlFields& fields);

// The Adaptation Layer Indication parameter for DDP (or any `indication`).
std::vector<std::uint8_t> encode_adaptation_layer_indication(std::uint32_t indication = kAdaptationIndicationDdp);

// "Initiate", "Accept", "Reject", "Terminate", or empty for another code.
std::string_view name(FunctionCode code);

}  // namespace rdmaconf::sctp
