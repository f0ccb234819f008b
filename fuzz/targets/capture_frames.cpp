// Frame decoding and TCP reassembly (pcap/capture's std-only core: what
// rdmaconf_capture_core links under libc++), without a file format around.
//
// Input: octet 0 picks the link type (low 3 bits) and the limits (bits 3-4,
// see tight_limits); then frames, each a 2-octet length, a 2-octet number of
// octets the frame had on the wire beyond those captured (snaplen cuts), and
// the frame's octets. Properties: see common/capture_check.hpp; the
// reassembler's statistics add up (no octet delivered twice or lost without
// a gap).
#include <cstdint>

#include "capture/decode.hpp"
#include "capture/reassembly.hpp"
#include "common/capture_check.hpp"
#include "common/input.hpp"

using namespace rdmaconf;

namespace {

constexpr capture::LinkType kLinks[] = {
    capture::LinkType::kEthernet, capture::LinkType::kRaw,      capture::LinkType::kLinuxSll,
    capture::LinkType::kLinuxSll2, capture::LinkType::kNull,    capture::LinkType::kLoop,
    capture::LinkType::kIpv4,     capture::LinkType::kIpv6,
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const std::uint8_t mode = in.u8();
  const capture::LinkType link = kLinks[mode & 7];
  fuzz::CheckingConsumer consumer;
  {
    capture::Reassembler reassembler(consumer, fuzz::tight_limits(static_cast<std::uint8_t>(mode >> 3)));
    std::uint64_t number = 0;
    while (!in.empty()) {
      const std::uint16_t length = in.u16();
      const std::uint16_t cut = in.u16();
      capture::RawFrame frame;
      frame.number = capture::FrameNumber{++number};
      frame.time = capture::Timestamp{static_cast<std::int64_t>(number) * 1000};
      frame.link = link;
      frame.captured = in.take(length);
      frame.original_length = static_cast<std::uint32_t>(frame.captured.size()) + cut;
      reassembler.add_frame(frame);
    }
    reassembler.finish();
    const capture::ReassemblyStats& st = reassembler.stats();
    FUZZ_CHECK(st.frames == number);
    FUZZ_CHECK(st.segments <= st.frames);
    FUZZ_CHECK(st.held_octets == 0);
  }
  consumer.check_all_ended();
  return 0;
}
