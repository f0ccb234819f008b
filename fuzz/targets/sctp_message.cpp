// The DDP/SCTP adaptation layer's messages (RFC 5043 §5): DDP Segment Chunks,
// DDP Stream Session Control messages and the Adaptation Layer Indication.
//
// Input: one mode octet (bits 0-1: PPID 16, 17 or another; bit 2: a
// maximum segment size of 516 or none), then the user data of one DATA chunk.
// Properties:
//  - a decoded message encodes back to exactly the received octets (the
//    Function Code forced to the decoded one), and its meaning re-encoded
//    decodes to the same meaning;
//  - what decodes keeps the rules the decoder promises: private data at most
//    512 octets and none in a Terminate, a non-empty segment within the limit;
//  - an Adaptation Layer Indication that decodes is re-encoded to its octets;
//  - every declaration round-trips and prints.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/header_check.hpp"
#include "common/input.hpp"
#include "sctp/messages.hpp"

using namespace rdmaconf;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const std::uint8_t mode = in.u8();
  const std::uint32_t ppid = (mode & 3) == 0   ? sctp::kPpidDdpSegment
                             : (mode & 3) == 1 ? sctp::kPpidSessionControl
                                               : in.u32();
  const std::size_t limit = (mode & 4) != 0 ? sctp::kSmallestMaxSegmentSize : 0;
  const fuzz::Bytes user_data = in.rest();

  if (auto indication = sctp::decode_adaptation_layer_indication(user_data)) {
    const auto again = sctp::encode_adaptation_layer_indication(*indication);
    FUZZ_CHECK(std::equal(again.begin(), again.end(), user_data.begin()));
  }
  if (user_data.size() >= sctp::kAdaptationLayerIndicationSize)
    fuzz::header_round_trip<sctp::AdaptationLayerIndicationSpec>(user_data, (mode & 8) != 0);

  auto m = sctp::decode_message(ppid, user_data, {.max_segment_size = limit});
  if (!m) {
    FUZZ_CHECK(!m.error().to_string().empty());
    return 0;
  }
  std::vector<std::uint8_t> exact;
  if (m->kind == sctp::MessageKind::kSegment) {
    FUZZ_CHECK(ppid == sctp::kPpidDdpSegment);
    FUZZ_CHECK(!m->ddp_segment.empty());
    FUZZ_CHECK(limit == 0 || m->ddp_segment.size() <= limit);
    fuzz::header_round_trip<sctp::SegmentChunkSpec>(user_data, (mode & 8) != 0);
    sctp::encode_segment_chunk({.ddp_ssn = m->ddp_ssn, .ddp_segment = wire::Chunks(m->ddp_segment)}, exact);
  } else {
    FUZZ_CHECK(ppid == sctp::kPpidSessionControl);
    FUZZ_CHECK(m->private_data.size() <= sctp::kMaxPrivateDataLength);
    FUZZ_CHECK(m->function != sctp::FunctionCode::kTerminate || m->private_data.empty());
    FUZZ_CHECK(!sctp::name(m->function).empty());
    fuzz::header_round_trip<sctp::SessionControlSpec>(user_data, (mode & 8) != 0);
    exact = sctp::encode_session_control({.ddp_ssn = m->ddp_ssn, .function = m->function,
                                          .private_data = m->private_data, .raw_function_code = std::nullopt});
  }
  FUZZ_CHECK(exact.size() == user_data.size());
  FUZZ_CHECK(std::equal(exact.begin(), exact.end(), user_data.begin()));
  auto again = sctp::decode_message(ppid, exact, {.max_segment_size = limit});
  FUZZ_CHECK(again.ok() && again->kind == m->kind && again->ddp_ssn == m->ddp_ssn);
  return 0;
}
