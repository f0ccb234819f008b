#include "agent/rdma_core/connection.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "agent/rdma_core/names.hpp"

namespace rdmaconf::agent::rdma_core {

namespace {
// The reference's layout (conformance/engine/responder_rdmap.cpp, register_all):
// the same names and lengths. A region's base TO is its virtual address:
// ibv_reg_mr_iova could choose the reference's TOs, yet a provider may take
// the iova and ignore it (Linux siw 6.1, siw_reg_user_mr: "rnic_va: not used
// by siw"), which would advertise addresses the device does not use.
struct BufferLayout {
  std::string_view name;
  std::size_t length;
};
constexpr BufferLayout kRw{"rw", 4096}, kRo{"ro", 1024}, kWo{"wo", 1024}, kLocal{"local", 1024}, kInv{"inv", 512},
    kNoinv{"noinv", 512}, kOtherpd{"otherpd", 512}, kStale{"stale", 512};

// The counting pattern every Send and Write payload is a prefix of, shared
// by all connections (each registers it in its own PD).
std::vector<std::uint8_t>& pattern() {
  static std::vector<std::uint8_t> p = [] {
    std::vector<std::uint8_t> v(Connection::kPatternLength);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint8_t>(i);
    return v;
  }();
  return p;
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}
}  // namespace

Connection::Connection(std::uint64_t h, rdma_cm_id* id, bool init, const DeviceFacts& facts)
    : handle(h), initiator(init), id_(id), facts_(facts) {
  limits_.pattern_length = kPatternLength;
  limits_.rw_length = static_cast<std::uint32_t>(kRw.length);
  limits_.max_message = facts.max_msg_sz;
  limits_.atomics = facts.atomics;
}

Connection::~Connection() {
  std::vector<Event> ignored;
  destroy(ignored);
}

bool Connection::peer_may_invalidate_mrs(const DeviceFacts& f) { return is_siw(f); }

std::vector<conformance::AdvertisedBuffer> Connection::advertised_buffers_template(const DeviceFacts& f) {
  std::vector<conformance::AdvertisedBuffer> v;
  // RFC 5040 §5.3: a Send with Invalidate invalidates the named STag when it
  // is associated with the stream; only one that is not gets "cannot be
  // invalidated". Where every region of the QP's PD may be invalidated, no
  // STag of the stream can serve as `noinv`, so none is advertised and its
  // cases are unimplemented instead of failing a conformant device.
  for (const BufferLayout& b : {kRw, kRo, kWo, kLocal, kInv, kNoinv, kOtherpd, kStale})
    if ((b.name != kInv.name || peer_may_invalidate_mrs(f)) && (b.name != kNoinv.name || !peer_may_invalidate_mrs(f)))
      v.push_back({std::string(b.name), 0, 0, static_cast<std::uint32_t>(b.length)});
  v.push_back({"recv", static_cast<std::uint32_t>(kRecvSlots), 0, static_cast<std::uint32_t>(kRecvSize)});
  return v;
}

Event Connection::event(EventKind kind, std::string name) const {
  Event e;
  e.kind = kind;
  e.handle = handle;
  e.local = local;
  e.peer = peer;
  e.name = std::move(name);
  return e;
}

void Connection::note(std::vector<Event>& out, const char* name, std::string detail) const {
  Event e = event(EventKind::kAsync, name);
  e.detail = std::move(detail);
  out.push_back(std::move(e));
}

bool Connection::reg(Region& r, ibv_pd* pd, std::size_t length, int access, std::string& error) {
  r.octets.assign(length, 0);
  r.mr = ibv_reg_mr(pd, r.octets.data(), length, access);
  r.base = reinterpret_cast<std::uintptr_t>(r.octets.data());
  if (!r.mr) error = std::string("ibv_reg_mr (") + std::to_string(length) + " octets): " + std::strerror(errno);
  return r.mr != nullptr;
}

bool Connection::reg_pattern(std::string& error) {
  // An int, not the enumerator: ibv_reg_mr's macro masks it with another enum type.
  const int access = IBV_ACCESS_LOCAL_WRITE;
  pattern_mr_ = ibv_reg_mr(pd_, pattern().data(), pattern().size(), access);
  if (!pattern_mr_) error = std::string("ibv_reg_mr (send pattern): ") + std::strerror(errno);
  return pattern_mr_ != nullptr;
}

bool Connection::create_resources(ibv_comp_channel* comp, std::string& error) {
  ibv_context* ctx = id_->verbs;
  pd_ = ibv_alloc_pd(ctx);
  other_pd_ = ibv_alloc_pd(ctx);
  if (!pd_ || !other_pd_) {
    error = std::string("ibv_alloc_pd: ") + std::strerror(errno);
    return false;
  }
  const int cqe = kSendQueueDepth + static_cast<int>(kRecvSlots) + 16;
  cq_ = ibv_create_cq(ctx, cqe, this, comp, 0);
  if (!cq_ || ibv_req_notify_cq(cq_, 0) != 0) {
    error = std::string("ibv_create_cq: ") + std::strerror(errno);
    return false;
  }
  ibv_qp_init_attr qa{};
  qa.send_cq = qa.recv_cq = cq_;
  qa.qp_type = IBV_QPT_RC;
  qa.sq_sig_all = 1;  // every work request completes visibly: all are reported
  qa.cap.max_send_wr = kSendQueueDepth;
  qa.cap.max_recv_wr = kRecvSlots;
  qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
  if (rdma_create_qp(id_, pd_, &qa) != 0) {
    error = std::string("rdma_create_qp: ") + std::strerror(errno);
    return false;
  }
  qp_ = true;
  gate_ = SendQueueGate(std::max<std::uint32_t>(1, qa.cap.max_send_wr), kMaxWaiting);

  // RFC 5040 §5 / RFC 5042 §5: each buffer's rights as the profile names
  // them. An RDMA Read's Data Sink takes remote writes (RFC 5040 §4.4), so
  // `rw` is also where the IUT's own Reads land.
  const int remote_all = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
                         (facts_.atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0);
  const bool ok = reg(rw_, pd_, kRw.length, remote_all, error) &&
                  reg(ro_, pd_, kRo.length, IBV_ACCESS_REMOTE_READ, error) &&
                  reg(wo_, pd_, kWo.length, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, error) &&
                  reg(local_, pd_, kLocal.length, IBV_ACCESS_LOCAL_WRITE, error) &&
                  (!peer_may_invalidate_mrs(facts_) || reg(inv_, pd_, kInv.length, remote_all, error)) &&
                  reg(noinv_, pd_, kNoinv.length, remote_all, error) &&
                  // RFC 5042 §5.1: registered in a protection domain the QP is not in.
                  reg(otherpd_, other_pd_, kOtherpd.length, remote_all, error) &&
                  reg(recv_, pd_, kRecvSlots * kRecvSize, IBV_ACCESS_LOCAL_WRITE, error) &&
                  reg(echo_, pd_, kEchoSlots * kRecvSize, IBV_ACCESS_LOCAL_WRITE, error) &&
                  reg(adv_, pd_, 512, IBV_ACCESS_LOCAL_WRITE, error) &&
                  reg(atomic_, pd_, 64, IBV_ACCESS_LOCAL_WRITE, error) && reg_pattern(error);
  if (!ok) return false;
  // ro's octets are a pattern a Read can be checked against (as the reference's).
  for (std::size_t i = 0; i < ro_.octets.size(); ++i) ro_.octets[i] = static_cast<std::uint8_t>(i * 3 + 5);
  // `stale`: registered, then deregistered, last so that no later region
  // of this connection takes its STag.
  Region stale;
  if (!reg(stale, pd_, kStale.length, remote_all, error)) return false;
  stale_stag_ = stale.mr->rkey;
  ibv_dereg_mr(stale.mr);
  std::vector<Event> ignored;
  for (std::size_t i = 0; i < kRecvSlots; ++i) post_receive(i, ignored);
  if (!ignored.empty()) {
    error = ignored.front().detail;
    return false;
  }
  return true;
}

const std::vector<std::uint8_t>& Connection::reply_advertisement(std::size_t budget) {
  auto ads = advertised_buffers_template(facts_);
  for (auto& a : ads) {
    const std::string& n = a.name;
    const Region* r = n == "rw" ? &rw_ : n == "ro" ? &ro_ : n == "wo" ? &wo_ : n == "local" ? &local_
                    : n == "inv" ? &inv_ : n == "noinv" ? &noinv_ : n == "otherpd" ? &otherpd_ : nullptr;
    if (r && r->mr) {
      a.stag = r->mr->rkey;
      a.base_to = r->base;
    }
    if (n == "stale") a.stag = stale_stag_;
  }
  reply_ad_ = fit_advertisement(ads, initiator ? kMpaPrivateDataMax : budget).octets;
  return reply_ad_;
}

void Connection::send_advertisement(std::vector<Event>& out) {
  const auto& ad = reply_advertisement(adv_.octets.size());
  std::copy(ad.begin(), ad.end(), adv_.octets.begin());
  PlannedWr w;
  w.kind = WrKind::kSend;
  w.local = LocalBuffer::kAdvertisement;
  w.length = static_cast<std::uint32_t>(ad.size());
  w.wr_id = encode_wr_id({WrPurpose::kAdvertisement, 0, 0});
  if (!gate_.push(w)) note(out, "send_dropped", "advertisement: the send queue's waiting list is full");
  pump(out);
}

void Connection::post_receive(std::size_t slot, std::vector<Event>& out) {
  ibv_sge sge{};
  sge.addr = recv_.base + slot * kRecvSize;
  sge.length = kRecvSize;
  sge.lkey = recv_.mr->lkey;
  ibv_recv_wr wr{};
  wr.wr_id = encode_wr_id({WrPurpose::kReceive, 0, slot});
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (const int rc = ibv_post_recv(id_->qp, &wr, &bad); rc != 0)
    note(out, "post_recv_failed", "receive slot " + std::to_string(slot) + ": " + std::strerror(rc));
}

int Connection::post(const PlannedWr& w) {
  ibv_sge sge{};
  sge.length = w.length;
  const auto index = decode_wr_id(w.wr_id).value_or(WrId{}).index;
  switch (w.local) {
    case LocalBuffer::kPattern:
      sge.addr = reinterpret_cast<std::uintptr_t>(pattern().data());
      sge.lkey = pattern_mr_->lkey;
      break;
    case LocalBuffer::kRw:
      sge.addr = rw_.base;
      sge.lkey = rw_.mr->lkey;
      break;
    case LocalBuffer::kAtomicResult:
      sge.addr = atomic_.base;
      sge.lkey = atomic_.mr->lkey;
      break;
    case LocalBuffer::kEcho:
      sge.addr = echo_.base + index * kRecvSize;
      sge.lkey = echo_.mr->lkey;
      break;
    case LocalBuffer::kAdvertisement:
      sge.addr = adv_.base;
      sge.lkey = adv_.mr->lkey;
      break;
  }
  ibv_send_wr wr{};
  wr.wr_id = w.wr_id;
  wr.sg_list = &sge;
  wr.num_sge = w.length > 0 ? 1 : 0;  // a zero-length Send or Write carries no SGE
  wr.send_flags = IBV_SEND_SIGNALED | (w.fence ? IBV_SEND_FENCE : 0);
  switch (w.kind) {
    case WrKind::kSend: wr.opcode = IBV_WR_SEND; break;
    case WrKind::kRdmaWrite: wr.opcode = IBV_WR_RDMA_WRITE; break;
    case WrKind::kRdmaRead: wr.opcode = IBV_WR_RDMA_READ; break;
    case WrKind::kAtomicFetchAdd: wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD; break;
    case WrKind::kAtomicCmpSwap: wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP; break;
  }
  if (w.kind == WrKind::kAtomicFetchAdd || w.kind == WrKind::kAtomicCmpSwap) {
    wr.wr.atomic.remote_addr = w.remote_addr;
    wr.wr.atomic.rkey = w.rkey;
    wr.wr.atomic.compare_add = w.compare_add;
    wr.wr.atomic.swap = w.swap;
  } else if (w.kind != WrKind::kSend) {
    wr.wr.rdma.remote_addr = w.remote_addr;
    wr.wr.rdma.rkey = w.rkey;
  }
  ibv_send_wr* bad = nullptr;
  return ibv_post_send(id_->qp, &wr, &bad);
}

void Connection::pump(std::vector<Event>& out) {
  if (!qp_ || destroyed_) return;
  while (auto w = gate_.next()) {
    const int rc = post(*w);
    if (rc == 0) {
      gate_.posted();
      continue;
    }
    if (rc == ENOMEM && gate_.in_flight() > 0) {  // the queue is full after all: wait for a completion
      gate_.requeue_front(*w);
      return;
    }
    note(out, "post_send_failed", describe_wr_id(w->wr_id) + ": ibv_post_send: " + std::strerror(rc));
    if (w->local == LocalBuffer::kEcho) echo_busy_[decode_wr_id(w->wr_id).value_or(WrId{}).index] = false;
  }
}

void Connection::on_cq_event(std::vector<Event>& out) {
  if (ibv_req_notify_cq(cq_, 0) != 0) note(out, "cq_error", "ibv_req_notify_cq failed");
  drain(out);
  pump(out);
}

void Connection::drain(std::vector<Event>& out) {
  ibv_wc wc[16];
  for (int guard = 0; guard < 1024; ++guard) {  // bounded even against a CQ that keeps producing
    const int n = ibv_poll_cq(cq_, 16, wc);
    if (n < 0) {
      note(out, "cq_error", "ibv_poll_cq failed");
      return;
    }
    if (n == 0) return;
    for (int i = 0; i < n; ++i) on_wc(wc[i], out);
  }
}

void Connection::on_wc(const ibv_wc& wc, std::vector<Event>& out) {
  const bool ok = wc.status == IBV_WC_SUCCESS;
  Event e = event(EventKind::kCompletion, completion_name(ok, wc.opcode, wc.wr_id));
  e.status = wc_status_words(wc.status);
  e.byte_len = wc.byte_len;
  e.wr_id = wc.wr_id;
  e.detail = describe_wr_id(wc.wr_id) + "; " + wc_status_id(wc.status);
  if (!ok && wc.vendor_err != 0) e.detail += "; vendor_err " + hex32(wc.vendor_err);
  if (ok && (wc.wc_flags & IBV_WC_WITH_INV)) e.detail += "; invalidated STag " + hex32(wc.invalidated_rkey);
  if (ok && (wc.wc_flags & IBV_WC_WITH_IMM)) e.detail += "; immediate " + hex32(ntohl(wc.imm_data));
  out.push_back(std::move(e));

  const auto w = decode_wr_id(wc.wr_id);
  if (w && w->purpose == WrPurpose::kReceive) {
    if (!ok || destroyed_) return;  // the queue pair is in error: nothing to post again
    if (wc.opcode == IBV_WC_RECV && w->index < kRecvSlots) on_receive(w->index, wc.byte_len, out);
    if (w->index < kRecvSlots) post_receive(w->index, out);
    return;
  }
  gate_.completed();  // a send-queue work request ended, successfully or not
  if (w && w->purpose == WrPurpose::kEcho && w->index < kEchoSlots) echo_busy_[w->index] = false;
}

void Connection::on_receive(std::size_t slot, std::uint32_t byte_len, std::vector<Event>& out) {
  const std::size_t n = std::min<std::size_t>(byte_len, kRecvSize);
  const std::uint8_t* at = recv_.octets.data() + slot * kRecvSize;
  if (auto command = conformance::parse_command(wire::Bytes(at, n))) {
    // A test ULP command is obeyed, not echoed.
    CommandPlan plan = plan_command(*command, limits_, sequence_);
    for (const std::string& r : plan.refused) note(out, "command_refused", r);
    for (const std::string& s : plan.shortened) note(out, "command_shortened", s);
    for (PlannedWr& w : plan.wrs)
      if (!gate_.push(w)) {
        note(out, "command_dropped", describe_wr_id(w.wr_id) + ": the send queue's waiting list is full");
        break;
      }
    return;
  }
  // The test ULP echoes every Send with the same payload.
  const auto free_slot = std::find(echo_busy_.begin(), echo_busy_.end(), false);
  if (free_slot == echo_busy_.end()) {
    note(out, "echo_dropped", "receive slot " + std::to_string(slot) + ": every echo buffer is still in flight");
    return;
  }
  const auto e = static_cast<std::size_t>(free_slot - echo_busy_.begin());
  std::copy_n(at, n, echo_.octets.begin() + static_cast<std::ptrdiff_t>(e * kRecvSize));
  PlannedWr w;
  w.kind = WrKind::kSend;
  w.local = LocalBuffer::kEcho;
  w.length = static_cast<std::uint32_t>(n);
  w.wr_id = encode_wr_id({WrPurpose::kEcho, 0, e});
  if (gate_.push(w)) echo_busy_[e] = true;
  else note(out, "echo_dropped", "the send queue's waiting list is full");
}

void Connection::destroy(std::vector<Event>& out) {
  if (destroyed_) return;
  destroyed_ = true;
  if (established && !disconnected) rdma_disconnect(id_);
  if (cq_) drain(out);  // what completed up to now is still reported
  if (qp_) rdma_destroy_qp(id_);
  qp_ = false;
  for (Region* r : {&rw_, &ro_, &wo_, &local_, &inv_, &noinv_, &otherpd_, &recv_, &echo_, &adv_, &atomic_})
    if (r->mr) {
      ibv_dereg_mr(r->mr);
      r->mr = nullptr;
    }
  if (pattern_mr_) ibv_dereg_mr(pattern_mr_);
  pattern_mr_ = nullptr;
  if (cq_) ibv_destroy_cq(cq_);
  cq_ = nullptr;
  if (pd_) ibv_dealloc_pd(pd_);
  if (other_pd_) ibv_dealloc_pd(other_pd_);
  pd_ = other_pd_ = nullptr;
}

}  // namespace rdmaconf::agent::rdma_core
