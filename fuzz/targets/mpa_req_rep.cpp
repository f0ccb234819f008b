// MPA Request/Reply frames (RFC 5044 §7.1.1, RFC 6581 enhanced data).
//
// Input: one mode octet (which key is expected, whether Res is checked),
// then the received octets. Properties:
//  - required_frame_size() and decode_req_rep() agree on the frame's size;
//  - a decoded frame encodes back to exactly the received octets when every
//    header field is forced to its decoded value (scapy-style overrides);
//  - its meaning (kind, M, C, R, revision, IRD/ORD, RTR, private data)
//    encoded with nothing forced decodes to the same meaning;
//  - the header declaration round-trips and prints.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "common/header_check.hpp"
#include "common/input.hpp"
#include "mpa/req_rep.hpp"

using namespace rdmaconf;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const std::uint8_t mode = in.u8();
  mpa::ReqRepDecodeOptions options;
  switch (mode & 3) {
    case 1: options.expect = mpa::FrameKind::kRequest; break;
    case 2: options.expect = mpa::FrameKind::kReply; break;
    default: break;
  }
  options.check_reserved = (mode & 4) == 0;
  const fuzz::Bytes frame = in.rest();

  auto need = mpa::required_frame_size(frame, options.expect);
  if (need) FUZZ_CHECK(*need >= mpa::kReqRepHeaderSize && *need <= mpa::kMaxReqRepFrameSize);
  auto decoded = mpa::decode_req_rep(frame, options);
  if (!decoded) {
    FUZZ_CHECK(!decoded.error().to_string().empty());
    return 0;
  }
  const mpa::ReqRepFrame& f = *decoded;
  FUZZ_CHECK(need.ok() && *need == f.frame_size);
  FUZZ_CHECK(f.frame_size == mpa::kReqRepHeaderSize + f.private_data.size());
  FUZZ_CHECK(f.frame_size <= frame.size());
  FUZZ_CHECK(f.revision == mpa::kRevision1 || f.revision == mpa::kRevision2);
  FUZZ_CHECK(!(f.kind == mpa::FrameKind::kRequest && f.reject));
  fuzz::header_round_trip<mpa::ReqRepSpec>(frame, (mode & 8) != 0);

  // What the frame means: the encoder computes S, Res and PD_Length.
  mpa::ReqRepFields meaning;
  meaning.kind = f.kind;
  meaning.markers = f.markers;
  meaning.crc = f.crc;
  meaning.reject = f.reject;
  meaning.revision = f.revision;
  meaning.enhanced = f.enhanced_data;
  meaning.private_data = f.ulp_private_data;

  // Exact re-encoding: the same, with every header field forced to what was received.
  using F = mpa::ReqRepSpec::Field;
  mpa::ReqRepFields exact = meaning;
  exact.enhanced.reset();
  exact.private_data = {};
  std::array<std::uint8_t, mpa::kKeySize> key{};
  std::copy_n(f.header.octets(F::Key).begin(), mpa::kKeySize, key.begin());
  exact.key = key;
  exact.s_flag = f.header.flag(F::S);
  exact.res = static_cast<std::uint8_t>(f.header.get(F::Res));
  exact.pd_length = static_cast<std::uint16_t>(f.header.get(F::PD_Length));
  exact.raw_private_data = f.private_data;
  const auto bytes = mpa::encode_req_rep(exact);
  FUZZ_CHECK(bytes.size() == f.frame_size);
  FUZZ_CHECK(std::equal(bytes.begin(), bytes.end(), frame.begin()));

  // Meaning round trip.
  const auto again_bytes = mpa::encode_req_rep(meaning);
  auto again = mpa::decode_req_rep(again_bytes, {f.kind, true});
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->kind == f.kind && again->markers == f.markers && again->crc == f.crc);
  FUZZ_CHECK(again->reject == f.reject && again->revision == f.revision);
  FUZZ_CHECK(again->enhanced_data == f.enhanced_data);
  FUZZ_CHECK(std::equal(again->ulp_private_data.begin(), again->ulp_private_data.end(),
                        f.ulp_private_data.begin(), f.ulp_private_data.end()));
  if (f.enhanced_data) {
    FUZZ_CHECK(mpa::EnhancedData::from_header(f.enhanced_data->to_header()) == *f.enhanced_data);
    fuzz::header_round_trip<mpa::EnhancedDataSpec>(f.private_data, (mode & 8) != 0);
  }
  return 0;
}
