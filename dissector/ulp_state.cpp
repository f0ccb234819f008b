// The plugin's view of a connection's ULP across messages (ulp_state.hpp).
#include "ulp_state.hpp"

#include <algorithm>

#include "ddp/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "ulp/iser.hpp"
#include "ulp/onc_rpc.hpp"
#include "ulp/rpcrdma.hpp"
#include "wire/bytes.hpp"

namespace rdmaconf::dissector {

namespace {

using Region = analysis::UlpTie::Region;

int idx(analysis::Side s) { return static_cast<int>(s); }

bool holds_data(Region k) { return k == Region::kReadSegment || k == Region::kWriteChunk || k == Region::kReplyChunk; }

// The XDR unit that ends `v` (an opaque's length when a write chunk took its data).
std::uint32_t last_xdr_unit(const std::vector<std::uint8_t>& v) {
  return static_cast<std::uint32_t>(wire::load_be(wire::Bytes(v).last(ulp::rpcrdma::kXdrUnit)));
}

// RFC 8267 §4: the only result data items of NFS versions 2 and 3 that can
// go by write chunk (READ's file data, READLINK's path) each end their
// result, so the chunk's data belongs at the end of the Reply.
bool is_legacy_nfs(const std::vector<std::uint8_t>& rpc) {
  const auto call = ulp::onc_rpc::read_call(wire::Bytes(rpc.data(), rpc.size()));
  return call && call->prog == ulp::onc_rpc::kNfsProgram && (call->vers == 2 || call->vers == 3);
}

void pad4(std::vector<std::uint8_t>& v) {
  // XDR roundup (RFC 8166 §3.4.4.4): a chunk holds no padding, the Payload
  // stream it returns to is 4-octet aligned.
  while (v.size() % ulp::rpcrdma::kXdrUnit) v.push_back(0);
}

void release(Advert& a, std::size_t& held) {
  for (const auto& [at, piece] : a.pieces) held -= piece.size();
  a.pieces.clear();
}

}  // namespace

std::string_view name(Region k) {
  switch (k) {
    case Region::kReadSegment: return "Read chunk";
    case Region::kWriteChunk: return "Write chunk";
    case Region::kReplyChunk: return "Reply chunk";
    case Region::kIserWriteStag: return "iSER Write STag";
    case Region::kIserReadStag: return "iSER Read STag";
  }
  return "";
}

bool is_iser(const Advert& a) {
  return a.named.kind == Region::kIserWriteStag || a.named.kind == Region::kIserReadStag;
}

UlpFindings UlpTracker::on_segment(const analysis::Message& m, const analysis::SegmentInfo& s) {
  UlpFindings out;
  if (!s.has_header || !m.fpdu) return out;
  const rdmap::OpcodeInfo* op = rdmap::find_opcode(s.rdmap.opcode);
  if (!op || op->tagged != s.ddp.tagged) return out;
  const auto frame = static_cast<std::uint32_t>(m.frame);
  const std::size_t hdr = s.ddp.tagged ? ddp::kTaggedHeaderSize : ddp::kUntaggedHeaderSize;
  const wire::Chunks& ulpdu = m.fpdu->ulpdu();
  if (ulpdu.size() < hdr) return out;
  const wire::Chunks payload = ulpdu.subrange(hdr);

  if (!op->tagged && op->queue == rdmap::Queue::kSend && op->rdmap_header_size == 0 &&
      s.qn == static_cast<std::uint32_t>(rdmap::Queue::kSend)) {
    std::map<std::uint32_t, Assembly>& sends = assembling_[idx(m.side)];
    if (s.mo == 0) {
      sends.erase(s.msn);
      if (!s.ulp) return out;  // no ULP recognised (yet): nothing of ours
      if (sends.size() >= kMaxOpen) sends.erase(sends.begin());
      Assembly& a = sends[s.msn];
      a.ulp = s.ulp->ulp;
      a.first_frame = static_cast<std::uint32_t>(m.first_frame);
      a.opens = s.ulp->opens;
      a.answers = s.ulp->answers;
      // RFC 5040 §5.3: the region whose STag the Send invalidates, as the
      // observer tied it; every segment of the Send names it.
      if (s.ulp->invalidates) a.invalidates = region(s.ulp->invalidates->call, s.ulp->invalidates->place);
    }
    const auto it = sends.find(s.msn);
    if (it == sends.end()) return out;
    Assembly& a = it->second;
    ++a.segments;
    if (s.mo != a.octets.size() || a.octets.size() + payload.size() > kMaxMessage) {
      a.complete = false;  // a segment missing, or more than is kept
    } else {
      payload.for_each([&](wire::Bytes b) { a.octets.insert(a.octets.end(), b.begin(), b.end()); });
    }
    if (a.invalidates) {
      a.invalidates->invalidated_in = frame;
      out.invalidates = a.invalidates;
    }
    if (s.ddp.last) {
      Assembly done = std::move(a);
      sends.erase(it);
      on_send(frame, std::move(done), out);
    }
    return out;
  }

  // The observer tied an RDMA Write (RFC 5040 §5.1: it places data in the
  // peer's advertised buffer), a Read Request (§5.2.1: it names the peer's
  // buffer as its source) or a Read Response (§5.2.2: it carries octets of
  // that source) to a region; Writes and Responses bring its data.
  if (!s.ulp_tie) return out;
  switch (op->opcode) {
    case rdmap::Opcode::kRdmaWrite:
      out.tie = use(*s.ulp_tie, static_cast<std::uint32_t>(payload.size()), frame, &payload);
      break;
    case rdmap::Opcode::kRdmaReadRequest:
      if (s.read_request) {
        using RF = rdmap::ReadRequestSpec::Field;
        out.tie = use(*s.ulp_tie, static_cast<std::uint32_t>(s.read_request->get(RF::ReadSize)), frame, nullptr);
      }
      break;
    case rdmap::Opcode::kRdmaReadResponse:
      out.tie = use(*s.ulp_tie, static_cast<std::uint32_t>(payload.size()), frame, &payload);
      if (out.tie && s.ddp.last && out.tie->advert->named.kind == Region::kReadSegment) {
        const auto c = calls_.find(out.tie->advert->named.call);
        if (c != calls_.end()) try_complete(c->second, frame, out);
      }
      break;
    default:
      break;
  }
  return out;
}

void UlpTracker::on_send(std::uint32_t frame, Assembly&& a, UlpFindings& out) {
  UlpSend& u = sends_.emplace_back();
  u.ulp = a.ulp;
  u.payload = std::move(a.octets);
  u.complete = a.complete;
  u.first_frame = a.first_frame;
  u.several_segments = a.segments > 1;
  out.send = &u;
  if (!u.complete) {
    u.note = "the Send's segments were not all captured, or it exceeds what is kept";
  } else if (u.ulp == analysis::Ulp::kRpcRdma) {
    on_rpcrdma(frame, u, a);
  } else if (u.ulp == analysis::Ulp::kIser) {
    on_iser(frame, u, a);
  }
  // The call this Send answers ends here, shown or not.
  if (a.answers) close(a.answers->number);
}

UlpTracker::Call& UlpTracker::open(const analysis::UlpCall& c, UlpSend& u, std::uint32_t frame) {
  Call& call = calls_[c.number];  // the observer numbers each call once
  call.send = &u;
  call.frame = frame;
  for (const analysis::UlpTie& r : c.regions) {
    Advert& a = adverts_.emplace_back();
    a.named = r;
    a.advertised_in = frame;
    call.regions.push_back(&a);
    u.adverts.push_back(&a);
  }
  // A call the observer stops tracking unanswered (after a gap; replaced by
  // a call with its XID or ITT) is never closed: the newest kMaxOpen stay.
  if (calls_.size() > kMaxOpen && calls_.begin()->first != c.number) close(calls_.begin()->first);
  return call;
}

UlpTracker::Call* UlpTracker::answered(const analysis::UlpCall& c, UlpSend& u, std::uint32_t frame) {
  const auto it = calls_.find(c.number);
  if (it == calls_.end()) return nullptr;  // its Send was not kept here (not whole, or not decoded)
  u.call_frame = it->second.frame;
  it->second.send->reply_frame = frame;
  return &it->second;
}

void UlpTracker::close(std::uint64_t number) {
  const auto it = calls_.find(number);
  if (it == calls_.end()) return;
  for (Advert* a : it->second.regions) release(*a, held_);
  calls_.erase(it);
}

Advert* UlpTracker::region(std::uint64_t call, std::uint32_t place) {
  const auto it = calls_.find(call);
  if (it == calls_.end() || place >= it->second.regions.size()) return nullptr;
  return it->second.regions[place];
}

const Tie* UlpTracker::use(const analysis::UlpTie& t, std::uint32_t length, std::uint32_t frame,
                           const wire::Chunks* data) {
  // The region the observer tied the operation to, if it is still kept here.
  Advert* found = region(t.call, t.place);
  if (!found) return nullptr;
  Advert& a = *found;
  const std::uint64_t at = t.offset;
  if (!a.first_frame) a.first_frame = frame;
  a.last_frame = frame;
  if (data) {
    a.octets += length;
    if (holds_data(a.named.kind) && held_ + length <= kMaxHeld && !a.pieces.contains(at)) {
      std::vector<std::uint8_t>& piece = a.pieces[at];
      piece.reserve(length);
      data->for_each([&](wire::Bytes b) { piece.insert(piece.end(), b.begin(), b.end()); });
      held_ += piece.size();
    }
  }
  return &ties_.emplace_back(Tie{&a, at, length});
}

bool UlpTracker::gather(const Advert& a, std::uint32_t length, std::vector<std::uint8_t>& out) const {
  std::uint64_t have = 0;
  for (const auto& [at, piece] : a.pieces) {
    if (have >= length) break;
    if (at > have) return false;  // a hole: octets not captured
    const std::uint64_t end = at + piece.size();
    if (end <= have) continue;
    const auto from = static_cast<std::size_t>(have - at);
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(end, length) - have);
    out.insert(out.end(), piece.begin() + static_cast<std::ptrdiff_t>(from),
               piece.begin() + static_cast<std::ptrdiff_t>(from + n));
    have += n;
  }
  return have >= length;
}

void UlpTracker::on_rpcrdma(std::uint32_t frame, UlpSend& u, const Assembly& a) {
  const auto m = ulp::rpcrdma::decode(wire::Bytes(u.payload.data(), u.payload.size()));
  if (!m) {
    u.note = "the RPC-over-RDMA header does not decode: " + m.error().to_string();
    return;
  }
  using ulp::rpcrdma::Proc;
  const bool msg = m->is(Proc::kMsg);
  std::vector<std::uint8_t> inline_part;
  if (msg)
    inline_part.assign(u.payload.begin() + static_cast<std::ptrdiff_t>(m->header_length), u.payload.end());

  // A Reply (or RDMA_ERROR) to a Call the observer tracked (RFC 8166 §4.2.1).
  if (const Call* c = a.answers ? answered(*a.answers, u, frame) : nullptr) {
    // RFC 8166 §3.4.6: the Reply's chunks repeat the Call's segments, in
    // order, with the lengths the Responder actually wrote.
    auto written = [&](Region kind, std::uint32_t chunk, std::size_t k, const ulp::rpcrdma::Segment& seg,
                       std::vector<std::uint8_t>& into) {
      for (const Advert* r : c->regions)
        if (r->named.kind == kind && r->named.chunk == chunk && r->named.segment == k + 1)
          return r->named.region.stag == seg.handle && r->named.region.offset == seg.offset &&
                 gather(*r, seg.length, into);
      return false;
    };
    if (m->is(Proc::kNoMsg)) {
      // RFC 8166 §3.5.3: the whole Reply went into the Reply chunk.
      std::vector<std::uint8_t> rpc;
      bool ok = m->reply_chunk.has_value();
      if (ok)
        for (std::size_t k = 0; k < m->reply_chunk->segments.size(); ++k)
          ok = ok && written(Region::kReplyChunk, 0, k, m->reply_chunk->segments[k], rpc);
      if (ok) {
        u.rpc = std::move(rpc);
        u.rpc_here = u.rpc_rebuilt = true;
      } else {
        u.note = "the Reply went by RDMA Write into the Reply chunk, and not all of that data was captured";
      }
    } else if (msg) {
      std::size_t used = 0;
      for (const auto& w : m->write_list) used += w.length() > 0;
      if (used == 0) {
        u.rpc = std::move(inline_part);
        u.rpc_here = true;
      } else if (c->legacy_nfs && m->write_list.size() == 1 && inline_part.size() >= ulp::rpcrdma::kXdrUnit &&
                 last_xdr_unit(inline_part) == m->write_list[0].length()) {
        // RFC 8166 §3.4.4.1: the opaque's length stays in the Payload
        // stream; RFC 8267 §4: its data ends the Reply.
        std::vector<std::uint8_t> data;
        bool ok = true;
        for (std::size_t k = 0; k < m->write_list[0].segments.size(); ++k)
          ok = ok && written(Region::kWriteChunk, 1, k, m->write_list[0].segments[k], data);
        if (ok) {
          u.rpc = std::move(inline_part);
          u.rpc.insert(u.rpc.end(), data.begin(), data.end());
          pad4(u.rpc);
          u.rpc_here = u.rpc_rebuilt = true;
        } else {
          u.note = "the result data went by RDMA Write into a write chunk, and not all of it was captured";
        }
      } else {
        u.note = "the result data went by RDMA Write into a write chunk; where it belongs in the RPC message "
                 "depends on the program's binding, known here for NFS versions 2 and 3 (RFC 8267 §4)";
      }
    }
    return;
  }
  if (m->is(Proc::kError)) return;

  // Any other message shows its RPC message as it carries it; a Call the
  // observer tracks keeps its regions (the chunks the peer reads or writes).
  Call* c = a.opens ? &open(*a.opens, u, frame) : nullptr;
  std::size_t reads = 0;
  if (c)
    for (Advert* r : c->regions)
      if (r->named.kind == Region::kReadSegment && r->named.segment >= 1 && r->named.segment <= m->read_list.size()) {
        r->position = m->read_list[r->named.segment - 1].position;
        ++reads;
      }
  if (!m->read_list.empty()) {
    // RFC 8166 §3.4.5: the Responder pulls the Read chunks and puts them
    // back at their positions; the message is whole at the last Read Response.
    if (c) {
      c->inline_part = std::move(inline_part);
      c->waiting_for_reads = reads == m->read_list.size();
    }
  } else if (msg) {
    if (c) c->legacy_nfs = is_legacy_nfs(inline_part);
    u.rpc = std::move(inline_part);
    u.rpc_here = true;
  } else {
    u.note = "RDMA_NOMSG without a Read chunk carries no RPC message";
  }
}

void UlpTracker::try_complete(Call& c, std::uint32_t frame, UlpFindings& out) {
  if (!c.waiting_for_reads) return;
  std::vector<Advert*> reads;  // the read segments, in list order (their places)
  for (Advert* r : c.regions)
    if (r->named.kind == Region::kReadSegment) reads.push_back(r);
  std::vector<std::uint8_t> rpc;
  std::size_t consumed = 0;  // octets of the inline part already placed
  std::size_t i = 0;
  while (i < reads.size()) {
    // RFC 8166 §3.4.5: segments with the same Position form one chunk,
    // inserted at that offset of the unreduced Payload stream.
    const std::uint32_t position = reads[i]->position;
    if (position < rpc.size()) return;  // positions out of order: not rebuilt
    const std::size_t before = position - rpc.size();
    if (before > c.inline_part.size() - consumed) return;
    rpc.insert(rpc.end(), c.inline_part.begin() + static_cast<std::ptrdiff_t>(consumed),
               c.inline_part.begin() + static_cast<std::ptrdiff_t>(consumed + before));
    consumed += before;
    for (; i < reads.size() && reads[i]->position == position; ++i)
      if (!gather(*reads[i], static_cast<std::uint32_t>(reads[i]->named.region.length), rpc)) return;  // not all read yet
    if (position) pad4(rpc);
    if (rpc.size() > kMaxMessage) return;
  }
  rpc.insert(rpc.end(), c.inline_part.begin() + static_cast<std::ptrdiff_t>(consumed), c.inline_part.end());
  c.waiting_for_reads = false;
  c.legacy_nfs = is_legacy_nfs(rpc);
  c.send->rpc_completed_in = frame;
  for (Advert* r : reads) release(*r, held_);
  out.completes = &completions_.emplace_back(UlpCompletion{c.send, c.frame, std::move(rpc)});
}

void UlpTracker::on_iser(std::uint32_t frame, UlpSend& u, const Assembly& a) {
  const auto m = ulp::iser::decode(wire::Bytes(u.payload.data(), u.payload.size()));
  if (!m) {
    u.note = "the iSER header does not decode: " + m.error().to_string();
    return;
  }
  // The task a SCSI Response ends, the one a SCSI Command starts (RFC 7145
  // §7.3.1, §7.3.2), as the observer tracks them: the target reads the
  // Write STag's buffer by RDMA Read and writes the Read STag's by RDMA
  // Write (§9.2).
  if (a.answers) answered(*a.answers, u, frame);
  if (a.opens) open(*a.opens, u, frame);
}

}  // namespace rdmaconf::dissector
