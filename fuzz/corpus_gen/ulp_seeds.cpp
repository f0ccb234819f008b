// capture_observer seeds with upper-layer protocols (fuzz_make_corpus, the
// rest of which is make_corpus.cpp).
#include <array>
#include <cstdint>
#include <vector>

#include "corpus_gen/seeds.hpp"
#include "mpa/framer.hpp"
#include "mpa/negotiation.hpp"

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
// broken, so the fuzzer starts from the observer's ULP side.
void be(Octets& b, std::uint64_t v, int octets) {
  for (int i = octets - 1; i >= 0; --i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
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
    Octets u{0x41, static_cast<std::uint8_t>(0x40 | (invalidate ? 0x4 : 0x3))};
    be(u, invalidate, 4);
    be(u, 0, 4);
    be(u, msn[side][0]++, 4);
    be(u, 0, 4);
    u.insert(u.end(), payload.begin(), payload.end());
    add(side, u);
  }
  void tagged(int side, std::uint8_t opcode, std::uint32_t stag, std::uint64_t to, std::size_t n) {
    Octets u{0xc1, static_cast<std::uint8_t>(0x40 | opcode)};
    be(u, stag, 4);
    be(u, to, 8);
    const Octets data = pattern(n, 9);
    u.insert(u.end(), data.begin(), data.end());
    add(side, u);
  }
  void read(int side, std::uint32_t stag, std::uint64_t to, std::uint32_t size) {
    Octets u{0x41, 0x41};
    be(u, 0, 4);
    be(u, 1, 4);
    be(u, msn[side][1]++, 4);
    be(u, 0, 4);
    be(u, 0x7700, 4);
    be(u, 0, 8);
    be(u, size, 4);
    be(u, stag, 4);
    be(u, to, 8);
    add(side, u);
    tagged(1 - side, 0x2, 0x7700, 0, size);
  }
};
// RFC 8166 §4.1.2: fixed words, Read list, Write list (one chunk), Reply chunk,
// then for RDMA_MSG the RPC message (RFC 5531 §9: CALL of NFSv3 `proc`, or REPLY).
Octets rpc(std::uint32_t xid, std::uint32_t proc, bool call, std::uint32_t nfs_proc,
           std::vector<std::array<std::uint64_t, 4>> reads, std::vector<std::array<std::uint64_t, 3>> write_chunk,
           std::vector<std::array<std::uint64_t, 3>> reply_chunk) {
  Octets b;
  be(b, xid, 4);
  be(b, 1, 4);
  be(b, 32, 4);
  be(b, proc, 4);
  for (const auto& r : reads) {
    be(b, 1, 4);
    be(b, r[0], 4);
    be(b, r[1], 4);
    be(b, r[2], 4);
    be(b, r[3], 8);
  }
  be(b, 0, 4);
  if (!write_chunk.empty()) {
    be(b, 1, 4);
    be(b, write_chunk.size(), 4);
    for (const auto& w : write_chunk) be(b, w[0], 4), be(b, w[1], 4), be(b, w[2], 8);
  }
  be(b, 0, 4);
  be(b, reply_chunk.empty() ? 0 : 1, 4);
  if (!reply_chunk.empty()) {
    be(b, reply_chunk.size(), 4);
    for (const auto& w : reply_chunk) be(b, w[0], 4), be(b, w[1], 4), be(b, w[2], 8);
  }
  if (proc == 0) {
    be(b, xid, 4);
    be(b, call ? 0 : 1, 4);
    if (call) be(b, 2, 4), be(b, 100003, 4), be(b, 3, 4), be(b, nfs_proc, 4);
    be(b, 0, 8);
  }
  return b;
}
// RFC 7145 §9.2 header, then the RFC 7143 §11.3 BHS (SCSI Command or Response).
Octets iser(std::uint8_t opcode, std::uint32_t itt, std::uint32_t wstag, std::uint32_t rstag, std::uint8_t cdb,
            std::uint32_t edtl) {
  Octets b{static_cast<std::uint8_t>(0x10 | (wstag ? 0x08 : 0) | (rstag ? 0x04 : 0)), 0, 0, 0};
  be(b, wstag, 4);
  be(b, wstag ? 0x20000 : 0, 8);
  be(b, rstag, 4);
  be(b, rstag ? 0x10000 : 0, 8);
  Octets bhs(48, 0);
  bhs[0] = opcode;
  bhs[1] = static_cast<std::uint8_t>(0x80 | (rstag ? 0x40 : 0) | (wstag ? 0x20 : 0));
  for (int i = 0; i < 4; ++i) bhs[16 + i] = static_cast<std::uint8_t>(itt >> (24 - 8 * i));
  for (int i = 0; i < 4; ++i) bhs[20 + i] = static_cast<std::uint8_t>(edtl >> (24 - 8 * i));
  bhs[32] = cdb;
  b.insert(b.end(), bhs.begin(), bhs.end());
  return b;
}
Octets observer_session(const UlpConversation& c) {
  mpa::NegotiationConfig ic;
  mpa::NegotiationConfig rc;
  rc.role = mpa::Role::kResponder;
  mpa::Negotiation i(ic), r(rc);
  Octets events{0x05};
  observer_data(events, false, Octets(i.pending_output().begin(), i.pending_output().end()));
  r.receive(i.pending_output());
  r.accept();
  observer_data(events, true, Octets(r.pending_output().begin(), r.pending_output().end()));
  i.receive(r.pending_output());
  mpa::Framer fi(mpa::FramerConfig{i.outcome()->markers_send, i.outcome()->crc, 0});
  mpa::Framer fr(mpa::FramerConfig{r.outcome()->markers_send, r.outcome()->crc, 0});
  for (std::size_t k = 0; k < c.segments.size(); ++k) {
    Octets fpdu;
    (c.from_initiator[k] ? fi : fr).frame(wire::Bytes(c.segments[k]), fpdu);
    observer_data(events, !c.from_initiator[k], fpdu);
  }
  return events;
}
}  // namespace

void rdmaconf::corpus_gen::capture_observer_ulps() {
  for (bool flawed : {false, true}) {
    UlpConversation c;
    c.send(0, rpc(0x20, 0, true, 6, {}, {{0x100, 4096, 0x1000}}, {}));
    c.tagged(1, 0x0, 0x100, 0x1000, 100);
    c.send(1, rpc(0x20, 0, false, 0, {}, {{0x100, flawed ? 101u : 100u, 0x1000}}, {}), 0x100);
    c.send(0, rpc(0x30, 0, true, 7, {{128, 0x200, 200, 0x8000}}, {}, {}));
    c.read(1, 0x200, 0x8000, flawed ? 201 : 200);
    c.send(1, rpc(0x30, 0, false, 0, {}, {}, {}), 0x200);
    c.send(0, rpc(0x40, 0, true, 17, {}, {}, {{0x300, 1024, 0}}));
    c.tagged(1, 0x0, 0x300, 0, 100);
    c.send(1, rpc(0x40, 1, false, 0, {}, {}, {{0x300, 100, 0}}));
    put("capture_observer", flawed ? "rpc_over_rdma_flawed" : "rpc_over_rdma", observer_session(c));
  }
  for (bool flawed : {false, true}) {
    UlpConversation c;
    c.send(0, iser(0x01, 1, 0, 0xa00, 0x28, 512));
    c.tagged(1, 0x0, flawed ? 0xb00 : 0xa00, 0x10000, 512);
    c.send(1, iser(0x21, 1, 0, 0, 0, 0), 0xa00);
    c.send(0, iser(0x01, 2, 0xb00, 0, 0x2a, 256));
    c.read(1, 0xb00, 0x20000, 256);
    c.send(1, iser(0x21, 2, 0, 0, 0, 0), flawed ? 0xa00 : 0xb00);
    put("capture_observer", flawed ? "iser_flawed" : "iser", observer_session(c));
  }
}
