// What crossed the wire, decoded through the header declarations: the
// reference endpoint reports every MPA Request/Reply and every FPDU it sends
// or receives to an optional observer, already decoded field by field.
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
  std::string_view unit;    // "MPA Request", "MPA Reply", "FPDU"
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

}  // namespace rdmaconf::endpoint
