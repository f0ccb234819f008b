// capture_observer seeds with upper-layer protocols, and ulp_message's SMB
// Direct seeds (fuzz_make_corpus, the rest of which is make_corpus.cpp).
#include <array>
#include <cstdint>
#include <vector>

#include "corpus_gen/seeds.hpp"
#include "ddp/segmentation.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "ulp/iser.hpp"
#include "ulp/rpcrdma.hpp"
#include "ulp/smbd.hpp"

using namespace rdmaconf;
using corpus_gen::Octets;
using corpus_gen::observer_data;
using corpus_gen::pattern;
using corpus_gen::put;

namespace {

// capture_observer seeds with upper-layer protocols: an RPC-over-RDMA
// exchange (RFC 8166: a call whose Write chunk the Responder fills, one whose
// read segment it pulls, a Long Reply into a Reply chunk) and an iSER one
// (RFC 7145: a SCSI READ into the Read STag, a WRITE read from the Write
// STag, Responses by Send with Invalidate), each also with one ULP rule
// broken, so the fuzzer starts from the observer's ULP side. Every header
// is written through its declaration: DDP's by the segment builders
// (ddp/segmentation.hpp), RDMAP's Read Request, RPC-over-RDMA's, ONC RPC's
// and iSER's by their Header<Spec> encoders.
constexpr std::size_t kOneSegment = 1 << 16;  // MULPDU: every message here fits one DDP segment
Octets one_segment(wire::Result<std::vector<ddp::Segment>> segments) {
  return segments && segments->size() == 1 ? segments->front().to_vector() : Octets{};
}
struct UlpConversation {
  std::vector<Octets> segments;
  std::vector<bool> from_initiator;
  std::uint32_t msn[2][2] = {{1, 1}, {1, 1}};
  void add(int side, Octets u) {
    segments.push_back(std::move(u));
    from_initiator.push_back(side == 0);
  }
  // RFC 5041 §4.3 untagged (RFC 5040 §4.4: the Invalidate STag in RsvdULP).
  void send(int side, const Octets& payload, std::uint32_t invalidate = 0) {
    ddp::UntaggedTarget t;
    t.rsvd_ulp = rdmap::Control::octet(invalidate ? rdmap::Opcode::kSendWithInvalidate : rdmap::Opcode::kSend);
    t.rsvd_ulp32 = invalidate;
    t.qn = ddp::QueueNumber{static_cast<std::uint32_t>(rdmap::Queue::kSend)};
    t.msn = ddp::Msn{msn[side][0]++};
    add(side, one_segment(ddp::segment_untagged(t, {}, wire::Chunks(wire::Bytes(payload)), kOneSegment)));
  }
  void tagged(int side, rdmap::Opcode opcode, std::uint32_t stag, std::uint64_t to, std::size_t n) {
    ddp::TaggedTarget t;
    t.rsvd_ulp = rdmap::Control::octet(opcode);
    t.stag = ddp::Stag{stag};
    t.to = to;
    const Octets data = pattern(n, 9);
    add(side, one_segment(ddp::segment_tagged(t, {}, wire::Chunks(wire::Bytes(data)), kOneSegment)));
  }
  // RFC 5040 §4.4: a Read Request on QN 1 into Sink STag 0x7700 at TO 0,
  // answered by one Read Response.
  void read(int side, std::uint32_t stag, std::uint64_t to, std::uint32_t size) {
    rdmap::ReadRequestHeader h;
    using F = rdmap::ReadRequestSpec::Field;
    h.set(F::SinkSTag, 0x7700).set(F::SinkTO, 0).set(F::ReadSize, size).set(F::SourceSTag, stag).set(F::SourceTO, to);
    ddp::UntaggedTarget t;
    t.rsvd_ulp = rdmap::Control::octet(rdmap::Opcode::kRdmaReadRequest);
    t.qn = ddp::QueueNumber{static_cast<std::uint32_t>(rdmap::Queue::kReadRequest)};
    t.msn = ddp::Msn{msn[side][1]++};
    add(side, one_segment(ddp::segment_untagged(t, h.bytes(), wire::Chunks(), kOneSegment)));
    tagged(1 - side, rdmap::Opcode::kRdmaReadResponse, 0x7700, 0, size);
  }
};
using Segments = std::vector<ulp::rpcrdma::Segment>;
ulp::rpcrdma::WriteChunk chunk(Segments s) { return ulp::rpcrdma::WriteChunk{std::move(s)}; }
// RFC 8166 §4.2-§4.3 (32 credits, the Read list, a Write list of at most one
// chunk, the Reply chunk), then for RDMA_MSG the RPC message (RFC 5531 §9:
// CALL of NFSv3 `nfs_proc`, or REPLY) and 8 zero octets.
Octets rpc(std::uint32_t xid, ulp::rpcrdma::Proc proc, bool call, std::uint32_t nfs_proc,
           std::vector<ulp::rpcrdma::ReadSegment> reads, Segments write_chunk, Segments reply_chunk) {
  ulp::rpcrdma::Message m;
  m.xid = xid;
  m.vers = ulp::rpcrdma::kVersion1;
  m.credits = 32;
  m.proc = static_cast<std::uint32_t>(proc);
  m.read_list = std::move(reads);
  if (!write_chunk.empty()) m.write_list.push_back(chunk(std::move(write_chunk)));
  if (!reply_chunk.empty()) m.reply_chunk = chunk(std::move(reply_chunk));
  Octets b;
  wire::ByteWriter w(b);
  ulp::rpcrdma::encode(m, w);
  if (m.is(ulp::rpcrdma::Proc::kMsg)) {
    if (call)
      ulp::onc_rpc::encode_call({xid, ulp::onc_rpc::kNfsProgram, 3, nfs_proc}, w);
    else
      ulp::onc_rpc::encode_message_start(xid, ulp::onc_rpc::kReply, w);
    w.put_zeros(8);
  }
  return b;
}
// RFC 7145 §9.2 header (WSV/RSV for the STags given, base offsets 0x20000
// and 0x10000), then the RFC 7143 §11.3 BHS: a SCSI Command (F, R and W as
// the STags say) or, for any other opcode, the shared BHS fields with F set.
Octets iser(std::uint8_t opcode, std::uint32_t itt, std::uint32_t wstag, std::uint32_t rstag, std::uint8_t cdb,
            std::uint32_t edtl) {
  ulp::iser::Message m;
  m.opcode = static_cast<std::uint8_t>(ulp::iser::Opcode::kControl);
  m.wsv = wstag != 0;
  m.rsv = rstag != 0;
  m.write_stag = wstag;
  m.write_base_offset = wstag ? 0x20000 : 0;
  m.read_stag = rstag;
  m.read_base_offset = rstag ? 0x10000 : 0;
  m.iscsi_opcode = opcode;
  m.final = true;
  m.itt = itt;
  m.scsi_read = m.rsv;
  m.scsi_write = m.wsv;
  m.expected_data_transfer_length = edtl;
  m.cdb_opcode = cdb;
  return ulp::iser::encode(m);
}
Octets observer_session(const UlpConversation& c) {
  return corpus_gen::iwarp_session_events(c.segments, c.from_initiator, false);
}
}  // namespace

void rdmaconf::corpus_gen::capture_observer_ulps() {
  using enum ulp::rpcrdma::Proc;
  for (bool flawed : {false, true}) {
    UlpConversation c;
    c.send(0, rpc(0x20, kMsg, true, 6, {}, {{0x100, 4096, 0x1000}}, {}));
    c.tagged(1, rdmap::Opcode::kRdmaWrite, 0x100, 0x1000, 100);
    c.send(1, rpc(0x20, kMsg, false, 0, {}, {{0x100, flawed ? 101u : 100u, 0x1000}}, {}), 0x100);
    c.send(0, rpc(0x30, kMsg, true, 7, {{128, {0x200, 200, 0x8000}}}, {}, {}));
    c.read(1, 0x200, 0x8000, flawed ? 201 : 200);
    c.send(1, rpc(0x30, kMsg, false, 0, {}, {}, {}), 0x200);
    c.send(0, rpc(0x40, kMsg, true, 17, {}, {}, {{0x300, 1024, 0}}));
    c.tagged(1, rdmap::Opcode::kRdmaWrite, 0x300, 0, 100);
    c.send(1, rpc(0x40, kNoMsg, false, 0, {}, {}, {{0x300, 100, 0}}));
    put("capture_observer", flawed ? "rpc_over_rdma_flawed" : "rpc_over_rdma", observer_session(c));
  }
  for (bool flawed : {false, true}) {
    UlpConversation c;
    c.send(0, iser(0x01, 1, 0, 0xa00, 0x28, 512));
    c.tagged(1, rdmap::Opcode::kRdmaWrite, flawed ? 0xb00 : 0xa00, 0x10000, 512);
    c.send(1, iser(0x21, 1, 0, 0, 0, 0), 0xa00);
    c.send(0, iser(0x01, 2, 0xb00, 0, 0x2a, 256));
    c.read(1, 0xb00, 0x20000, 256);
    c.send(1, iser(0x21, 2, 0, 0, 0, 0), flawed ? 0xa00 : 0xb00);
    put("capture_observer", flawed ? "iser_flawed" : "iser", observer_session(c));
  }
}

// ulp_message's SMB Direct modes (0xf0-0xff, see the target): each message
// kind as the whole Send (mode | 4) and as a partial copy, written by
// smbd::encode, and a channel-info block of two Buffer Descriptors V1.
void rdmaconf::corpus_gen::ulp_message_smbd() {
  namespace smbd = ulp::smbd;
  const auto with_mode = [](std::uint8_t mode, const Octets& message) { return cat({{mode}, message}); };
  smbd::Message req;
  req.kind = smbd::Kind::kNegotiateRequest;
  req.min_version = req.max_version = smbd::kVersion1;
  req.credits_requested = 255;
  req.preferred_send_size = req.max_receive_size = 1364;
  req.max_fragmented_size = 1 << 20;
  put("ulp_message", "smbd_negotiate_request", with_mode(0xf4, smbd::encode(req)));
  smbd::Message rep = req;
  rep.kind = smbd::Kind::kNegotiateResponse;
  rep.negotiated_version = smbd::kVersion1;
  rep.credits_granted = 255;
  rep.max_read_write_size = 1 << 20;
  put("ulp_message", "smbd_negotiate_response", with_mode(0xf5, smbd::encode(rep)));
  const Octets data = cat({{0xfe, 'S', 'M', 'B', 64, 0, 0, 0, 0, 0, 0, 0, 8, 0}, pattern(50, 1)});
  smbd::Message dt;
  dt.kind = smbd::Kind::kDataTransfer;
  dt.credits_requested = 255;
  dt.credits_granted = 1;
  dt.data = data;
  dt.data_length = static_cast<std::uint32_t>(data.size());
  dt.data_offset = 24;
  put("ulp_message", "smbd_data_transfer", with_mode(0xf6, smbd::encode(dt)));
  dt.remaining_data_length = 4096;
  dt.data_length = 1000;  // more than the copy holds: a partial copy
  put("ulp_message", "smbd_data_transfer_fragment", with_mode(0xf2, smbd::encode(dt)));
  smbd::Message keepalive;
  keepalive.kind = smbd::Kind::kDataTransfer;
  keepalive.flags = smbd::kResponseRequested;
  put("ulp_message", "smbd_keepalive", with_mode(0xf6, smbd::encode(keepalive)));
  Octets descriptors;
  wire::ByteWriter w(descriptors);
  smbd::encode(smbd::BufferDescriptor{0x7f0012340000, 0x4a5b6c7d, 4096}, w);
  smbd::encode(smbd::BufferDescriptor{0x1000, 0x01020304, 512}, w);
  put("ulp_message", "smbd_buffer_descriptors", with_mode(0xf3, descriptors));
}
