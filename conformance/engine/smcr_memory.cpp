#include "engine/smcr_memory.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "smcr/connection.hpp"
#include "smcr/messages.hpp"

namespace rdmaconf::conformance {

std::string socket_address(int fd, bool peer) {
  sockaddr_storage sa{};
  socklen_t len = sizeof sa;
  const int rc = peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&sa), &len)
                      : ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  if (rc != 0 || sa.ss_family != AF_INET) return "?";
  char host[INET_ADDRSTRLEN] = {};
  const auto* in = reinterpret_cast<const sockaddr_in*>(&sa);
  ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
  return std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
}

namespace {

using namespace std::chrono_literals;
using smcr::Time;

smcr::Mac mac48(const clc::Mac& m) {
  smcr::Mac v = 0;
  for (std::uint8_t o : m) v = (v << 8) | o;
  return v;
}

// The second RoCE port of each side (§3.5.1.6: a symmetric second link).
smcr::Gid port_gid(std::uint8_t d) { return {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xff, 0xfe, 0, 0, d}; }
const smcr::LinkAddress kTesterPort{0x020000000002, port_gid(0x02)};
const smcr::LinkAddress kTesterPort2{0x020000000012, port_gid(0x12)};
const smcr::LinkAddress kIutPort2{0x020000000013, port_gid(0x13)};
constexpr std::uint32_t kIutAlertToken = 0x1001;

struct Handoff {
  bool server = true;
  clc::SmcrLink own, peer;
  std::uint8_t version = 1;
  FaultSet faults;
};

// One CLC connection's fabric.
struct Exchange {
  std::mutex mu;  // until the handoff: the IUT's CLC thread and the runner both make queue pairs
  smcr::MemoryFabric fabric;
  smcr::MemoryQueuePair* iut_qp = nullptr;
  std::uint32_t iut_rmb = 0;
  std::optional<Handoff> handoff;
  // The IUT's connection ended abnormally, or its link group: its TCP
  // connection is reset (§4.8.2; Linux resets the connections of a group
  // that ends). Set by the runner's thread, read by the IUT's CLC thread.
  std::atomic<bool> reset{false};
  // The tester reset the TCP connection (§4.8.2): set by the IUT's CLC
  // thread, read by the runner's.
  std::atomic<bool> tcp_reset_received{false};
};

std::mutex registry_mu;
std::map<std::string, std::shared_ptr<Exchange>, std::less<>>& registry() {
  static std::map<std::string, std::shared_ptr<Exchange>, std::less<>> r;
  return r;
}

std::shared_ptr<Exchange> exchange(const std::string& key) {
  std::lock_guard lock(registry_mu);
  auto& e = registry()[key];
  if (!e) e = std::make_shared<Exchange>();
  return e;
}

std::string key_of(const std::string& tester, const std::string& iut) { return tester + "|" + iut; }

// An LLC body field of a message's octets (after the 4-octet header).
template <typename Spec>
std::uint64_t body_get(const std::vector<std::uint8_t>& m, typename Spec::Field f) {
  return wire::Header<Spec>::read(wire::Bytes(m).subspan(4), f);
}
template <typename Spec>
void body_set(std::vector<std::uint8_t>& m, typename Spec::Field f, std::uint64_t v) {
  wire::Header<Spec>::write(wire::MutableBytes(m).subspan(4), f, v);
}

// ------------------------------------------------------------- the IUT's side

class IutSide {
 public:
  IutSide(Exchange& x, const Handoff& h)
      : x_(x), h_(h), host_(x.fabric.host(1)), group_(group_config(h), host_) {
    host_.outgoing = [this](smcr::QueuePair&, std::vector<std::uint8_t>& m) { return outgoing(m); };
    host_.incoming = [this](smcr::QueuePair& qp, std::vector<std::uint8_t>& m) { return incoming(qp, m); };
    first_.qp = host_.adopt(*x.iut_qp);
    first_.local = {mac48(h.own.mac), h.own.gid};
    first_.peer = {mac48(h.peer.mac), h.peer.gid, h.peer.qp_number};
    first_.rmb = x.iut_rmb;
    first_.peer_rmb = {h.peer.rmb_rkey, h.peer.rmb_virtual_address};
  }

  bool drive(Time now) {
    now_ = now;
    bool any = false;
    if (!started_) {
      group_.start(first_, now);
      started_ = any = true;
    }
    any |= group_.poll(now);
    if (auto d = group_.next_deadline(); d && *d <= now) {
      group_.on_time(now);
      any = true;
    }
    while (auto e = group_.next_event()) {
      any = true;
      on_event(*e);
    }
    // The CDC messages that came while data was held, in order.
    while (!held_cdc_.empty() && !holding()) {
      any = true;
      take_cdc(held_cdc_.front());
      held_cdc_.pop_front();
    }
    any |= application();
    any |= close_timer();
    any |= tcp_reset();
    if ((conn_ && conn_->aborted()) || group_.state() == smcr::LinkGroup::State::kTerminated) x_.reset = true;
    return any;
  }

  // What a script step asks of the IUT (`> smcr.iut.ACTION`); the runner
  // drives the outcome.
  bool act(const IutAction& a, std::string& error) {
    if (!started_) return error = "the IUT's link group has not started", false;
    switch (a.kind) {
      case IutAction::Kind::kAddRmb: {
        // A second RMB, of the first one's element size (§2.1: the owner
        // sizes its RMBs; the ULP would put its next connections there).
        const std::optional<std::uint32_t> rmb = host_.allocate_rmb(h_.own.rmbe_size);
        if (!rmb) return error = "the IUT's host has no room for another RMB", false;
        if (!group_.add_rmb(*rmb, now_)) return error = "the IUT's link group takes no more requests", false;
        return true;
      }
      case IutAction::Kind::kAddLink:
        if (!group_.add_link(now_)) return error = "the IUT's link group takes no more requests", false;
        return true;
      case IutAction::Kind::kDeleteLink:
        if (!group_.slot_of(a.link)) return error = "the IUT's link group has no link " + std::to_string(a.link), false;
        if (!group_.delete_link(a.link, true, now_)) return error = "the IUT's link group takes no more requests", false;
        return true;
      case IutAction::Kind::kClose:
        if (!conn_) return error = "the IUT's first link is not up yet", false;
        // The application closes (§4.8.1): C, or A with data still unread.
        emit(conn_->close());
        closed_ = true;
        return true;
    }
    return error = "unknown IUT action", false;
  }

 private:
  static smcr::LinkGroupConfig group_config(const Handoff& h) {
    smcr::LinkGroupConfig c;
    c.role = h.server ? smcr::Role::kServer : smcr::Role::kClient;
    c.version = h.version;
    c.alternate = kIutPort2;
    c.add_second_link = !h.faults.has(FaultId::kSmcrNoSecondLink);
    if (h.faults.has(FaultId::kSmcrNoTestLink)) c.test_link_time = Time{0};
    c.faults = h.faults.smcr_group_faults();
    return c;
  }

  // The connection's RMBEs take the eyecatcher choice the first link's
  // CONFIRM LINK exchange settled (§4.4.1, A.4): it exists from then on,
  // and its CDC messages reach it (§3.5.2.4: a client is ready for the
  // server's data once its Confirm left; the fault, only once its second
  // link is up).
  void open_connection() {
    if (!h_.server && h_.faults.has(FaultId::kSmcrClientLateOpen) && group_.active_links() < 2) return;
    group_.add_connection({h_.own.rmbe_alert_token, first_.peer_rmb, 0});
    smcr::ConnectionConfig c;
    const bool eyecatcher = group_.rmbe_eyecatcher();
    c.own = {static_cast<std::uint32_t>(h_.own.rmbe_size), eyecatcher};
    c.peer = {static_cast<std::uint32_t>(h_.peer.rmbe_size), eyecatcher};
    c.own_alert_token = h_.own.rmbe_alert_token;
    c.peer_alert_token = h_.peer.rmbe_alert_token;
    c.faults = h_.faults.smcr_faults();
    conn_.emplace(c, host_.rmb(x_.iut_rmb).first(static_cast<std::size_t>(h_.own.rmbe_size)));
  }

  // §3.5.1.6.2: no CDC message or Write while the link group says data is
  // held; the connection's own messages wait with the peer's that would
  // cause them.
  bool holding() const {
    return group_.data_held() && !h_.faults.has(FaultId::kSmcrDataBeforeDeleteAnswered);
  }

  void take_cdc(const std::vector<std::uint8_t>& octets) {
    auto m = smcr::decode_cdc(octets);
    if (m) emit(conn_->on_cdc(*m).out);
  }

  void on_event(const smcr::Event& e) {
    if (e.kind == smcr::Event::Kind::kLinkUp && !conn_) open_connection();
    if (!conn_) return;
    if (e.kind == smcr::Event::Kind::kCdc) {
      if (holding() || !held_cdc_.empty()) {
        // Bounded: past it the oldest is taken, the order kept, nothing lost.
        if (held_cdc_.size() >= kMaxHeldCdc) take_cdc(held_cdc_.front()), held_cdc_.pop_front();
        return held_cdc_.push_back(e.octets);
      }
      take_cdc(e.octets);
    } else if (e.kind == smcr::Event::Kind::kConnectionMoved) {
      // §4.6.1: the first message on the new link validates the failover,
      // naming the last CDC message the old link delivered (SS); §4.6.2:
      // then what the old link flushed, before anything new.
      const smcr::CdcMessage v = conn_->failover_validation(group_.sequence_sent(h_.own.rmbe_alert_token));
      group_.send_cdc(h_.own.rmbe_alert_token, v.header.bytes());
      // A gap in the stream that cannot be closed resets the connection.
      if (!group_.replay(h_.own.rmbe_alert_token)) emit(conn_->abort());
    }
  }

  void emit(const smcr::Output& o) {
    for (const smcr::RdmaWrite& w : o.writes) group_.write(h_.own.rmbe_alert_token, w.rmbe_offset, w.octets);
    if (o.cdc) group_.send_cdc(h_.own.rmbe_alert_token, o.cdc->header.bytes());
  }

  // The test ULP: echo what arrives, as far as the send buffer takes it;
  // urgent data goes back as urgent data (§4.7); close once the peer closed
  // and everything went back.
  bool application() {
    if (!conn_ || holding() || closed_ || conn_->aborted() || conn_->state() == smcr::ConnectionState::kClosed) return false;
    bool any = false;
    for (;;) {
      const std::size_t room = conn_->config().send_buffer - conn_->queued();
      if (room == 0) break;
      const std::optional<std::uint64_t> mark = conn_->urgent_mark();
      buf_.resize(std::min<std::size_t>(room, 65536));
      smcr::ReceiveResult r = conn_->receive(buf_);
      emit(r.out);
      if (r.octets == 0) break;
      any = true;
      const wire::Bytes got = wire::Bytes(buf_).first(r.octets);
      const bool urgent = mark && conn_->octets_consumed() == *mark;
      smcr::SendResult s = urgent ? conn_->send_urgent(got) : conn_->send(got);
      if (s.status == smcr::SendStatus::kUrgentWait) s = conn_->send(got);
      emit(s.out);
    }
    using S = smcr::ConnectionState;
    const bool passive = conn_->state() == S::kAppCloseWait1 || conn_->state() == S::kAppCloseWait2;
    if (passive && conn_->unread() == 0 && conn_->queued() == 0 && !h_.faults.has(FaultId::kSmcrCloseUnanswered)) {
      emit(conn_->close());
      closed_ = any = true;
    }
    return any;
  }

  // §4.8.1: once the application closed, the wait for the peer to finish
  // the close is bounded (smcr::kCloseWaitTime); when it runs out the
  // connection ends without another Write and its TCP connection is reset.
  bool close_timer() {
    using S = smcr::ConnectionState;
    if (!conn_ || !closed_ || conn_->state() == S::kClosed || h_.faults.has(FaultId::kSmcrNoCloseTimer)) return false;
    if (!close_deadline_) close_deadline_ = now_ + smcr::kCloseWaitTime;
    if (now_ < *close_deadline_) return false;
    emit(conn_->close_timeout());
    return true;
  }

  // §4.8.2: a TCP reset from the peer, which sent no A, starts the abort:
  // this side's A, then the wait for the peer's.
  bool tcp_reset() {
    if (!conn_ || reset_taken_ || !x_.tcp_reset_received || h_.faults.has(FaultId::kSmcrTcpResetIgnored)) return false;
    reset_taken_ = true;
    emit(conn_->abort());
    return true;
  }

  // Faults on what the IUT sends.
  bool outgoing(std::vector<std::uint8_t>& m) {
    const FaultSet& f = h_.faults;
    if (m.size() < smcr::kLlcMessageSize) return true;
    using CF = smcr::CdcSpec::Field;
    using Cdc = wire::Header<smcr::CdcSpec>;
    if (m[0] == 0xFE) {
      if (f.has(FaultId::kSmcrAbortUnanswered) && Cdc::read(m, CF::A)) return false;
      if (f.has(FaultId::kSmcrWriterNotBlocked)) Cdc::write(m, CF::B, 0);
      if (f.has(FaultId::kSmcrUrgentFlagsCleared)) Cdc::write(m, CF::U, 0), Cdc::write(m, CF::P, 0);
      if (f.has(FaultId::kSmcrNoFailoverValidation)) Cdc::write(m, CF::F, 0);
      return true;
    }
    const std::uint8_t base = m[0] & 0x0F;
    const bool reply = (m[3] & smcr::kFlagReply) != 0;
    if (base == 1 && f.has(FaultId::kSmcrConfirmLinkWrongQp)) {
      using F = smcr::ConfirmLinkSpec::Field;
      body_set<smcr::ConfirmLinkSpec>(m, F::QpNumber, (body_get<smcr::ConfirmLinkSpec>(m, F::QpNumber) + 1) & 0xFFFFFF);
    }
    if (base == 7 && reply && f.has(FaultId::kSmcrTestLinkNoEcho))
      std::fill(m.begin() + 4, m.begin() + 4 + 16, std::uint8_t{0});  // A.3.8: User Data, octets 4-19
    // A.3.5, A.3.7: Z is header bit 26 of both RKEY messages, the error
    // mask DELETE RKEY's second body octet.
    constexpr std::uint8_t kZ = 0x20;
    if (base == 6 && reply && f.has(FaultId::kSmcrConfirmRkeyRefused)) m[3] |= kZ;
    if (base == 9 && reply && f.has(FaultId::kSmcrDeleteRkeyNoMask)) {
      m[3] &= static_cast<std::uint8_t>(~kZ);
      body_set<smcr::DeleteRkeySpec>(m, smcr::DeleteRkeySpec::Field::ErrorMask, 0);
    }
    if (base == 4 && reply && (m[3] & 0x40) == 0 && f.has(FaultId::kSmcrDeleteLinkUnanswered)) return false;
    if (base == 4 && !reply && f.has(FaultId::kSmcrDeleteLinkHeld) && group_.state() != smcr::LinkGroup::State::kTerminated)
      return (m[3] & 0x40) != 0;  // A (the whole group) still goes out
    return true;
  }

  // Faults on what the IUT takes.
  bool incoming(smcr::QueuePair& qp, std::vector<std::uint8_t>& m) {
    const FaultSet& f = h_.faults;
    if (m.empty() || m[0] == 0xFE) return true;
    const bool known = smcr::find_llc_type(m[0]) != nullptr;
    // A.3: the two high-order bits of an unknown type say what to do.
    if (!known && (m[0] >> 6) == 0 && f.has(FaultId::kSmcrUnknownLlcIgnored)) return false;
    if (!known && (m[0] >> 6) == 2 && f.has(FaultId::kSmcrOptionalLlcError)) m[0] = 0x3F;
    // A.3.4: DELETE LINK's A flag, header bit 25.
    if (known && (m[0] & 0x0F) == 4 && m.size() >= 4 && (m[3] & 0x40) && f.has(FaultId::kSmcrGroupDeleteIgnored)) return false;
    if (known && (m[0] & 0x0F) == 1 && m.size() >= smcr::kLlcMessageSize && f.has(FaultId::kSmcrSkipConfirmLinkCheck)) {
      for (const auto& l : group_.links())
        if (l.qp && l.qp->qp_number() == qp.qp_number())
          body_set<smcr::ConfirmLinkSpec>(m, smcr::ConfirmLinkSpec::Field::QpNumber, l.peer.qp);
    }
    return true;
  }

  Exchange& x_;
  Handoff h_;
  TapHost host_;
  smcr::LinkGroup group_;
  smcr::FirstLink first_;
  std::optional<smcr::Connection> conn_;
  static constexpr std::size_t kMaxHeldCdc = 1024;  // a peer that sends more is no longer waited for
  std::deque<std::vector<std::uint8_t>> held_cdc_;
  std::vector<std::uint8_t> buf_;
  bool started_ = false, closed_ = false;
  bool reset_taken_ = false;  // the peer's TCP reset was acted on
  std::optional<Time> close_deadline_;  // the close timer, from the application's close (§4.8.1)
  Time now_{0};
};

// ------------------------------------------------------------- the tester's side

class MemoryRoceSide final : public RoceSide {
 public:
  explicit MemoryRoceSide(std::shared_ptr<Exchange> x) : x_(std::move(x)) {}

  smcr::Host& host() override { return x_->fabric.host(0); }
  std::optional<smcr::LinkAddress> alternate() const override { return kTesterPort2; }
  bool in_process() const override { return true; }

  std::optional<RoceFirstLink> first_link(std::uint64_t rmb_size, std::string& error) override {
    std::lock_guard lock(x_->mu);
    RoceFirstLink l;
    l.qp = &x_->fabric.create_qp(0);
    const auto rmb = x_->fabric.host(0).allocate_rmb(rmb_size);
    if (!rmb) return error = "the in-memory host has no room for an RMB", std::nullopt;
    l.rmb = *rmb;
    l.rmb_size = rmb_size;
    l.rtoken = *x_->fabric.host(0).register_rmb(*rmb, *l.qp);
    l.address = kTesterPort;
    return l;
  }

  bool connect_first(smcr::QueuePair& qp, std::uint32_t peer_qp, const smcr::PeerPath&, std::string& error) override {
    // The IUT's CLC thread hands over once it took the tester's Confirm.
    std::optional<Handoff> h;
    for (int i = 0; i < 400 && !h; ++i) {
      {
        std::lock_guard lock(x_->mu);
        h = x_->handoff;
      }
      if (!h) std::this_thread::sleep_for(5ms);
    }
    if (!h) return error = "the reference IUT did not reach SMC-R on this connection", false;
    std::lock_guard lock(x_->mu);
    smcr::MemoryQueuePair* mine = x_->fabric.find_qp(qp.qp_number());
    if (!mine || !x_->iut_qp || x_->iut_qp->qp_number() != peer_qp)
      return error = "the IUT's CLC named QP " + std::to_string(peer_qp) + ", which the fabric does not hold", false;
    smcr::MemoryFabric::connect(*mine, *x_->iut_qp);
    iut_ = std::make_unique<IutSide>(*x_, *h);
    return true;
  }

  bool drive(Time now) override { return iut_ && iut_->drive(now); }

  bool iut_act(const IutAction& a, std::string& error) override {
    if (!iut_) return error = "the reference IUT has not reached SMC-R on this connection", false;
    return iut_->act(a, error);
  }

  bool stall_link(smcr::QueuePair& qp) override {
    smcr::MemoryQueuePair* q = x_->fabric.find_qp(qp.qp_number());
    if (!q) return false;
    q->stall();
    return true;
  }

  bool break_link(smcr::QueuePair& qp) override {
    smcr::MemoryQueuePair* q = x_->fabric.find_qp(qp.qp_number());
    if (!q) return false;
    smcr::MemoryFabric::break_link(*q);
    return true;
  }

 private:
  std::shared_ptr<Exchange> x_;
  std::unique_ptr<IutSide> iut_;
};

}  // namespace

std::string iut_exchange_key(int fd) { return key_of(socket_address(fd, true), socket_address(fd, false)); }

IutFirstLink iut_first_link(const std::string& key, std::uint64_t rmbe_size) {
  const std::shared_ptr<Exchange> x = exchange(key);
  std::lock_guard lock(x->mu);
  IutFirstLink out;
  if (!x->iut_qp) {
    x->iut_qp = &x->fabric.create_qp(1);
    x->iut_rmb = x->fabric.host(1).allocate_rmb(rmbe_size).value_or(0);
  }
  const std::optional<smcr::RToken> rt = x->fabric.host(1).register_rmb(x->iut_rmb, *x->iut_qp);
  out.qp_number = x->iut_qp->qp_number();
  out.rmb_rkey = rt ? rt->rkey : 0;
  out.rmb_virtual_address = rt ? rt->virtual_address : 0;
  out.alert_token = kIutAlertToken;
  return out;
}

void iut_reached_smcr(const std::string& key, bool server, const clc::SmcrLink& own, const clc::Outcome& outcome,
                      const FaultSet& f) {
  if (!outcome.peer) return;
  const std::shared_ptr<Exchange> x = exchange(key);
  std::lock_guard lock(x->mu);
  x->handoff = Handoff{server, own, *outcome.peer, outcome.version, f};
}

bool iut_smcr_reset(const std::string& key) {
  std::lock_guard lock(registry_mu);
  const auto it = registry().find(key);
  return it != registry().end() && it->second->reset;
}

void iut_tcp_reset_received(const std::string& key) {
  std::lock_guard lock(registry_mu);
  if (const auto it = registry().find(key); it != registry().end()) it->second->tcp_reset_received = true;
}

std::function<void(const RoceEndpoints&)> memory_tcp_reset_sent() {
  return [](const RoceEndpoints& e) {
    // The IUT's CLC thread takes the RST within its poll; its connection
    // ends then too (iut_connection_ended), which says it was seen as well.
    const std::string key = key_of(e.tester_address, e.iut_address);
    const auto until = std::chrono::steady_clock::now() + 2s;
    while (std::chrono::steady_clock::now() < until) {
      {
        std::lock_guard lock(registry_mu);
        const auto it = registry().find(key);
        if (it == registry().end() || it->second->tcp_reset_received) return;
      }
      std::this_thread::sleep_for(1ms);
    }
  };
}

void iut_connection_ended(const std::string& key) {
  std::lock_guard lock(registry_mu);
  registry().erase(key);
}

RoceFactory memory_roce_factory() {
  return [](const RoceEndpoints& e, std::string&) -> std::unique_ptr<RoceSide> {
    return std::make_unique<MemoryRoceSide>(exchange(key_of(e.tester_address, e.iut_address)));
  };
}

}  // namespace rdmaconf::conformance
