// What crossed the wire, decoded through the header declarations: the
// reference endpoint reports every MPA Request/Reply and every FPDU it sends
// or receives (over SCTP: every adaptation-layer message) to an optional
// observer, already decoded field by field.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "mpa/deframer.hpp"
#include "mpa/req_rep.hpp"
#include "wire/chunks.hpp"

namespace rdmaconf::endpoint {

enum class Direction : std::uint8_t { kSent, kReceived };

struct WireEvent {
  Direction direction = Direction::kSent;
  std::string_view unit;    // "MPA Request", "MPA Reply", "FPDU", "DDP Segment Chunk", ...
  std::size_t octets = 0;   // on the wire, Markers and CRC included
  std::string headline;     // one line: the message and its key fields
  std::string detail;       // one line per header: every field, by its declaration
};
using WireObserver = std::function<void(const WireEvent&)>;

// Decodes an MPA Request/Reply frame for the transcript.
WireEvent describe_req_rep(Direction d, const mpa::ReqRepFrame& frame);

// Decodes one FPDU's ULPDU (a DDP segment with its RDMAP meaning).
// `fpdu_octets` is the FPDU's size on the wire; `crc` the CRC status.
WireEvent describe_fpdu(Direction d, const wire::Chunks& ulpdu, std::size_t fpdu_octets,
                        mpa::CrcStatus crc, std::size_t markers);

// Decodes one DDP/SCTP adaptation-layer message (RFC 5043 §5.2): a DDP
// Segment Chunk (its DDP-SSN, then the segment with its RDMAP meaning) or a
// DDP Stream Session Control message, as it went on SCTP stream `stream`.
WireEvent describe_sctp_message(Direction d, std::uint16_t stream, std::uint32_t ppid, wire::Bytes user_data);

}  // namespace rdmaconf::endpoint
