// The RDMAP Terminate body (RFC 5040 §4.8), both directions of the codec.
//
// Input: one mode octet, then octets. Properties:
//  - decode_terminate() of the octets, when it succeeds, encodes back to
//    exactly those octets and decodes again to an equal message; the
//    registry names its error triple or says it is unregistered;
//  - make_terminate() for a registered error (the mode octet picks the row)
//    and an offending segment made of the octets (DDP header, RDMAP header,
//    segment length) gives a Terminate that encodes and decodes back to
//    itself: what we send, we accept.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/input.hpp"
#include "rdmap/error_codes.hpp"
#include "rdmap/terminate.hpp"

using namespace rdmaconf;

namespace {

void check_round_trip(const rdmap::TerminateMessage& t, fuzz::Bytes expected) {
  std::vector<std::uint8_t> out;
  wire::ByteWriter w(out);
  rdmap::encode(t, w);
  FUZZ_CHECK(out.size() == t.encoded_size());
  if (!expected.empty()) FUZZ_CHECK(std::equal(out.begin(), out.end(), expected.begin(), expected.end()));
  auto again = rdmap::decode_terminate(out);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == t);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const std::uint8_t mode = in.u8();
  const fuzz::Bytes body = in.rest();

  auto t = rdmap::decode_terminate(body);
  if (t) {
    check_round_trip(*t, body);
    if (const ddp::ErrorRow* row = rdmap::find_error(t->code)) FUZZ_CHECK(!row->name.empty());
    FUZZ_CHECK(!rdmap::layer_name(t->code.layer).empty() || static_cast<std::uint8_t>(t->code.layer) > 2);
  } else {
    FUZZ_CHECK(!t.error().to_string().empty());
  }

  // What the stream would send for the error `mode` selects, reporting a
  // segment whose headers are the input's octets.
  std::vector<ddp::ErrorRow> rows;
  for (auto span : {rdmap::rdmap_error_rows(), rdmap::ddp_error_rows(), rdmap::llp_error_rows()})
    rows.insert(rows.end(), span.begin(), span.end());
  const ddp::TerminateCode code = rows[mode % rows.size()].triple;
  // The segment's DDP header is as long as its T bit says (the stream's
  // guarantee to make_terminate); the RDMAP header is whatever follows.
  if (body.size() < ddp::kControlSize) return 0;
  const ddp::Control ctl = ddp::Control::read(body);
  const std::size_t ddp_size = ctl.header_size();
  if (body.size() < ddp_size) return 0;
  fuzz::FuzzInput seg(body);
  rdmap::OffendingSegment offending;
  offending.ddp_header = seg.take(ddp_size);
  offending.rdma_header = seg.take(rdmap::copied_rdma_header_size(rdmap::Control::from_octet(ctl.rsvd_ulp).opcode));
  offending.segment_length = seg.u32();
  check_round_trip(rdmap::make_terminate(code, (mode & 0x80) ? nullptr : &offending), {});
  return 0;
}
