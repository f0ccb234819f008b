// The plugin's view of a connection's ULP across messages (ulp_state.hpp).
#include "ulp_state.hpp"

#include <algorithm>

#include "ddp/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "ulp/onc_rpc.hpp"
#include "wire/bytes.hpp"

namespace rdmaconf::dissector {

namespace {

using analysis::other;

int idx(analysis::Side s) { return static_cast<int>(s); }

bool holds_data(Advert::Kind k) {
  return k == Advert::Kind::kReadChunk || k == Advert::Kind::kWriteChunk || k == Advert::Kind::kReplyChunk;
}

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

Advert make(Advert::Kind kind, std::uint32_t stag, std::uint64_t offset, std::uint32_t length, std::size_t chunk,
            std::size_t segment, std::uint32_t position, std::uint32_t tag, std::uint32_t frame) {
  Advert a;
  a.kind = kind;
  a.stag = stag;
  a.offset = offset;
  a.length = length;
  a.chunk = static_cast<std::uint32_t>(chunk);
  a.segment = static_cast<std::uint32_t>(segment);
  a.position = position;
  a.tag = tag;
  a.advertised_in = frame;
  return a;
}

void pad4(std::vector<std::uint8_t>& v) {
  // XDR roundup (RFC 8166 §3.4.4.4): a chunk holds no padding, the Payload
  // stream it returns to is 4-octet aligned.
  while (v.size() % ulp::rpcrdma::kXdrUnit) v.push_back(0);
}

}  // namespace

std::string_view name(Advert::Kind k) {
  switch (k) {
    case Advert::Kind::kReadChunk: return "Read chunk";
    case Advert::Kind::kWriteChunk: return "Write chunk";
    case Advert::Kind::kReplyChunk: return "Reply chunk";
    case Advert::Kind::kIserWrite: return "iSER Write STag";
    case Advert::Kind::kIserRead: return "iSER Read STag";
  }
  return "";
}

UlpFindings UlpTracker::on_segment(const analysis::Message& m, const analysis::SegmentInfo& s) {
  UlpFindings out;
  if (!s.has_header || !m.fpdu) return out;
  const rdmap::OpcodeInfo* op = rdmap::find_opcode(s.rdmap.opcode);
  if (!op || op->tagged != s.ddp.tagged) return out;
  const auto frame = static_cast<std::uint32_t>(m.frame);
  const Side side = m.side;
  const std::size_t hdr = s.ddp.tagged ? ddp::kTaggedHeaderSize : ddp::kUntaggedHeaderSize;
  const wire::Chunks& ulpdu = m.fpdu->ulpdu();
  if (ulpdu.size() < hdr) return out;
  const wire::Chunks payload = ulpdu.subrange(hdr);
  Direction& d = dir_[idx(side)];

  if (!op->tagged && op->queue == rdmap::Queue::kSend && op->rdmap_header_size == 0 &&
      s.qn == static_cast<std::uint32_t>(rdmap::Queue::kSend)) {
    if (s.mo == 0) {
      d.sends.erase(s.msn);
      if (!s.ulp) return out;  // no ULP recognised (yet): nothing of ours
      if (d.sends.size() >= kMaxOpen) d.sends.erase(d.sends.begin());
      Assembly& a = d.sends[s.msn];
      a.ulp = s.ulp->ulp;
      a.first_frame = static_cast<std::uint32_t>(m.first_frame);
      a.head_frame = m.frame;
      // RFC 5040 §5.3: the region whose STag the Send invalidates, as the
      // observer tied it; every segment of the Send names it.
      if (s.ulp->invalidates) {
        const auto named = placed_.find({s.ulp->invalidates->advertised_in, s.ulp->invalidates->place});
        if (named != placed_.end()) a.invalidates = named->second;
      }
    }
    const auto it = d.sends.find(s.msn);
    if (it == d.sends.end()) return out;
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
      d.sends.erase(it);
      on_send(side, frame, std::move(done), out);
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
      if (out.tie && s.ddp.last && out.tie->advert->kind == Advert::Kind::kReadChunk) {
        const auto c = d.calls.find(out.tie->advert->tag);
        if (c != d.calls.end()) try_complete(side, c->second, frame, out);
      }
      break;
    default:
      break;
  }
  return out;
}

void UlpTracker::on_send(Side side, std::uint32_t frame, Assembly&& a, UlpFindings& out) {
  UlpSend& u = sends_.emplace_back();
  u.ulp = a.ulp;
  u.payload = std::move(a.octets);
  u.complete = a.complete;
  u.first_frame = a.first_frame;
  u.head_frame = a.head_frame;
  u.several_segments = a.segments > 1;
  out.send = &u;
  if (!u.complete) {
    u.note = "the Send's segments were not all captured, or it exceeds what is kept";
    return;
  }
  if (u.ulp == analysis::Ulp::kRpcRdma) on_rpcrdma(side, frame, u);
  else if (u.ulp == analysis::Ulp::kIser) on_iser(side, frame, u);
}

Advert* UlpTracker::advertise(Side side, Advert a, UlpSend& send) {
  Direction& d = dir_[idx(side)];
  a.head_frame = send.head_frame;
  a.place = send.places++;  // counted whether kept or not: the observer's places
  if (d.adverts.size() >= kMaxOpen && !d.adverts.contains(a.stag)) return nullptr;
  Advert& kept = adverts_.emplace_back(std::move(a));
  d.adverts[kept.stag] = &kept;  // a newer advert of the same STag replaces the older
  placed_[{kept.head_frame, kept.place}] = &kept;
  send.adverts.push_back(&kept);
  return &kept;
}

void UlpTracker::forget(Side side, Advert* a) {
  if (!a) return;
  for (const auto& [at, piece] : a->pieces) held_ -= piece.size();
  a->pieces.clear();
  Direction& d = dir_[idx(side)];
  const auto it = d.adverts.find(a->stag);
  if (it != d.adverts.end() && it->second == a) d.adverts.erase(it);
  const auto at = placed_.find({a->head_frame, a->place});
  if (at != placed_.end() && at->second == a) placed_.erase(at);
}

const Tie* UlpTracker::use(const analysis::UlpTie& t, std::uint32_t length, std::uint32_t frame,
                           const wire::Chunks* data) {
  // The region the observer tied the operation to, if it is still kept here.
  const auto it = placed_.find({t.advertised_in, t.place});
  if (it == placed_.end()) return nullptr;
  Advert& a = *it->second;
  const std::uint64_t at = t.offset;
  if (!a.first_frame) a.first_frame = frame;
  a.last_frame = frame;
  if (data) {
    a.octets += length;
    if (holds_data(a.kind) && held_ + length <= kMaxHeld && !a.pieces.contains(at)) {
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

void UlpTracker::on_rpcrdma(Side side, std::uint32_t frame, UlpSend& u) {
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

  // A Reply: the peer sent a Call with this XID (RFC 8166 §4.2.1).
  Direction& peer = dir_[idx(other(side))];
  const auto call = peer.calls.find(m->xid);
  if (call != peer.calls.end()) {
    Call& c = call->second;
    u.call_frame = c.frame;
    c.send->reply_frame = frame;
    // RFC 8166 §3.4.6: the Reply's chunks repeat the Call's segments with
    // the lengths the Responder actually wrote.
    auto written = [&](const ulp::rpcrdma::Segment& seg, std::vector<std::uint8_t>& into) {
      const auto a = peer.adverts.find(seg.handle);
      return a != peer.adverts.end() && a->second->offset == seg.offset && gather(*a->second, seg.length, into);
    };
    if (m->is(Proc::kNoMsg)) {
      // RFC 8166 §3.5.3: the whole Reply went into the Reply chunk.
      std::vector<std::uint8_t> rpc;
      bool ok = m->reply_chunk.has_value();
      if (ok)
        for (const auto& seg : m->reply_chunk->segments) ok = ok && written(seg, rpc);
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
      } else if (c.legacy_nfs && m->write_list.size() == 1 && inline_part.size() >= ulp::rpcrdma::kXdrUnit &&
                 last_xdr_unit(inline_part) == m->write_list[0].length()) {
        // RFC 8166 §3.4.4.1: the opaque's length stays in the Payload
        // stream; RFC 8267 §4: its data ends the Reply.
        std::vector<std::uint8_t> data;
        bool ok = true;
        for (const auto& seg : m->write_list[0].segments) ok = ok && written(seg, data);
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
    release(c, other(side));
    peer.calls.erase(call);
    return;
  }
  if (m->is(Proc::kError)) return;

  // A Call: its chunks are regions the peer reads or writes.
  Direction& d = dir_[idx(side)];
  if (const auto old = d.calls.find(m->xid); old != d.calls.end()) {
    release(old->second, side);
    d.calls.erase(old);
  }
  if (d.calls.size() >= kMaxOpen) {
    u.note = "too many Calls awaiting their Replies on this connection";
    return;
  }
  Call c;
  c.send = &u;
  c.frame = frame;
  for (std::size_t i = 0; i < m->read_list.size(); ++i) {
    const auto& r = m->read_list[i];
    if (Advert* kept = advertise(side, make(Advert::Kind::kReadChunk, r.target.handle, r.target.offset,
                                            r.target.length, 0, i, r.position, m->xid, frame), u)) c.reads.push_back(kept);
  }
  for (std::size_t ci = 0; ci < m->write_list.size(); ++ci)
    for (std::size_t si = 0; si < m->write_list[ci].segments.size(); ++si) {
      const auto& seg = m->write_list[ci].segments[si];
      if (Advert* kept =
              advertise(side, make(Advert::Kind::kWriteChunk, seg.handle, seg.offset, seg.length, ci, si, 0, m->xid, frame), u)) c.writes.push_back(kept);
    }
  if (m->reply_chunk)
    for (std::size_t si = 0; si < m->reply_chunk->segments.size(); ++si) {
      const auto& seg = m->reply_chunk->segments[si];
      if (Advert* kept =
              advertise(side, make(Advert::Kind::kReplyChunk, seg.handle, seg.offset, seg.length, 0, si, 0, m->xid, frame), u)) c.writes.push_back(kept);
    }
  if (!m->read_list.empty()) {
    // RFC 8166 §3.4.5: the Responder pulls the Read chunks and puts them
    // back at their positions; the message is whole at the last Read Response.
    c.inline_part = std::move(inline_part);
    c.waiting_for_reads = c.reads.size() == m->read_list.size();
    if (!c.waiting_for_reads) u.note = "too many regions advertised on this connection to follow them all";
  } else if (msg) {
    c.legacy_nfs = is_legacy_nfs(inline_part);
    u.rpc = std::move(inline_part);
    u.rpc_here = true;
  } else {
    u.note = "RDMA_NOMSG without a Read chunk carries no RPC message";
  }
  d.calls.emplace(m->xid, std::move(c));
}

void UlpTracker::try_complete(Side requester, Call& c, std::uint32_t frame, UlpFindings& out) {
  if (!c.waiting_for_reads) return;
  std::vector<std::uint8_t> rpc;
  std::size_t consumed = 0;  // octets of the inline part already placed
  std::size_t i = 0;
  while (i < c.reads.size()) {
    // RFC 8166 §3.4.5: segments with the same Position form one chunk,
    // inserted at that offset of the unreduced Payload stream.
    const std::uint32_t position = c.reads[i]->position;
    if (position < rpc.size()) return;  // positions out of order: not rebuilt
    const std::size_t before = position - rpc.size();
    if (before > c.inline_part.size() - consumed) return;
    rpc.insert(rpc.end(), c.inline_part.begin() + static_cast<std::ptrdiff_t>(consumed),
               c.inline_part.begin() + static_cast<std::ptrdiff_t>(consumed + before));
    consumed += before;
    for (; i < c.reads.size() && c.reads[i]->position == position; ++i)
      if (!gather(*c.reads[i], c.reads[i]->length, rpc)) return;  // not all read yet
    if (position) pad4(rpc);
    if (rpc.size() > kMaxMessage) return;
  }
  rpc.insert(rpc.end(), c.inline_part.begin() + static_cast<std::ptrdiff_t>(consumed), c.inline_part.end());
  c.waiting_for_reads = false;
  c.legacy_nfs = is_legacy_nfs(rpc);
  c.send->rpc_completed_in = frame;
  for (Advert* a : c.reads) {
    for (const auto& [at, piece] : a->pieces) held_ -= piece.size();
    a->pieces.clear();
  }
  (void)requester;
  out.completes = &completions_.emplace_back(UlpCompletion{c.send, c.frame, std::move(rpc)});
}

void UlpTracker::release(Call& c, Side requester) {
  for (Advert* a : c.reads) forget(requester, a);
  for (Advert* a : c.writes) forget(requester, a);
  c.reads.clear();
  c.writes.clear();
}

void UlpTracker::on_iser(Side side, std::uint32_t frame, UlpSend& u) {
  const auto m = ulp::iser::decode(wire::Bytes(u.payload.data(), u.payload.size()));
  if (!m) {
    u.note = "the iSER header does not decode: " + m.error().to_string();
    return;
  }
  if (m->opcode != static_cast<std::uint8_t>(ulp::iser::Opcode::kControl)) return;
  Direction& d = dir_[idx(side)];
  if (m->iscsi_opcode == ulp::iser::kScsiCommand) {
    // RFC 7145 §9.2: the target reads the Write STag's buffer by RDMA Read
    // and writes the Read STag's by RDMA Write.
    std::vector<Advert*>& task = d.tasks[m->itt];
    for (Advert* old : task) forget(side, old);
    task.clear();
    if (m->wsv)
      if (Advert* a = advertise(side, make(Advert::Kind::kIserWrite, m->write_stag, m->write_base_offset,
                                           Advert::kLengthNotStated, 0, 0, 0, m->itt, frame), u))
        task.push_back(a);
    if (m->rsv)
      if (Advert* a = advertise(side, make(Advert::Kind::kIserRead, m->read_stag, m->read_base_offset,
                                           Advert::kLengthNotStated, 0, 0, 0, m->itt, frame), u))
        task.push_back(a);
    if (task.empty()) d.tasks.erase(m->itt);
    if (d.tasks.size() > kMaxOpen) d.tasks.erase(d.tasks.begin());
  } else if (m->iscsi_opcode == ulp::iser::kScsiResponse) {
    // The task ends: its STags are the initiator's to invalidate or reuse.
    Direction& initiator = dir_[idx(other(side))];
    const auto task = initiator.tasks.find(m->itt);
    if (task != initiator.tasks.end()) {
      for (Advert* a : task->second) forget(other(side), a);
      initiator.tasks.erase(task);
    }
  }
}

}  // namespace rdmaconf::dissector
