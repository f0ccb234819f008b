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
constexpr std::uint32_t kIutAlertToken = 0x1001;  // the first RMBE's; element i + 1's is this plus i
constexpr std::uint32_t kIutRmbes = 4;             // RMBEs in the IUT's RMB: connections per link group

struct Handoff {
  bool server = true;
  clc::SmcrLink own, peer;
  std::uint8_t version = 1;
  FaultSet faults;
};

// One CLC connection's fabric. A connection that reuses a link group
// (§3.5.2) names the fabric of the CLC connection that set the group up
// (`group`) and hands its connection over there (`more`).
struct Exchange {
  std::mutex mu;  // until the handoff: the IUT's CLC thread and the runner both make queue pairs
  smcr::MemoryFabric fabric;
  smcr::MemoryQueuePair* iut_qp = nullptr;
  std::uint32_t iut_rmb = 0;
  std::optional<Handoff> handoff;
  // §4.1: the IUT's RMB holds kIutRmbes elements, one per connection of the
  // group; element i + 1 (the RMBE index) is in use while bit i is set.
  std::uint32_t rmbes_in_use = 0;
  // The IUT's link group of this CLC connection runs (the tester's side
  // started it and the case is not over): a later CLC connection from the
  // same peer may reuse it (§3.5.2).
  bool group_live = false;
  std::deque<std::pair<std::shared_ptr<Exchange>, Handoff>> more;  // connections to add to this one's group
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
  IutSide(std::shared_ptr<Exchange> x, const Handoff& h)
      : x_(*x), h_(h), host_(x->fabric.host(1)), group_(group_config(h), host_) {
    host_.outgoing = [this](smcr::QueuePair&, std::vector<std::uint8_t>& m) { return outgoing(m); };
    host_.incoming = [this](smcr::QueuePair& qp, std::vector<std::uint8_t>& m) { return incoming(qp, m); };
    first_.qp = host_.adopt(*x->iut_qp);
    first_.local = {mac48(h.own.mac), h.own.gid};
    first_.peer = {mac48(h.peer.mac), h.peer.gid, h.peer.qp_number};
    first_.rmb = x->iut_rmb;
    first_.peer_rmb = {h.peer.rmb_rkey, h.peer.rmb_virtual_address};
    add(std::move(x), h);
  }

  bool drive(Time now) {
    now_ = now;
    bool any = false;
    if (!started_) {
      group_.start(first_, now);
      started_ = any = true;
    }
    any |= take_more();
    any |= group_.poll(now);
    if (auto d = group_.next_deadline(); d && *d <= now) {
      group_.on_time(now);
      any = true;
    }
    while (auto e = group_.next_event()) {
      any = true;
      on_event(*e);
    }
    for (Conn& c : conns_) {
      if (c.released) continue;
      // The CDC messages that came while data was held, in order.
      while (!c.held_cdc.empty() && !holding()) {
        any = true;
        take_cdc(c, c.held_cdc.front());
        c.held_cdc.pop_front();
      }
      any |= application(c);
      any |= close_timer(c);
      any |= tcp_reset(c);
      if ((c.conn && c.conn->aborted()) || group_.state() == smcr::LinkGroup::State::kTerminated) c.x->reset = true;
      any |= release(c);
    }
    if (group_.state() == smcr::LinkGroup::State::kTerminated) {
      // No later connection finds the group (§3.5.2: a new one is a first contact).
      std::lock_guard lock(x_.mu);
      x_.group_live = false;
    }
    return any;
  }

  // The group's connections so far (the runner's thread only).
  std::size_t connections() const { return conns_.size(); }

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
      case IutAction::Kind::kClose: {
        if (a.connection >= conns_.size() || !conns_[a.connection].conn)
          return error = "the IUT's connection " + std::to_string(a.connection + 1) + " is not open yet", false;
        // The application closes (§4.8.1): C, or A with data still unread.
        Conn& c = conns_[a.connection];
        emit(c, c.conn->close());
        c.closed = true;
        return true;
      }
    }
    return error = "unknown IUT action", false;
  }

 private:
  // One connection of the link group (§4.1): its CLC connection's exchange
  // (whose TCP connection a reset ends), what its CLC agreed (its own RMBE
  // and alert token, the peer's), and its state.
  struct Conn {
    std::shared_ptr<Exchange> x;
    Handoff h;
    std::optional<smcr::Connection> conn;
    std::deque<std::vector<std::uint8_t>> held_cdc;
    bool closed = false;
    bool reset_taken = false;  // the peer's TCP reset was acted on
    bool released = false;     // ended on both sides: its RMBE and alert token are free (§4.4.2)
    std::optional<Time> close_deadline;  // the close timer, from the application's close (§4.8.1)
  };

  static smcr::LinkGroupConfig group_config(const Handoff& h) {
    smcr::LinkGroupConfig c;
    c.role = h.server ? smcr::Role::kServer : smcr::Role::kClient;
    c.version = h.version;
    c.alternate = kIutPort2;
    c.add_second_link = !h.faults.has(FaultId::kSmcrNoSecondLink);
    // §2, §3.5.4: a group whose last connection ended waits for the next
    // one as long as Linux's does (the time is local policy).
    c.idle_time = h.faults.has(FaultId::kSmcrIdleGroupKept) ? smcr::Time{0}
                  : h.server                                  ? smcr::kIdleTimeServer
                                                              : smcr::kIdleTimeClient;
    if (h.faults.has(FaultId::kSmcrNoTestLink)) c.test_link_time = Time{0};
    c.faults = h.faults.smcr_group_faults();
    return c;
  }

  // §3.5.2: the connections later CLC handshakes set up on this group.
  bool take_more() {
    std::deque<std::pair<std::shared_ptr<Exchange>, Handoff>> more;
    {
      std::lock_guard lock(x_.mu);
      more.swap(x_.more);
    }
    for (auto& [x, h] : more) {
      if (std::count_if(conns_.begin(), conns_.end(), [](const Conn& c) { return !c.released; }) >= kIutRmbes) {
        x->reset = true;  // no RMBE for it: its TCP connection ends
        continue;
      }
      abort_conflicting(h.peer);
      add(std::move(x), h);
    }
    if (more.empty() || group_.state() != smcr::LinkGroup::State::kActive) return !more.empty();
    for (Conn& c : conns_)
      if (!c.conn) open_connection(c);
    return true;
  }

  // rfc7609-4.4.2-rmbe-reuse-after-close: a connection that ended on both
  // sides (the machine's Closed: C or A sent and received, or its close
  // timer gave up) leaves the group (which stays for the others, §2), and
  // its RMBE and alert token go back for a later connection. The fault
  // frees them once this side sent its own C, before the peer's.
  bool release(Conn& k) {
    if (k.released || !k.conn) return false;
    const bool early = h_.faults.has(FaultId::kSmcrRmbeFreedEarly) && k.closed;
    if (k.conn->state() != smcr::ConnectionState::kClosed && !early) return false;
    k.released = true;
    group_.remove_connection(k.h.own.rmbe_alert_token, now_);
    std::lock_guard lock(x_.mu);
    if (k.h.own.rmbe_index >= 1 && k.h.own.rmbe_index <= kIutRmbes) x_.rmbes_in_use &= ~(1u << (k.h.own.rmbe_index - 1));
    return true;
  }

  // rfc7609-4.4.2-rmbe-conflict-aborts-old (§3.5.2.2, §4.4.2): a new
  // connection's CLC names an RMBE of the peer (its RMB and element) that
  // an open connection of the group still writes into: the peer no longer
  // gives it to that connection, which is aborted (its A, no further Write,
  // its TCP connection reset) rather than overwrite the new one's data.
  // The RMBE a connection's peer named (check::rmbe_holder finds the one
  // still in use: the rule the analyzer and the tester judge with).
  void abort_conflicting(const clc::SmcrLink& peer) {
    if (h_.faults.has(FaultId::kSmcrRmbeConflictIgnored)) return;
    std::vector<check::RmbeHolder> held;
    for (const Conn& c : conns_)
      held.push_back({rmbe_name(c.h.peer), c.released || !c.conn || c.conn->aborted()});
    while (const std::optional<std::size_t> i = check::rmbe_holder(rmbe_name(peer), held)) {
      held[*i].ended = true;
      emit(conns_[*i], conns_[*i].conn->abort());
    }
  }
  static check::RmbeName rmbe_name(const clc::SmcrLink& l) { return {l.rmb_rkey, l.rmb_virtual_address, l.rmbe_index}; }

  // A connection's RMBEs take the eyecatcher choice the first link's
  // CONFIRM LINK exchange settled (§4.4.1, A.4): it exists from then on,
  // and its CDC messages reach it (§3.5.2.4: a client is ready for the
  // server's data once its Confirm left; the fault, only once its second
  // link is up). Its RMBE is the element its CLC named (§4.1), its Writes
  // go to the element the peer named.
  void open_connection(Conn& k) {
    const Handoff& h = k.h;
    if (!h.server && h.faults.has(FaultId::kSmcrClientLateOpen) && group_.active_links() < 2) return;
    const std::uint64_t peer_offset = (std::max<std::uint8_t>(h.peer.rmbe_index, 1) - 1) * h.peer.rmbe_size;
    const smcr::RToken peer_rmb{h.peer.rmb_rkey, h.peer.rmb_virtual_address};
    if (!group_.add_connection({h.own.rmbe_alert_token, peer_rmb, peer_offset})) {
      k.x->reset = true;  // the peer named an RMB this group does not know, or a token in use
      return;
    }
    smcr::ConnectionConfig c;
    const bool eyecatcher = group_.rmbe_eyecatcher();
    c.own = {static_cast<std::uint32_t>(h.own.rmbe_size), eyecatcher};
    c.peer = {static_cast<std::uint32_t>(h.peer.rmbe_size), eyecatcher};
    c.own_alert_token = h.own.rmbe_alert_token;
    c.peer_alert_token = h.peer.rmbe_alert_token;
    c.faults = h.faults.smcr_faults();
    const std::size_t own_offset = static_cast<std::size_t>((std::max<std::uint8_t>(h.own.rmbe_index, 1) - 1) * h.own.rmbe_size);
    k.conn.emplace(c, host_.rmb(x_.iut_rmb).subspan(own_offset, static_cast<std::size_t>(h.own.rmbe_size)));
  }

  void add(std::shared_ptr<Exchange> x, const Handoff& h) {
    Conn& c = conns_.emplace_back();
    c.x = std::move(x);
    c.h = h;
  }

  Conn* conn_of(std::uint32_t token) {
    for (Conn& c : conns_)
      if (c.conn && !c.released && c.h.own.rmbe_alert_token == token) return &c;
    return nullptr;
  }

  // §3.5.1.6.2: no CDC message or Write while the link group says data is
  // held; the connection's own messages wait with the peer's that would
  // cause them.
  bool holding() const {
    return group_.data_held() && !h_.faults.has(FaultId::kSmcrDataBeforeDeleteAnswered);
  }

  void take_cdc(Conn& c, const std::vector<std::uint8_t>& octets) {
    auto m = smcr::decode_cdc(octets);
    if (m) emit(c, c.conn->on_cdc(*m).out);
  }

  void on_event(const smcr::Event& e) {
    if (e.kind == smcr::Event::Kind::kLinkUp)
      for (Conn& c : conns_)
        if (!c.conn) open_connection(c);
    Conn* c = conn_of(e.token);
    if (!c) return;
    if (e.kind == smcr::Event::Kind::kCdc) {
      if (holding() || !c->held_cdc.empty()) {
        // Bounded: past it the oldest is taken, the order kept, nothing lost.
        if (c->held_cdc.size() >= kMaxHeldCdc) take_cdc(*c, c->held_cdc.front()), c->held_cdc.pop_front();
        return c->held_cdc.push_back(e.octets);
      }
      take_cdc(*c, e.octets);
    } else if (e.kind == smcr::Event::Kind::kConnectionMoved) {
      // §4.6.1: the first message on the new link validates the failover,
      // naming the last CDC message the old link delivered (SS); §4.6.2:
      // then what the old link flushed, before anything new.
      const std::uint32_t token = c->h.own.rmbe_alert_token;
      const smcr::CdcMessage v = c->conn->failover_validation(group_.sequence_sent(token));
      group_.send_cdc(token, v.header.bytes());
      // A gap in the stream that cannot be closed resets the connection.
      if (!group_.replay(token)) emit(*c, c->conn->abort());
    }
  }

  void emit(Conn& c, const smcr::Output& o) {
    const std::uint32_t token = c.h.own.rmbe_alert_token;
    for (const smcr::RdmaWrite& w : o.writes) group_.write(token, w.rmbe_offset, w.octets);
    if (o.cdc) group_.send_cdc(token, o.cdc->header.bytes());
  }

  // The test ULP: echo what arrives, as far as the send buffer takes it;
  // urgent data goes back as urgent data (§4.7); close once the peer closed
  // and everything went back.
  bool application(Conn& k) {
    auto& conn = k.conn;
    if (!conn || holding() || k.closed || conn->aborted() || conn->state() == smcr::ConnectionState::kClosed) return false;
    bool any = false;
    for (;;) {
      const std::size_t room = conn->config().send_buffer - conn->queued();
      if (room == 0) break;
      const std::optional<std::uint64_t> mark = conn->urgent_mark();
      buf_.resize(std::min<std::size_t>(room, 65536));
      smcr::ReceiveResult r = conn->receive(buf_);
      emit(k, r.out);
      if (r.octets == 0) break;
      any = true;
      const wire::Bytes got = wire::Bytes(buf_).first(r.octets);
      const bool urgent = mark && conn->octets_consumed() == *mark;
      smcr::SendResult s = urgent ? conn->send_urgent(got) : conn->send(got);
      if (s.status == smcr::SendStatus::kUrgentWait) s = conn->send(got);
      emit(k, s.out);
    }
    using S = smcr::ConnectionState;
    const bool passive = conn->state() == S::kAppCloseWait1 || conn->state() == S::kAppCloseWait2;
    if (passive && conn->unread() == 0 && conn->queued() == 0 && !h_.faults.has(FaultId::kSmcrCloseUnanswered)) {
      emit(k, conn->close());
      k.closed = any = true;
    }
    return any;
  }

  // §4.8.1: once the application closed, the wait for the peer to finish
  // the close is bounded (smcr::kCloseWaitTime); when it runs out the
  // connection ends without another Write and its TCP connection is reset.
  bool close_timer(Conn& k) {
    using S = smcr::ConnectionState;
    if (!k.conn || !k.closed || k.conn->state() == S::kClosed || h_.faults.has(FaultId::kSmcrNoCloseTimer)) return false;
    if (!k.close_deadline) k.close_deadline = now_ + smcr::kCloseWaitTime;
    if (now_ < *k.close_deadline) return false;
    emit(k, k.conn->close_timeout());
    return true;
  }

  // §4.8.2: a TCP reset from the peer, which sent no A, starts the abort:
  // this side's A, then the wait for the peer's.
  bool tcp_reset(Conn& k) {
    if (!k.conn || k.reset_taken || !k.x->tcp_reset_received || h_.faults.has(FaultId::kSmcrTcpResetIgnored)) return false;
    k.reset_taken = true;
    emit(k, k.conn->abort());
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

  Exchange& x_;  // the CLC connection that set the link group up
  Handoff h_;    // its handoff: the group's configuration and faults
  TapHost host_;
  smcr::LinkGroup group_;
  smcr::FirstLink first_;
  std::deque<Conn> conns_;  // in the order they were set up (a deque: a Connection does not move)
  static constexpr std::size_t kMaxHeldCdc = 1024;  // a peer that sends more is no longer waited for
  std::vector<std::uint8_t> buf_;
  bool started_ = false;
  Time now_{0};
};

// ------------------------------------------------------------- the tester's side

class MemoryRoceSide final : public RoceSide {
 public:
  explicit MemoryRoceSide(std::shared_ptr<Exchange> x) : x_(std::move(x)) {}
  // The case is over: its link group is no later connection's to reuse.
  ~MemoryRoceSide() override {
    std::lock_guard lock(x_->mu);
    x_->group_live = false;
  }

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
    iut_ = std::make_unique<IutSide>(x_, *h);
    x_->group_live = true;
    return true;
  }

  bool drive(Time now) override { return iut_ && iut_->drive(now); }

  bool await_connection(std::size_t index, std::string& error) override {
    for (int i = 0; i < 400; ++i) {
      {
        std::lock_guard lock(x_->mu);
        if (iut_ && iut_->connections() + x_->more.size() > index) return true;
      }
      std::this_thread::sleep_for(5ms);
    }
    return error = "the reference IUT did not take connection " + std::to_string(index + 1) + " into its link group", false;
  }

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
    x->iut_rmb = x->fabric.host(1).allocate_rmb(rmbe_size * kIutRmbes).value_or(0);
    x->rmbes_in_use = 1;  // the first contact's connection has the first element
  }
  const std::optional<smcr::RToken> rt = x->fabric.host(1).register_rmb(x->iut_rmb, *x->iut_qp);
  out.qp_number = x->iut_qp->qp_number();
  out.rmb_rkey = rt ? rt->rkey : 0;
  out.rmb_virtual_address = rt ? rt->virtual_address : 0;
  out.alert_token = kIutAlertToken;
  return out;
}

void iut_link_groups(clc::ServerConfig& cfg, const FaultSet& f) {
  if (f.has(FaultId::kSmcrNoLinkGroupReuse)) return;
  std::lock_guard registry_lock(registry_mu);
  for (const auto& [key, x] : registry()) {
    std::lock_guard lock(x->mu);
    if (!x->group_live || !x->handoff || !x->handoff->server) continue;
    // §2, §3.5.4: a group none of whose connections is left lives on until
    // its idle timer ends it with DELETE LINK; the fault forgets it at once,
    // unannounced, while the client still has it.
    if (x->rmbes_in_use == 0 && f.has(FaultId::kSmcrIdleGroupForgotten)) continue;
    // §4.1: the first element no connection of the group has (the fault:
    // the first connection's again).
    std::uint32_t i = 0;
    while (i < kIutRmbes && ((x->rmbes_in_use >> i) & 1u)) ++i;
    if (f.has(FaultId::kSmcrRmbeShared)) i = 0;
    if (i == kIutRmbes) continue;  // no RMBE left: a new group (first contact)
    const clc::SmcrLink& peer = x->handoff->peer;
    clc::SmcrLink own = x->handoff->own;  // the group's first link and RMB
    own.rmbe_index = static_cast<std::uint8_t>(i + 1);
    own.rmbe_alert_token = kIutAlertToken + i;
    cfg.link_groups.push_back({peer.peer_id, peer.gid, peer.mac, peer.qp_number});
    cfg.link_group_links.push_back(own);
  }
}

void iut_reached_smcr(const std::string& key, bool server, const clc::SmcrLink& own, const clc::Outcome& outcome,
                      const FaultSet& f) {
  if (!outcome.peer) return;
  const std::shared_ptr<Exchange> x = exchange(key);
  if (server && !outcome.first_contact) {
    // §3.5.2: a connection on the group this server has with the client,
    // handed to the CLC connection that set that group up.
    std::lock_guard registry_lock(registry_mu);
    for (const auto& [k, g] : registry()) {
      if (g == x) continue;
      std::lock_guard lock(g->mu);
      if (!g->group_live || !g->handoff || !g->handoff->server || g->handoff->peer.peer_id != outcome.peer->peer_id ||
          g->handoff->own.qp_number != own.qp_number)
        continue;
      if (own.rmbe_index >= 1 && own.rmbe_index <= kIutRmbes) g->rmbes_in_use |= 1u << (own.rmbe_index - 1);
      g->more.emplace_back(x, Handoff{server, own, *outcome.peer, outcome.version, f});
      return;
    }
    x->reset = true;  // the group is gone meanwhile: the connection cannot go on
    return;
  }
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
