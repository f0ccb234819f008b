// The upper-layer protocol headers in an RDMAP Send's payload: RPC-over-RDMA
// version 1 (RFC 8166; NFS), iSER (RFC 7145; iSCSI), the RPC-over-RDMA
// private data of the MPA exchange (RFC 8797) and SMB Direct (MS-SMBD).
//
// Input: one mode octet, then the Send payload (mode % 3: 0 RPC-over-RDMA,
// 1 iSER, 2 private data; for RPC-over-RDMA a mode of 3 or more also sets
// the segment cap to mode / 3; modes 0xf0-0xff are SMB Direct: mode & 3 the
// message kind (0 Negotiate Request, 1 Negotiate Response, 2 Data Transfer,
// 3 Buffer Descriptors), mode & 4 the whole Send at hand). Properties:
//  - decoders read only what arrived: every segment lies inside the
//    transport header, the header inside the payload, and error offsets
//    inside the payload;
//  - what follows a header does not change it: decoding the header's own
//    octets, or the payload with octets appended, gives the same message
//    (the analyzer decodes Sends whose RPC message or iSCSI data follows);
//  - the segment cap bounds the lists whatever the counts say;
//  - private data is recognised exactly when the identifier and version 1
//    open 8 or more octets;
//  - SMB Direct: the data handed out lies inside the payload (all of it when
//    the whole Send is at hand), a decoded message encodes back to the
//    octets it came from (the Padding aside), octets after a message change
//    none of its fields; descriptors decode exactly when the octets are a
//    whole number of them, and encode back to them.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/input.hpp"
#include "ulp/iser.hpp"
#include "ulp/rpcrdma.hpp"
#include "ulp/smbd.hpp"

using namespace rdmaconf;

namespace {

std::vector<std::uint8_t> with_tail(fuzz::Bytes b) {
  std::vector<std::uint8_t> v(b.begin(), b.end());
  v.insert(v.end(), {0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 1});
  return v;
}

bool same(const ulp::rpcrdma::Message& a, const ulp::rpcrdma::Message& b) {
  return a.xid == b.xid && a.vers == b.vers && a.credits == b.credits && a.proc == b.proc &&
         a.read_list == b.read_list && a.write_list == b.write_list && a.reply_chunk == b.reply_chunk &&
         a.err == b.err && a.vers_low == b.vers_low && a.vers_high == b.vers_high &&
         a.header_length == b.header_length;
}

void rpcrdma(fuzz::Bytes payload, std::uint8_t cap) {
  namespace r = ulp::rpcrdma;
  // Mode 0 decodes with the default cap; higher modes with small caps.
  const r::Limits limits = cap < 3 ? r::Limits{} : r::Limits{static_cast<std::size_t>(cap / 3)};
  auto m = r::decode(payload, limits);
  if (!m) {
    FUZZ_CHECK(m.error().offset <= payload.size());
    FUZZ_CHECK(!m.error().field.empty() && !m.error().rfc_section.empty());
    return;
  }
  FUZZ_CHECK(m->header_length <= payload.size());
  std::size_t segments = m->read_list.size();
  for (const r::ReadSegment& s : m->read_list) FUZZ_CHECK(s.target.at + 16 <= m->header_length);
  for (const r::WriteChunk& c : m->write_list) {
    segments += c.segments.size();
    for (const r::Segment& s : c.segments) FUZZ_CHECK(s.at + 16 <= m->header_length);
  }
  if (m->reply_chunk) segments += m->reply_chunk->segments.size();
  FUZZ_CHECK(segments <= limits.max_segments);
  auto own = r::decode(payload.first(m->header_length), limits);
  FUZZ_CHECK(own.ok() && same(*own, *m));
  const auto longer = with_tail(payload);
  auto tail = r::decode(longer, limits);
  FUZZ_CHECK(tail.ok() && same(*tail, *m));
  // The RPC message's XID is read only when it arrived, and then kept.
  FUZZ_CHECK(!m->rpc_xid || tail->rpc_xid == m->rpc_xid);
  FUZZ_CHECK(!m->rpc_xid || payload.size() >= m->header_length + 4);
}

void iser(fuzz::Bytes payload) {
  namespace i = ulp::iser;
  auto m = i::decode(payload);
  if (!m) {
    FUZZ_CHECK(m.error().offset <= payload.size());
    return;
  }
  FUZZ_CHECK(m->opcode >= 1 && m->opcode <= 3);
  const std::size_t used = m->opcode == 1 ? i::kHeaderSize + i::kBhsSize : i::kHeaderSize;
  FUZZ_CHECK(payload.size() >= used);
  auto own = i::decode(payload.first(used));
  FUZZ_CHECK(own.ok() && own->opcode == m->opcode && own->write_stag == m->write_stag &&
             own->read_stag == m->read_stag && own->iscsi_opcode == m->iscsi_opcode && own->itt == m->itt &&
             own->ird_or_ord == m->ird_or_ord);
  const auto longer = with_tail(payload);
  auto tail = i::decode(longer);
  FUZZ_CHECK(tail.ok() && tail->data_segment_length == m->data_segment_length && tail->rej == m->rej);
}

void private_data(fuzz::Bytes octets) {
  const auto pd = ulp::rpcrdma::read_private_data(octets);
  const bool expected = octets.size() >= 8 && octets[0] == 0xf6 && octets[1] == 0xab && octets[2] == 0x0e &&
                        octets[3] == 0x18 && octets[4] == 1;
  FUZZ_CHECK(pd.has_value() == expected);
  if (pd) FUZZ_CHECK(pd->max_send >= 1024 && pd->max_send <= 256 * 1024 && pd->max_send % 1024 == 0);
}

void smbd(fuzz::Bytes payload, std::uint8_t mode) {
  namespace s = ulp::smbd;
  if ((mode & 3) == 3) {
    auto d = s::decode_buffer_descriptors(payload);
    FUZZ_CHECK(d.ok() == (payload.size() % s::kBufferDescriptorSize == 0));
    if (!d) return;
    FUZZ_CHECK(d->size() * s::kBufferDescriptorSize == payload.size());
    std::vector<std::uint8_t> out;
    wire::ByteWriter w(out);
    for (const s::BufferDescriptor& b : *d) s::encode(b, w);
    FUZZ_CHECK(wire::Bytes(out).size() == payload.size() && std::equal(out.begin(), out.end(), payload.begin()));
    return;
  }
  const auto kind = static_cast<s::Kind>(mode & 3);
  const bool whole = (mode & 4) != 0;
  auto m = s::decode(payload, kind, whole);
  if (!m) {
    FUZZ_CHECK(m.error().offset <= payload.size());
    FUZZ_CHECK(!m.error().field.empty() && m.error().rfc_section.starts_with("MS-SMBD"));
    return;
  }
  // The data is a view into what arrived, never beyond it.
  if (!m->data.empty())
    FUZZ_CHECK(m->data.data() >= payload.data() && m->data.data() + m->data.size() <= payload.data() + payload.size());
  FUZZ_CHECK(m->data.size() <= m->data_length);
  FUZZ_CHECK(m->data_complete == (m->data.size() == m->data_length));
  if (whole) FUZZ_CHECK(m->data_complete);
  // Encoding gives back the message's own octets (Padding written as zero).
  const std::vector<std::uint8_t> again = s::encode(*m);
  const std::size_t fixed = kind == s::Kind::kNegotiateRequest    ? s::kNegotiateRequestSize
                            : kind == s::Kind::kNegotiateResponse ? s::kNegotiateResponseSize
                                                                  : s::kDataTransferHeaderSize;
  FUZZ_CHECK(again.size() >= fixed && std::equal(again.begin(), again.begin() + static_cast<std::ptrdiff_t>(fixed),
                                                 payload.begin()));
  if (m->data_complete && m->data_length)
    FUZZ_CHECK(again.size() == std::size_t{m->data_offset} + m->data_length &&
               std::equal(m->data.begin(), m->data.end(), again.begin() + m->data_offset));
  // Octets after the message change none of its fields.
  const auto longer = with_tail(payload);
  auto tail = s::decode(longer, kind, false);
  FUZZ_CHECK(tail.ok() && tail->credits_requested == m->credits_requested &&
             tail->credits_granted == m->credits_granted && tail->data_offset == m->data_offset &&
             tail->data_length == m->data_length && tail->remaining_data_length == m->remaining_data_length &&
             tail->max_fragmented_size == m->max_fragmented_size && tail->status == m->status);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const std::uint8_t mode = in.u8();
  const fuzz::Bytes payload = in.rest();
  if (mode >= 0xf0) {
    smbd(payload, mode);
    return 0;
  }
  switch (mode % 3) {
    case 0: rpcrdma(payload, mode); break;
    case 1: iser(payload); break;
    default: private_data(payload); break;
  }
  return 0;
}
