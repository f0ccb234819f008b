// Capture files (pcap and pcapng) as rdmaconf reads them: libpcap through
// capture::PacketSource, then decoding and TCP reassembly. The input is the
// whole file, opened with PacketSource::open_memory(): the in-place pcap
// reader and libpcap's readers (over an fmemopen stream) run as they do for
// open_file(), without a file. A memfd opened by path cost more than half
// the time in the kernel (write, truncate, open, stat, read, close per
// input); fuzz/tests/capture_memory_test.cpp checks that both openings give
// the same frames and end reports.
// Properties: see common/capture_check.hpp; frame numbers count from 1 with
// no hole; a source that fails to open says why.
#include <cstdint>
#include <string>

#include "capture/source.hpp"
#include "common/capture_check.hpp"
#include "common/input.hpp"

using namespace rdmaconf;

namespace {

// Counts frames on their way to the reassembler.
class NumberingSource {
 public:
  explicit NumberingSource(capture::PacketSource& s) : s_(s) {}
  capture::PacketSource::Next next(capture::RawFrame& f) {
    const auto n = s_.next(f);
    if (n == capture::PacketSource::Next::kFrame) {
      FUZZ_CHECK(f.number.value == ++frames_);
      FUZZ_CHECK(f.captured.size() <= 0x40000 + 65536);
    }
    return n;
  }
  std::uint64_t frames() const { return frames_; }

 private:
  capture::PacketSource& s_;
  std::uint64_t frames_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string error;
  auto source = capture::PacketSource::open_memory(fuzz::Bytes(data, size), {}, error);
  if (!source) {
    FUZZ_CHECK(!error.empty());
    return 0;
  }
  (void)source->link_supported();
  fuzz::CheckingConsumer consumer;
  {
    capture::Reassembler reassembler(consumer, fuzz::tight_limits(size > 0 ? data[size - 1] : 0));
    NumberingSource numbered(*source);
    capture::RawFrame frame;
    for (;;) {
      const auto n = numbered.next(frame);
      if (n != capture::PacketSource::Next::kFrame) {
        if (n == capture::PacketSource::Next::kError) FUZZ_CHECK(source->end_report().has_value());
        break;
      }
      reassembler.add_frame(frame);
    }
    if (auto r = source->end_report()) consumer.on_report(*r);
    reassembler.finish();
    FUZZ_CHECK(reassembler.stats().frames == numbered.frames());
  }
  consumer.check_all_ended();
  return 0;
}
