#include "agent/rdma_core/roce_transport.hpp"

#include <fcntl.h>
#include <net/if.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>
#include <utility>

#include "agent/rdma_core/names.hpp"
#include "agent/rdma_core/roce_plan.hpp"

namespace rdmaconf::agent::rdma_core {
namespace {

std::string errno_text(int e) { return std::to_string(e) + " (" + std::strerror(e) + ")"; }

std::optional<smcr::Mac> mac_of_interface(std::uint32_t ifindex) {
  char name[IF_NAMESIZE] = {};
  if (::if_indextoname(ifindex, name) == nullptr) return std::nullopt;
  std::ifstream f(std::string("/sys/class/net/") + name + "/address");
  std::string text;
  if (!(f >> text) || text.size() != 17) return std::nullopt;
  smcr::Mac mac = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    unsigned octet = 0;
    if (std::sscanf(text.c_str() + 3 * i, "%2x", &octet) != 1) return std::nullopt;
    mac = mac << 8 | octet;
  }
  return mac;
}

bool ipv4_mapped(const std::uint8_t* g) {
  return std::all_of(g, g + 10, [](std::uint8_t b) { return b == 0; }) && g[10] == 0xff && g[11] == 0xff;
}

}  // namespace

// -------------------------------------------------------------- RoceQueuePair

RoceQueuePair::~RoceQueuePair() { close(); }

bool RoceQueuePair::open(std::string& error) {
  ibv_context* ctx = port_.ctx;
  pd_ = ibv_alloc_pd(ctx);
  if (pd_ == nullptr) return error = "ibv_alloc_pd: " + errno_text(errno), false;
  const int depth = static_cast<int>(kSendDepth + kReceives);
  cq_ = ibv_create_cq(ctx, depth, nullptr, nullptr, 0);
  if (cq_ == nullptr) return error = "ibv_create_cq: " + errno_text(errno), false;
  ibv_qp_init_attr init{};
  init.send_cq = cq_;
  init.recv_cq = cq_;
  init.qp_type = IBV_QPT_RC;
  init.sq_sig_all = 1;  // every Send and Write completes visibly: the staging ring is freed in order
  init.cap.max_send_wr = kSendDepth;
  init.cap.max_recv_wr = kReceives;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  qp_ = ibv_create_qp(pd_, &init);
  if (qp_ == nullptr) return error = "ibv_create_qp: " + errno_text(errno), false;
  number_ = qp_->qp_num;
  QpTransition t = plan_init(port_.port);
  if (const int rc = ibv_modify_qp(qp_, &t.attr, t.mask); rc != 0)
    return error = "ibv_modify_qp(INIT): " + errno_text(rc), false;
  receive_buffers_.assign(kReceives * kReceiveSize, 0);
  staging_.assign(kStaging, 0);
  // The access flags as an int: ibv_reg_mr is a macro that masks them with another enum.
  const int local_write = IBV_ACCESS_LOCAL_WRITE, none = 0;
  receive_mr_ = ibv_reg_mr(pd_, receive_buffers_.data(), receive_buffers_.size(), local_write);
  staging_mr_ = ibv_reg_mr(pd_, staging_.data(), staging_.size(), none);
  if (receive_mr_ == nullptr || staging_mr_ == nullptr) return error = "ibv_reg_mr: " + errno_text(errno), false;
  for (std::uint32_t slot = 0; slot < kReceives; ++slot) {
    ibv_sge sge{reinterpret_cast<std::uintptr_t>(receive_buffers_.data() + slot * kReceiveSize),
                static_cast<std::uint32_t>(kReceiveSize), receive_mr_->lkey};
    ibv_recv_wr wr{};
    wr.wr_id = receive_wr_id(slot);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    if (const int rc = ibv_post_recv(qp_, &wr, &bad); rc != 0)
      return error = "ibv_post_recv: " + errno_text(rc), false;
  }
  return true;
}

void RoceQueuePair::close() {
  host_.deregister_all(*this);
  if (qp_ != nullptr) ibv_destroy_qp(qp_);
  if (receive_mr_ != nullptr) ibv_dereg_mr(receive_mr_);
  if (staging_mr_ != nullptr) ibv_dereg_mr(staging_mr_);
  if (cq_ != nullptr) ibv_destroy_cq(cq_);
  if (pd_ != nullptr) ibv_dealloc_pd(pd_);
  qp_ = nullptr;
  receive_mr_ = staging_mr_ = nullptr;
  cq_ = nullptr;
  pd_ = nullptr;
  broken_ = true;
  posted_.clear();
  ring_ = StagingRing(kStaging);
}

smcr::WorkId RoceQueuePair::post_send(wire::Bytes message) { return post(smcr::WorkOp::kSend, {}, message); }

smcr::WorkId RoceQueuePair::post_write(smcr::RToken target, wire::Bytes octets) {
  return post(smcr::WorkOp::kWrite, target, octets);
}

smcr::WorkId RoceQueuePair::post(smcr::WorkOp op, smcr::RToken target, wire::Bytes octets) {
  const smcr::WorkId id = next_work_++;
  auto refuse = [&](const std::string& why) {
    if (!why.empty()) host_.note("QP " + std::to_string(number_) + ": work " + std::to_string(id) + " not posted: " + why);
    events_.push_back(completion_event(IBV_WC_WR_FLUSH_ERR, id, op));
    return id;
  };
  if (broken_ || qp_ == nullptr) return refuse("");
  if (op == smcr::WorkOp::kSend && octets.size() > kReceiveSize) return refuse("a Send above 8192 octets");
  if (octets.empty()) {  // nothing to move: done
    events_.push_back(completion_event(IBV_WC_SUCCESS, id, op));
    return id;
  }
  if (posted_.size() >= kSendDepth) return refuse("the send queue is full");
  const std::optional<std::size_t> at = ring_.reserve(octets.size());
  if (!at) return refuse("the staging ring is full");
  std::copy(octets.begin(), octets.end(), staging_.begin() + static_cast<std::ptrdiff_t>(*at));
  ibv_sge sge{reinterpret_cast<std::uintptr_t>(staging_.data() + *at), static_cast<std::uint32_t>(octets.size()),
              staging_mr_->lkey};
  ibv_send_wr wr{};
  wr.wr_id = id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.send_flags = IBV_SEND_SIGNALED;
  if (op == smcr::WorkOp::kSend) {
    wr.opcode = IBV_WR_SEND;
  } else {
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.wr.rdma.remote_addr = target.virtual_address;
    wr.wr.rdma.rkey = target.rkey;
  }
  ibv_send_wr* bad = nullptr;
  if (const int rc = ibv_post_send(qp_, &wr, &bad); rc != 0) {
    ring_.cancel_last();
    return refuse("ibv_post_send: " + errno_text(rc));
  }
  posted_.push_back({id, op, *at + octets.size()});
  return id;
}

void RoceQueuePair::enter_error(smcr::WorkStatus why, const std::string& what) {
  if (broken_) return;
  broken_ = true;
  host_.note("QP " + std::to_string(number_) + " in error: " + what);
  if (qp_ != nullptr) {
    // Into the error state: the device flushes the rest of the work.
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_ERR;
    (void)ibv_modify_qp(qp_, &a, IBV_QP_STATE);
  }
  smcr::QpEvent e;
  e.kind = smcr::QpEvent::Kind::kError;
  e.status = why;
  events_.push_back(std::move(e));
}

void RoceQueuePair::take_completions() {
  if (cq_ == nullptr) return;
  ibv_wc wc[16];
  for (;;) {
    const int n = ibv_poll_cq(cq_, 16, wc);
    if (n <= 0) return;
    for (int i = 0; i < n; ++i) {
      const ibv_wc& c = wc[i];
      if (is_receive(c.wr_id)) {
        const std::uint32_t slot = receive_slot(c.wr_id);
        if (c.status != IBV_WC_SUCCESS || slot >= kReceives) {
          if (c.status != IBV_WC_WR_FLUSH_ERR)
            enter_error(work_status(c.status), std::string("receive: ") + wc_status_words(c.status));
          continue;
        }
        const std::uint8_t* buffer = receive_buffers_.data() + slot * kReceiveSize;
        smcr::QpEvent e;
        e.kind = smcr::QpEvent::Kind::kReceive;
        e.octets.assign(buffer, buffer + std::min<std::size_t>(c.byte_len, kReceiveSize));
        events_.push_back(std::move(e));
        ibv_sge sge{reinterpret_cast<std::uintptr_t>(buffer), static_cast<std::uint32_t>(kReceiveSize),
                    receive_mr_->lkey};
        ibv_recv_wr wr{};
        wr.wr_id = c.wr_id;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        ibv_recv_wr* bad = nullptr;
        if (!broken_ && ibv_post_recv(qp_, &wr, &bad) != 0) host_.note("QP " + std::to_string(number_) + ": a receive not reposted");
        continue;
      }
      // Send queue: completions come in posting order (every request signalled).
      smcr::WorkOp op = smcr::WorkOp::kSend;
      while (!posted_.empty() && posted_.front().id != c.wr_id) {  // never: in order
        ring_.release(posted_.front().end);
        posted_.pop_front();
      }
      if (!posted_.empty()) {
        op = posted_.front().op;
        ring_.release(posted_.front().end);
        posted_.pop_front();
      }
      events_.push_back(completion_event(c.status, c.wr_id, op));
      if (c.status != IBV_WC_SUCCESS && c.status != IBV_WC_WR_FLUSH_ERR)
        enter_error(work_status(c.status), std::string(op == smcr::WorkOp::kSend ? "Send" : "Write") + " work " +
                                               std::to_string(c.wr_id) + ": " + wc_status_words(c.status) +
                                               " (vendor error " + std::to_string(c.vendor_err) + ")");
    }
  }
}

std::optional<smcr::QpEvent> RoceQueuePair::poll() {
  host_.read_async_events();
  if (events_.empty()) take_completions();
  if (events_.empty()) return std::nullopt;
  smcr::QpEvent e = std::move(events_.front());
  events_.pop_front();
  return e;
}

// ------------------------------------------------------------------ RoceHost

std::unique_ptr<RoceHost> RoceHost::open(const RoceDeviceConfig& config, std::string& error) {
  std::unique_ptr<RoceHost> h(new RoceHost());
  if (!open_port(config, h->primary_, error)) return nullptr;
  return h;
}

bool RoceHost::add_alternate(const RoceDeviceConfig& config, std::string& error) {
  auto p = std::make_unique<RocePort>();
  if (!open_port(config, *p, error)) {
    if (p->ctx != nullptr) ibv_close_device(p->ctx);
    return false;
  }
  if (p->address.gid == primary_.address.gid) {
    ibv_close_device(p->ctx);
    return error = p->name + " has the primary port's GID: not a second path", false;
  }
  alternate_ = std::move(p);
  return true;
}

std::optional<smcr::LinkAddress> RoceHost::alternate_address() const {
  if (!alternate_) return std::nullopt;
  return alternate_->address;
}

bool RoceHost::open_port(const RoceDeviceConfig& config, RocePort& out, std::string& error) {
  int count = 0;
  ibv_device** list = ibv_get_device_list(&count);
  if (list == nullptr || count == 0) {
    if (list != nullptr) ibv_free_device_list(list);
    return error = "no RDMA device", false;
  }
  ibv_device* chosen = nullptr;
  for (int i = 0; i < count && chosen == nullptr; ++i)
    if (config.device.empty() || config.device == ibv_get_device_name(list[i])) chosen = list[i];
  if (chosen != nullptr) {
    out.name = ibv_get_device_name(chosen);
    out.ctx = ibv_open_device(chosen);
  }
  ibv_free_device_list(list);
  if (chosen == nullptr) return error = "no RDMA device " + config.device, false;
  if (out.ctx == nullptr) return error = "ibv_open_device(" + out.name + "): " + errno_text(errno), false;
  out.port = config.port;
  ibv_port_attr port{};
  if (ibv_query_port(out.ctx, config.port, &port) != 0)
    return error = "ibv_query_port(" + std::to_string(config.port) + ") failed", false;
  if (port.link_layer != IBV_LINK_LAYER_ETHERNET) return error = out.name + " is not a RoCE device", false;
  out.active_mtu = port.active_mtu;
  // The RoCEv2 GID of the port (of the given IPv4 address): RFC 7609's
  // GID is the one CLC announces; SMC-Rv2 runs over RoCEv2 (UDP/IP).
  std::optional<ibv_gid_entry> found;
  for (int i = 0; i < port.gid_tbl_len && i < 1024 && !found; ++i) {
    ibv_gid_entry e{};
    if (ibv_query_gid_ex(out.ctx, config.port, static_cast<std::uint32_t>(i), &e, 0) != 0) continue;
    if (e.gid_type != IBV_GID_TYPE_ROCE_V2) continue;
    if (config.gid_index) {
      if (e.gid_index == *config.gid_index) found = e;
      continue;
    }
    if (!ipv4_mapped(e.gid.raw)) continue;
    if (config.ipv4) {
      const std::uint32_t a = static_cast<std::uint32_t>(e.gid.raw[12]) << 24 | e.gid.raw[13] << 16 |
                              e.gid.raw[14] << 8 | e.gid.raw[15];
      if (a != *config.ipv4) continue;
    }
    found = e;
  }
  if (!found && config.gid_index)
    return error = out.name + " port " + std::to_string(config.port) + " has no RoCEv2 GID at index " +
                   std::to_string(*config.gid_index), false;
  if (!found) return error = out.name + " port " + std::to_string(config.port) + " has no RoCEv2 IPv4 GID" +
                              (config.ipv4 ? " for that address" : ""), false;
  out.gid_index = static_cast<std::uint8_t>(found->gid_index);
  std::copy(found->gid.raw, found->gid.raw + 16, out.address.gid.begin());
  const std::optional<smcr::Mac> mac = mac_of_interface(found->ndev_ifindex);
  if (!mac) return error = "the MAC of the GID's interface is unknown", false;
  out.address.mac = *mac;
  // Async events are read without blocking, from poll().
  const int flags = ::fcntl(out.ctx->async_fd, F_GETFL);
  if (flags < 0 || ::fcntl(out.ctx->async_fd, F_SETFL, flags | O_NONBLOCK) != 0)
    return error = "the async event channel cannot be made non-blocking", false;
  return true;
}

RoceHost::~RoceHost() {
  qps_.clear();  // each deregisters what it holds
  for (Registration& r : registrations_)
    if (r.mr != nullptr) ibv_dereg_mr(r.mr);
  if (alternate_ && alternate_->ctx != nullptr) ibv_close_device(alternate_->ctx);
  if (primary_.ctx != nullptr) ibv_close_device(primary_.ctx);
}

void RoceHost::note(std::string text) {
  if (notes_.size() < 4096) notes_.push_back(std::move(text));
}

std::vector<std::string> RoceHost::take_notes() { return std::exchange(notes_, {}); }

RoceQueuePair* RoceHost::find(const smcr::QueuePair& qp) const {
  for (const auto& q : qps_)
    if (q.get() == &qp) return q.get();
  return nullptr;
}

void RoceHost::read_async_events() {
  for (RocePort* p : {&primary_, alternate_.get()}) {
    if (p == nullptr || p->ctx == nullptr) continue;
    ibv_async_event ev{};
    while (ibv_get_async_event(p->ctx, &ev) == 0) {
      const std::optional<smcr::WorkStatus> error = async_qp_error(ev.event_type);
      note(p->name + ": async event " + async_event_id(ev.event_type));
      if (error) {
        // A device-wide event ends the queue pairs of that device only.
        const bool device_wide = async_event_scope(ev.event_type) == AsyncScope::kDevice;
        for (auto& q : qps_)
          if (q->qp_ != nullptr && ((device_wide && &q->port_ == p) || ev.element.qp == q->qp_))
            q->enter_error(*error, async_event_id(ev.event_type));
      }
      ibv_ack_async_event(&ev);
    }
  }
}

// The port the link's end names: the alternate for a link over the second
// RNIC, the first port for an asymmetric link (a queue pair on the other
// port would never see the packets sent to the GID the link announced).
smcr::QueuePair* RoceHost::create_qp(const smcr::Gid& local) {
  return create_qp_on(alternate_ && alternate_->address.gid == local ? *alternate_ : primary_);
}

smcr::QueuePair* RoceHost::create_primary_qp() { return create_qp_on(primary_); }

smcr::QueuePair* RoceHost::create_qp_on(RocePort& port) {
  std::unique_ptr<RoceQueuePair> q(new RoceQueuePair(*this, port));
  std::string error;
  if (!q->open(error)) {
    note("queue pair not created on " + port.name + ": " + error);
    return nullptr;
  }
  qps_.push_back(std::move(q));
  return qps_.back().get();
}

bool RoceHost::connect(smcr::QueuePair& qp, std::uint32_t peer_qp_number) {
  (void)qp;
  note("connect to QP " + std::to_string(peer_qp_number) + " without the peer's path: refused");
  return false;
}

bool RoceHost::connect_path(smcr::QueuePair& qp, std::uint32_t peer_qp_number, const smcr::PeerPath& path) {
  RoceQueuePair* q = find(qp);
  if (q == nullptr || q->qp_ == nullptr || q->broken_) return false;
  QpTransition rtr = plan_rtr(path, peer_qp_number, q->port_.port, q->port_.gid_index, q->port_.active_mtu);
  if (const int rc = ibv_modify_qp(q->qp_, &rtr.attr, rtr.mask); rc != 0) {
    note("QP " + std::to_string(q->number_) + " to RTR: " + errno_text(rc));
    return false;
  }
  QpTransition rts = plan_rts(path.local_psn);
  if (const int rc = ibv_modify_qp(q->qp_, &rts.attr, rts.mask); rc != 0) {
    note("QP " + std::to_string(q->number_) + " to RTS: " + errno_text(rc));
    return false;
  }
  return true;
}

bool RoceHost::break_qp(smcr::QueuePair& qp) {
  RoceQueuePair* q = find(qp);
  if (q == nullptr || q->broken_) return false;
  q->enter_error(smcr::WorkStatus::kRetryExceeded, "broken by the tester (a path failure)");
  return true;
}

void RoceHost::destroy_qp(smcr::QueuePair& qp) {
  RoceQueuePair* q = find(qp);
  if (q == nullptr) return;
  // Linux lets the Sends it posted reach the peer before it frees a link
  // (smc_wr_tx_wait_no_pending_sends); so do we, for at most a second.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (!q->broken_ && !q->posted_.empty() && std::chrono::steady_clock::now() < until) {
    q->take_completions();
    if (!q->posted_.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // The object stays (the link layer may still hold it); its resources go.
  q->close();
}

std::optional<std::uint32_t> RoceHost::allocate_rmb(std::uint64_t size) {
  if (size == 0 || size > kMaxMemory - allocated_) return std::nullopt;
  const std::uint64_t rounded = (size + 4095) / 4096 * 4096;
  void* p = std::aligned_alloc(4096, rounded);
  if (p == nullptr) return std::nullopt;
  std::memset(p, 0, rounded);
  allocated_ += size;
  Rmb r;
  r.memory = std::unique_ptr<std::uint8_t, void (*)(void*)>(static_cast<std::uint8_t*>(p), std::free);
  r.size = size;
  rmbs_.push_back(std::move(r));
  return static_cast<std::uint32_t>(rmbs_.size() - 1);
}

wire::MutableBytes RoceHost::rmb(std::uint32_t id) {
  if (id >= rmbs_.size()) return {};
  return wire::MutableBytes(rmbs_[id].memory.get(), rmbs_[id].size);
}

std::optional<smcr::RToken> RoceHost::register_rmb(std::uint32_t id, smcr::QueuePair& qp) {
  RoceQueuePair* q = find(qp);
  if (id >= rmbs_.size() || q == nullptr || q->pd_ == nullptr) return std::nullopt;
  std::uint8_t* address = rmbs_[id].memory.get();
  for (const Registration& r : registrations_)
    if (r.rmb == id && r.qp == q && r.mr != nullptr) return smcr::RToken{r.mr->rkey, reinterpret_cast<std::uintptr_t>(address)};
  const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  ibv_mr* mr = ibv_reg_mr(q->pd_, address, rmbs_[id].size, access);
  if (mr == nullptr) {
    note("RMB " + std::to_string(id) + " not registered: " + errno_text(errno));
    return std::nullopt;
  }
  registrations_.push_back({id, q, mr});
  // §2.1: the peer writes at this virtual address through this rkey.
  return smcr::RToken{mr->rkey, reinterpret_cast<std::uintptr_t>(address)};
}

void RoceHost::deregister_rmb(std::uint32_t id, smcr::QueuePair& qp) {
  for (Registration& r : registrations_)
    if (r.rmb == id && r.qp == &qp && r.mr != nullptr) {
      ibv_dereg_mr(r.mr);
      r.mr = nullptr;
    }
}

void RoceHost::deregister_all(const RoceQueuePair& qp) {
  for (Registration& r : registrations_)
    if (r.qp == &qp && r.mr != nullptr) {
      ibv_dereg_mr(r.mr);
      r.mr = nullptr;
    }
}

}  // namespace rdmaconf::agent::rdma_core
