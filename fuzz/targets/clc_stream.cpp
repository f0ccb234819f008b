// The CLC stream framer (clc::MessageReader) over arbitrary TCP reads.
//
// Input: octet 0 = number of read cuts k (mod 16), k cut octets, then the
// stream. Properties:
//  - put() never consumes more than it was given and, while no message is
//    complete, consumes something from a non-empty read (no stall);
//  - each complete message is framed exactly where message_length() says,
//    and what it frames decodes or fails with a typed error, never faults;
//  - the same stream in one read or in the fuzzer's reads yields the same
//    messages and the same error.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "clc/messages.hpp"
#include "common/input.hpp"
#include "common/mutators.hpp"

using namespace rdmaconf;

namespace {

struct Run {
  std::vector<std::vector<std::uint8_t>> messages;
  bool error = false;
  bool operator==(const Run&) const = default;
};

// One reader per run; it holds a buffer of kMaxMessageLength octets.
Run frame(fuzz::Bytes stream, fuzz::Bytes cuts) {
  auto reader = std::make_unique<clc::MessageReader>();
  Run run;
  fuzz::for_each_read(stream, cuts, [&](fuzz::Bytes read) {
    while (!read.empty() && !run.error) {
      const std::size_t used = reader->put(read);
      FUZZ_CHECK(used <= read.size());
      read = read.subspan(used);
      if (reader->error()) {
        run.error = true;
        return;
      }
      if (reader->has_message()) {
        const fuzz::Bytes m = reader->message();
        auto length = clc::message_length(m);
        FUZZ_CHECK(length.ok() && *length == m.size());
        auto decoded = clc::decode(m);
        if (!decoded) FUZZ_CHECK(!decoded.error().to_string().empty());
        run.messages.emplace_back(m.begin(), m.end());
        reader->next();
      } else {
        FUZZ_CHECK(used > 0 || read.empty());
      }
    }
  });
  return run;
}

std::size_t layout(fuzz::Bytes input) {
  fuzz::FuzzInput in(input);
  in.take(in.u8() % 16);
  return in.position();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const fuzz::Bytes cuts = in.take(in.u8() % 16);
  const fuzz::Bytes stream = in.rest();
  const Run reads = frame(stream, cuts);
  const Run whole = frame(stream, {});
  FUZZ_CHECK(reads == whole);
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  if (seed & 1) return LLVMFuzzerMutate(data, size, max_size);
  return fuzz::mutate_clc_stream(data, size, max_size, seed >> 1, layout);
}
