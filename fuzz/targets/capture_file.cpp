// Capture files (pcap and pcapng) as rdmaconf reads them: libpcap through
// capture::PacketSource, then decoding and TCP reassembly. The input is the
// whole file; it is handed to PacketSource::open_file() as an in-memory file
// (one memfd, rewritten per input), so the project's own open/next/end-of-file
// handling is what runs.
// Properties: see common/capture_check.hpp; frame numbers count from 1 with
// no hole; a source that fails to open says why.
#include <sys/mman.h>
#include <unistd.h>

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

// One in-memory file for the whole run, rewritten for each input: creating
// and freeing a memfd per input cost more kernel time than the target's own
// work. PacketSource still opens it by path, as it opens any file.
struct MemoryFile {
  int fd = memfd_create("rdmaconf-fuzz-capture", 0);
  std::string path = "/proc/self/fd/" + std::to_string(fd);

  // The file holds exactly `data` afterwards; false if the kernel refused.
  bool hold(const std::uint8_t* data, std::size_t size) const {
    if (fd < 0) return false;
    std::size_t written = 0;
    while (written < size) {
      const ssize_t n = pwrite(fd, data + written, size - written, static_cast<off_t>(written));
      if (n <= 0) return false;
      written += static_cast<std::size_t>(n);
    }
    // Cut what a longer earlier input left behind (after writing: the pages
    // that stay are reused, not freed and allocated again).
    return ftruncate(fd, static_cast<off_t>(size)) == 0;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const MemoryFile file;
  if (!file.hold(data, size)) return 0;
  std::string error;
  auto source = capture::PacketSource::open_file(file.path, {}, error);
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
