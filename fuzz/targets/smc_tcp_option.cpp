// The SMC TCP option (RFC 7609 §3.1, RFC 6994 experimental option) and the
// walk over a TCP header's option list that finds it.
//
// Input: one mode octet, then a TCP header (the mode's low bit instead
// parses the octets as one option). Properties:
//  - detect() reads only inside the header's Data Offset, and errors carry
//    an offset inside it;
//  - when detect() finds the SMC option, the capture layer's own option walk
//    (pcap/capture, a separate implementation) finds it too whenever it
//    accepts the option list: the capture analyzer and the CLC layer agree;
//  - the option we build parses as the SMC option, alone and aligned.
#include <cstdint>

#include "capture/decode.hpp"
#include "clc/tcp_option.hpp"
#include "common/input.hpp"

using namespace rdmaconf;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const std::uint8_t mode = in.u8();
  const fuzz::Bytes octets = in.rest();

  if (mode & 1) {
    auto smc = clc::parse_smc_option(octets);
    if (smc) FUZZ_CHECK(octets.size() >= 4 && octets[0] == clc::kTcpOptionKindExperimental);
    if (smc && *smc) FUZZ_CHECK(octets[1] == clc::kTcpOptionLengthSmc);
    return 0;
  }

  auto found = clc::detect(octets);
  if (!found) {
    FUZZ_CHECK(found.error().offset < std::max<std::size_t>(octets.size(), 20));
    return 0;
  }
  // The TCP header's Data Offset and flags, read by hand: the TCP declaration
  // (pcap/capture/headers.hpp) is above the codecs a fuzz target may link.
  const std::size_t data_offset = static_cast<std::size_t>(octets[12] >> 4) * 4;
  FUZZ_CHECK(data_offset >= 20 && data_offset <= octets.size());
  FUZZ_CHECK(found->syn == ((octets[13] & 0x02) != 0) && found->ack == ((octets[13] & 0x10) != 0));

  capture::TcpOptions options;
  const wire::Status st = capture::parse_tcp_options(octets.subspan(20, data_offset - 20), options);
  if (st && found->smc_option) FUZZ_CHECK(options.smc);

  if (mode & 2) {
    const auto built = clc::build_smc_option();
    auto parsed = clc::parse_smc_option(built);
    FUZZ_CHECK(parsed.ok() && *parsed);
    const auto aligned = clc::build_smc_option_aligned();
    FUZZ_CHECK(aligned.size() % 4 == 0);
    FUZZ_CHECK(clc::clc_follows(true, true) && !clc::clc_follows(true, false));
  }
  return 0;
}
