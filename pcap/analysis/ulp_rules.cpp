// The ULP's use of RDMA, tied and checked (ulp_observer.hpp): the state the
// rules of reference/check/ulp.hpp need, kept per connection, and the
// findings worded for the report.
//
// RPC-over-RDMA (RFC 8166): the Requester is the side whose RPC Calls go
// out (the first RDMA_MSG CALL, or the first message when that is an
// RDMA_NOMSG Long Call); calls wait by XID with their read segments, Write
// chunks and Reply chunk until the Responder's reply with that XID. NFSv4.1
// backchannel calls (RFC 8267 §6.5.2: Short messages only, no chunks) go the
// other way and are counted, not tracked.
//
// iSER (RFC 7145): the initiator is the side that sends SCSI Commands; a
// command's task waits by its Initiator Task Tag with the STags it
// advertised, sized by its Expected Data Transfer Length, until the
// target's SCSI Response with that tag.
#include <cstdio>
#include <limits>
#include <map>

#include "analysis/hex.hpp"
#include "analysis/ulp_observer.hpp"

namespace rdmaconf::analysis {

namespace {

std::string range(std::uint32_t stag, std::uint64_t to, std::uint64_t length) {
  return "STag " + hex(stag) + " TO " + hex(to) + " (" + std::to_string(length) + " octets)";
}

// More calls or tasks than this waiting at once is no real peer (Linux
// grants 128 credits; open-iscsi queues 128 commands): matching stops.
constexpr std::size_t kMaxOpen = 4096;

}  // namespace

struct UlpObserver::Tracker {
  // ---- RPC-over-RDMA
  struct Call {
    // Its number, XID and frame, and every region it advertised in place
    // order (read segments, Write chunks' segments, the Reply chunk's): the
    // one list the ties, the invalidation and the views take them from.
    UlpCall id;
    std::vector<ulp::rpcrdma::WriteChunk> write_list;
    std::vector<std::vector<std::uint64_t>> written;  // per Write chunk, per segment
    std::optional<ulp::rpcrdma::WriteChunk> reply_chunk;
    std::vector<std::uint64_t> reply_written;
    std::optional<ulp::onc_rpc::Call> called;  // RDMA_MSG: what it calls
  };
  std::uint32_t granted = 1;  // RFC 8166 §3.3.3: one credit before the first reply
  std::map<std::uint32_t, Call> calls;
  // ---- iSER: a task's regions are the Write STag's, then the Read STag's
  // (each when its command advertised it).
  struct Task {
    UlpCall id;
  };
  std::map<std::uint32_t, Task> tasks;
  // ---- RDMA Write messages in progress (per side): untied, and reported
  bool write_untied[2] = {false, false};
  bool write_reported[2] = {false, false};
  bool write_to_reply_chunk[2] = {false, false};
  // Scratch: the regions of what is open, what each is (its tie, offset 0),
  // and where a Write's octets count.
  std::vector<check::Region> regions;
  std::vector<const UlpTie*> owners;
  std::vector<std::uint64_t*> counters;
};

namespace {

// The region of `kind` a call or task advertised, if any (iSER: one each).
const UlpTie* region_of(const UlpCall& c, UlpTie::Region kind) {
  for (const UlpTie& r : c.regions)
    if (r.kind == kind) return &r;
  return nullptr;
}

}  // namespace

std::string describe(const UlpTie& t) {
  using R = UlpTie::Region;
  switch (t.kind) {
    case R::kReadSegment: return "read segment " + std::to_string(t.segment) + " of call xid " + hex(t.tag);
    case R::kWriteChunk:
      return "Write chunk " + std::to_string(t.chunk) + " segment " + std::to_string(t.segment) + " of call xid " +
             hex(t.tag);
    case R::kReplyChunk: return "Reply chunk segment " + std::to_string(t.segment) + " of call xid " + hex(t.tag);
    case R::kIserWriteStag: return "Write STag of itt " + hex(t.tag);
    case R::kIserReadStag: return "Read STag of itt " + hex(t.tag);
  }
  return {};
}

UlpObserver::UlpObserver() = default;
UlpObserver::~UlpObserver() = default;

bool UlpObserver::tracking(bool synced) {
  if (tracking_stopped_) return false;
  if (!synced) {
    tracking_stopped_ = true;
    tracker_.reset();
    return false;
  }
  if (!tracker_) tracker_ = std::make_unique<Tracker>();
  return true;
}

void UlpObserver::find(const check::Outcome& v, int side, std::string text) {
  if (v) findings_.push_back(UlpFinding{*v, side, std::move(text)});
}

void UlpObserver::track_rpc(const ulp::rpcrdma::Message& m, const SendContext& c) {
  using ulp::rpcrdma::Proc;
  const bool call_msg = m.is(Proc::kMsg) && m.rpc_msg_type == ulp::onc_rpc::kCall;
  const bool reply_msg = m.is(Proc::kMsg) && m.rpc_msg_type == ulp::onc_rpc::kReply;
  if (client_side_ < 0 && !reply_msg && !m.is(Proc::kError)) client_side_ = c.side;
  const bool from_requester = client_side_ < 0 ? !reply_msg : c.side == client_side_;
  // A call from the Requester: RDMA_MSG CALL, or RDMA_NOMSG (a Long Call
  // whose RPC message is in a position-zero Read chunk).
  if (from_requester && (call_msg || m.is(Proc::kNoMsg))) {
    ++stats_.operations[m.rpc_call ? ulp::rpcrdma::rpc_procedure_name(*m.rpc_call) : std::string("Long Call")];
  } else if (!from_requester && call_msg && m.rpc_call) {
    ++stats_.operations["backchannel " + ulp::rpcrdma::rpc_procedure_name(*m.rpc_call)];
  }
  if (!from_requester && c.with_invalidate) ++stats_.transfers.invalidations;
  Tracker* t = tracking(c.synced) ? tracker_.get() : nullptr;
  if (!t) return;

  if (from_requester && (call_msg || m.is(Proc::kNoMsg))) {
    Tracker::Call call;
    call.id = UlpCall{++calls_, m.xid, c.frame, {}};
    auto advertised = [&](UlpTie::Region kind, std::size_t chunk, std::size_t segment, const check::Region& r) {
      const auto place = static_cast<std::uint32_t>(call.id.regions.size());
      call.id.regions.push_back(UlpTie{kind, m.xid, static_cast<std::uint32_t>(chunk),
                                       static_cast<std::uint32_t>(segment), r, c.frame, call.id.number, place, 0});
    };
    for (std::size_t j = 0; j < m.read_list.size(); ++j) {
      const auto& r = m.read_list[j].target;
      advertised(UlpTie::Region::kReadSegment, 0, j + 1, {r.handle, r.offset, r.length});
    }
    for (std::size_t i = 0; i < m.write_list.size(); ++i)
      for (std::size_t j = 0; j < m.write_list[i].segments.size(); ++j) {
        const auto& s = m.write_list[i].segments[j];
        advertised(UlpTie::Region::kWriteChunk, i + 1, j + 1, {s.handle, s.offset, s.length});
      }
    if (m.reply_chunk)
      for (std::size_t j = 0; j < m.reply_chunk->segments.size(); ++j) {
        const auto& s = m.reply_chunk->segments[j];
        advertised(UlpTie::Region::kReplyChunk, 0, j + 1, {s.handle, s.offset, s.length});
      }
    call.write_list = m.write_list;
    for (const auto& w : m.write_list) call.written.emplace_back(w.segments.size(), 0);
    call.reply_chunk = m.reply_chunk;
    call.called = m.rpc_call;
    if (m.rpc_call) {
      std::size_t reduced = 0;
      for (const auto& r : m.read_list) reduced += r.position != 0;
      find(check::ddp_eligible_only(*m.rpc_call, reduced, 0), c.side,
           "call xid " + hex(m.xid) + " (" + ulp::rpcrdma::rpc_procedure_name(*m.rpc_call) + ") reduces " +
               std::to_string(reduced) + " read segments after position zero, an argument its binding does not "
               "make DDP-eligible");
    }
    if (m.reply_chunk) call.reply_written.assign(m.reply_chunk->segments.size(), 0);
    Tracker::Call& kept = t->calls[m.xid] = std::move(call);
    find(check::credit_limit(t->calls.size(), t->granted), c.side,
         "call xid " + hex(m.xid) + " makes " + std::to_string(t->calls.size()) +
             " calls awaiting replies; the Responder last granted " + std::to_string(t->granted) + " credits");
    if (t->calls.size() > kMaxOpen) tracking(false);
    else last_.opens = kept.id;
    return;
  }
  if (from_requester) return;  // a backchannel reply
  if (call_msg) return;        // a backchannel call
  // A reply (RDMA_MSG REPLY, RDMA_NOMSG, RDMA_ERROR) from the Responder.
  auto answered = [&](const UlpCall& call) { last_.answers = UlpCall{call.number, call.tag, call.frame, {}}; };
  if (m.is(Proc::kError)) {
    // RFC 8166 §4.5: the Responder answers a call it cannot process with
    // RDMA_ERROR under the call's XID; the call ends.
    if (const auto it = t->calls.find(m.xid); it != t->calls.end()) {
      answered(it->second.id);
      t->calls.erase(it);
    }
    return;
  }
  find(check::reply_read_list_empty(m), c.side,
       "reply xid " + hex(m.xid) + " carries a Read list of " + std::to_string(m.read_list.size()) + " segments");
  find(check::grant_not_zero(m), c.side, "reply xid " + hex(m.xid) + " grants 0 credits");
  // A zero grant is the Responder's fault (reported above); the Requester
  // is judged against the last grant it could use.
  if (m.credits != 0) t->granted = m.credits;
  const auto it = t->calls.find(m.xid);
  if (it == t->calls.end()) return;
  ++stats_.transfers.replies_matched;
  const Tracker::Call& call = it->second;
  answered(call.id);
  for (std::size_t i = 0; i < call.write_list.size(); ++i) {
    const auto* returned = i < m.write_list.size() ? &m.write_list[i] : nullptr;
    auto v = check::write_chunk_echoed(call.write_list[i], returned, call.written[i]);
    if (v)
      find(v, c.side,
           "reply xid " + hex(m.xid) + " Write chunk " + std::to_string(i + 1) + ": " + std::string(v->field) + " " +
               std::to_string(v->seen) + ", the call advertised or the Writes put " + std::to_string(v->expected));
  }
  if (call.called) {
    std::size_t reduced = 0;
    for (const auto& w : m.write_list) {
      std::uint64_t n = 0;
      for (const auto& seg : w.segments) n += seg.length;
      reduced += n != 0;
    }
    find(check::ddp_eligible_only(*call.called, 0, reduced), c.side,
         "reply xid " + hex(m.xid) + " (" + ulp::rpcrdma::rpc_procedure_name(*call.called) + ") returns " +
             std::to_string(reduced) + " Write chunks with data, a result its binding does not make DDP-eligible");
  }
  if (call.reply_chunk) {
    // RFC 8166 §4.3.3 lets the Responder answer inline (a Short reply)
    // when the reply fits; the chunk is then copied with nothing in it.
    auto v = check::reply_chunk_echoed(*call.reply_chunk, m.reply_chunk ? &*m.reply_chunk : nullptr,
                                       call.reply_written);
    if (v)
      find(v, c.side,
           "reply xid " + hex(m.xid) + " Reply chunk: " + std::string(v->field) + " " + std::to_string(v->seen) +
               ", the call advertised or the Writes put " + std::to_string(v->expected));
  }
  if (c.with_invalidate) {
    // RFC 5040 §5.3: the STag it invalidates, the first of the call's
    // regions (in place order) with that STag.
    for (const UlpTie& r : call.id.regions)
      if (r.region.stag == c.invalidate_stag) {
        last_.invalidates = r;
        break;
      }
    stats_.transfers.invalidations_tied += last_.invalidates.has_value();
  }
  t->calls.erase(it);
}

void UlpObserver::track_iser(const ulp::iser::Message& m, const SendContext& c) {
  using namespace ulp::iser;
  if (m.iscsi_opcode == kScsiCommand) {
    const std::string_view cdb = scsi_opcode_name(m.cdb_opcode);
    ++stats_.operations[cdb.empty() ? "operation " + hex(m.cdb_opcode) : std::string(cdb)];
  }
  // RFC 7143 §11.2.1.2: initiator opcodes are 0x00-0x1f, target ones 0x20-0x3f.
  if (client_side_ < 0 && m.iscsi_opcode < 0x20) client_side_ = c.side;
  if (m.iscsi_opcode >= 0x20 && c.with_invalidate) ++stats_.transfers.invalidations;
  Tracker* t = tracking(c.synced) ? tracker_.get() : nullptr;
  if (!t) return;
  if (m.iscsi_opcode == kScsiCommand) {
    if (c.side != client_side_) return;
    Tracker::Task task;
    task.id = UlpCall{++calls_, m.itt, c.frame, {}};
    auto advertised = [&](UlpTie::Region kind, const check::Region& r) {
      const auto place = static_cast<std::uint32_t>(task.id.regions.size());
      task.id.regions.push_back(UlpTie{kind, m.itt, 0, 0, r, c.frame, task.id.number, place, 0});
    };
    const std::uint64_t edtl = m.expected_data_transfer_length;
    // A bidirectional command sizes its read buffer in an AHS this decoder
    // does not read: its read buffer is bounded by its start only.
    const bool bidi = m.scsi_read && m.scsi_write;
    if (m.wsv) advertised(UlpTie::Region::kIserWriteStag, {m.write_stag, m.write_base_offset, edtl});
    if (m.rsv)
      advertised(UlpTie::Region::kIserReadStag,
                 {m.read_stag, m.read_base_offset,
                  bidi ? std::numeric_limits<std::uint64_t>::max() - m.read_base_offset : edtl});
    Tracker::Task& kept = t->tasks[m.itt] = std::move(task);
    if (t->tasks.size() > kMaxOpen) tracking(false);
    else last_.opens = kept.id;
    return;
  }
  if (m.iscsi_opcode != kScsiResponse || c.side == client_side_) return;
  const auto it = t->tasks.find(m.itt);
  if (it == t->tasks.end()) return;
  ++stats_.transfers.replies_matched;
  const Tracker::Task& task = it->second;
  last_.answers = UlpCall{task.id.number, task.id.tag, task.id.frame, {}};
  if (c.with_invalidate) {
    // RFC 7145 §7.3.2: the STag it may invalidate is the Read STag, else the Write STag.
    const UlpTie* read = region_of(task.id, UlpTie::Region::kIserReadStag);
    const UlpTie* named = read ? read : region_of(task.id, UlpTie::Region::kIserWriteStag);
    const std::optional<std::uint32_t> stag = named ? std::optional(named->region.stag) : std::nullopt;
    auto v = check::response_invalidates_task_stag(c.invalidate_stag, stag);
    stats_.transfers.invalidations_tied += !v;
    if (!v && named) last_.invalidates = *named;
    find(v, c.side,
         "SCSI Response itt " + hex(m.itt) + " sent with Invalidate STag " + hex(c.invalidate_stag) +
             (stag ? ", its command advertised " + std::string(read ? "Read" : "Write") + " STag " + hex(*stag)
                   : ", its command advertised no STag"));
  }
  t->tasks.erase(it);
}

const UlpTie* UlpObserver::on_write(int side, std::uint32_t stag, std::uint64_t to, std::uint32_t length,
                                         bool last, bool synced) {
  // SMB Direct's buffer descriptors are not tied to RDMA traffic (yet).
  if (stats_.ulp == Ulp::kUnknown || stats_.ulp == Ulp::kSmbDirect) return nullptr;
  Tracker* t = tracking(synced) ? tracker_.get() : nullptr;
  if (!t) return nullptr;
  const bool rpc = stats_.ulp == Ulp::kRpcRdma;
  // Only the Responder's (target's) Writes use what the other side advertised.
  if (client_side_ < 0 || side == client_side_) return nullptr;
  t->regions.clear();
  t->counters.clear();
  t->owners.clear();
  auto open = [t](const UlpTie& r) {
    t->regions.push_back(r.region);
    t->owners.push_back(&r);
  };
  if (rpc) {
    // The Write chunks' and Reply chunk's segments, call by call.
    for (auto& [xid, call] : t->calls)
      for (const UlpTie& r : call.id.regions) {
        if (r.kind == UlpTie::Region::kWriteChunk) t->counters.push_back(&call.written[r.chunk - 1][r.segment - 1]);
        else if (r.kind == UlpTie::Region::kReplyChunk) t->counters.push_back(&call.reply_written[r.segment - 1]);
        else continue;
        open(r);
      }
  } else {
    for (const auto& [itt, task] : t->tasks)
      if (const UlpTie* read = region_of(task.id, UlpTie::Region::kIserReadStag)) open(*read);
  }
  const auto at = check::region_holding(t->regions, stag, to, length);
  const int s = side & 1;
  const UlpTie* tie = nullptr;
  if (at) {
    tie_ = *t->owners[*at];
    tie_.offset = to - tie_.region.offset;
    tie = &tie_;
    if (rpc) {
      *t->counters[*at] += length;
      t->write_to_reply_chunk[s] = tie_.kind == UlpTie::Region::kReplyChunk;
    }
  } else {
    t->write_untied[s] = true;
    if (!t->write_reported[s]) {
      t->write_reported[s] = true;
      const std::string open = rpc ? std::to_string(t->calls.size()) + " calls awaiting replies"
                                   : std::to_string(t->tasks.size()) + " open SCSI commands";
      find(rpc ? check::write_within_chunk(stag, to, length, t->regions)
               : check::write_uses_read_stag(stag, to, length, t->regions),
           side,
           "RDMA Write to " + range(stag, to, length) + " lands outside every " +
               (rpc ? "Write or Reply chunk segment" : "Read STag buffer") + " of the " + open);
    }
  }
  stats_.transfers.write_octets += length;
  if (last) {
    ++stats_.transfers.writes;
    if (!t->write_untied[s]) {
      ++stats_.transfers.writes_tied;
      if (rpc) ++(t->write_to_reply_chunk[s] ? stats_.transfers.writes_to_reply_chunks
                                              : stats_.transfers.writes_to_write_chunks);
    }
    t->write_untied[s] = t->write_reported[s] = t->write_to_reply_chunk[s] = false;
  }
  return tie;
}

const UlpTie* UlpObserver::on_read_request(int side, std::uint32_t source_stag, std::uint64_t source_to,
                                           std::uint32_t size, bool synced) {
  // SMB Direct's buffer descriptors are not tied to RDMA traffic (yet).
  if (stats_.ulp == Ulp::kUnknown || stats_.ulp == Ulp::kSmbDirect) return nullptr;
  Tracker* t = tracking(synced) ? tracker_.get() : nullptr;
  if (!t) return nullptr;
  const bool rpc = stats_.ulp == Ulp::kRpcRdma;
  if (client_side_ < 0 || side == client_side_) return nullptr;
  ++stats_.transfers.reads;
  stats_.transfers.read_octets += size;
  // RFC 7145 §7.3.5 lets an iSER target follow its Writes with a
  // zero-length Read Request (a flush): it reads nothing and names no buffer.
  if (size == 0) return nullptr;
  t->regions.clear();
  t->owners.clear();
  auto open = [t](const UlpTie& r) {
    t->regions.push_back(r.region);
    t->owners.push_back(&r);
  };
  if (rpc) {
    for (const auto& [xid, call] : t->calls)
      for (const UlpTie& r : call.id.regions)
        if (r.kind == UlpTie::Region::kReadSegment) open(r);
  } else {
    for (const auto& [itt, task] : t->tasks)
      if (const UlpTie* write = region_of(task.id, UlpTie::Region::kIserWriteStag)) open(*write);
  }
  auto v = rpc ? check::read_within_read_chunk(source_stag, source_to, size, t->regions)
               : check::read_uses_write_stag(source_stag, source_to, size, t->regions);
  stats_.transfers.reads_tied += !v;
  const UlpTie* tie = nullptr;
  if (!v) {
    const auto at = check::region_holding(t->regions, source_stag, source_to, size);
    tie_ = *t->owners[at.value_or(0)];
    tie_.offset = source_to - tie_.region.offset;
    tie = &tie_;
  }
  find(v, side,
       "RDMA Read Request from " + range(source_stag, source_to, size) + " reads outside every " +
           (rpc ? "read segment of the " + std::to_string(t->calls.size()) + " calls awaiting replies"
                : "Write STag buffer of the " + std::to_string(t->tasks.size()) + " open SCSI commands"));
  return tie;
}

}  // namespace rdmaconf::analysis
