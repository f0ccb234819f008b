#include "endpoint/usrsctp_link.hpp"

#include <arpa/inet.h>
#include <usrsctp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "endpoint/sctp_link_impl.hpp"
#include "sctp/packet.hpp"

namespace rdmaconf::endpoint {
namespace {

using Clock = std::chrono::steady_clock;

// usrsctp is one stack per process. We run it without its own threads
// (usrsctp_init_nothreads): no raw sockets that could meet a kernel's SCTP,
// no UDP socket bound to every address; each link feeds it the packets its
// UDP socket receives and advances its timers.
std::mutex g_registry_mu;
std::set<const void*> g_live;  // links usrsctp may still hand packets to
std::atomic<std::int64_t> g_last_tick_ms{0};

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch()).count();
}

// Timers advance by the time that passed since any link last advanced them,
// so that several links in one process do not make SCTP's clock run faster.
void advance_timers() {
  const std::int64_t now = now_ms();
  const std::int64_t last = g_last_tick_ms.exchange(now);
  if (now > last) usrsctp_handle_timers(static_cast<std::uint32_t>(now - last));
}

sockaddr_conn conn_address(const void* who, std::uint16_t port) {
  sockaddr_conn a{};
  a.sconn_family = AF_CONN;
  a.sconn_port = htons(port);
  a.sconn_addr = const_cast<void*>(who);
  return a;
}

// What usrsctp's C callbacks reach: the link registers this part of itself
// as its AF_CONN address.
struct UsrsctpSink {
  virtual void post_packet(std::vector<std::uint8_t> packet) = 0;
  virtual void post_drain() = 0;

 protected:
  ~UsrsctpSink() = default;
};

int conn_output(void* addr, void* buffer, std::size_t length, std::uint8_t tos, std::uint8_t set_df);
void on_upcall(struct socket* so, void* arg, int flags);

void ensure_usrsctp() {
  static std::once_flag once;
  std::call_once(once, [] {
    usrsctp_init_nothreads(0, conn_output, nullptr);
    g_last_tick_ms = now_ms();
  });
}

// Peers learnt per link, at most: a passive link serves its associations'
// peers, and a flood of INITs from new ports cannot grow it without bound.
constexpr std::size_t kMaxPeers = 1024;

// The chunk type of the packet's first chunk, if any.
std::optional<std::uint8_t> first_chunk_type(wire::Bytes packet) {
  auto h = sctp::decode_packet_header(packet);
  if (!h) return std::nullopt;
  sctp::ChunkWalker walk(h->chunks);
  auto c = walk.next();
  if (!c || !*c) return std::nullopt;
  return (*c)->type;
}

}  // namespace

struct UsrsctpLink::Impl final : UsrsctpSink {
  // One association's socket: the active side's own, or one the listener accepted.
  struct Assoc {
    struct socket* so = nullptr;
    bool comm_up = false;
    bool reported_up = false;
    bool gone = false;
    SctpUp up;
    std::vector<std::uint8_t> message;  // a message arriving in pieces
  };

  Impl(SctpLinkConfig c, SctpEvents e)
      : config(std::move(c)), events(std::move(e)), udp_socket(io), tick(io), work(asio::make_work_guard(io)) {
    rx.resize(config.max_message + 1);
    ensure_usrsctp();
    udp_socket.open(config.local.protocol());
    udp_socket.bind(config.local);
    if (config.sctp_port == 0) config.sctp_port = udp_socket.local_endpoint().port();
    {
      std::lock_guard lock(g_registry_mu);
      g_live.insert(addr());
    }
    usrsctp_register_address(addr());
    socket = open_socket();
    thread = std::thread([this] { io.run(); });
    asio::post(io, [this] {
      receive_datagrams();
      run_timers();
    });
  }

  ~Impl() {
    std::promise<void> done;
    asio::post(io, [this, &done] {
      tick.cancel();
      {
        std::lock_guard lock(mu);
        // An association still open ends with an ABORT (RFC 9260 §9.1)
        // rather than a SHUTDOWN this link would not be there to finish.
        const linger abort_on_close{1, 0};
        for (auto& [id, a] : assocs)
          if (a.so && !a.gone) usrsctp_setsockopt(a.so, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
        for (auto& [id, a] : assocs)
          if (a.so && a.so != socket) usrsctp_close(a.so);
        if (socket) usrsctp_close(socket);
        assocs.clear();
        socket = nullptr;
      }
      // The packets the closes just handed over were posted before this:
      // they leave first.
      asio::post(io, [&done] { done.set_value(); });
    });
    done.get_future().wait();
    {
      // From here usrsctp's timers may still send for the closed
      // associations; conn_output drops what it has no link for.
      std::lock_guard lock(g_registry_mu);
      g_live.erase(addr());
    }
    usrsctp_deregister_address(addr());
    work.reset();
    io.stop();
    if (thread.joinable()) thread.join();
  }

  // Our AF_CONN address: what usrsctp hands back to conn_output.
  void* addr() { return static_cast<UsrsctpSink*>(this); }

  void post_packet(std::vector<std::uint8_t> packet) override {
    asio::post(io, [this, p = std::move(packet)]() mutable { send_datagram(std::move(p)); });
  }
  void post_drain() override {
    asio::post(io, [this] { drain(); });
  }

  void set_options(struct socket* s) {
    usrsctp_set_non_blocking(s, 1);
    const int on = 1;
    // RFC 5043 §11.2: untagged messages are not held back for bundling.
    usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof on);
    usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on);
    usrsctp_set_upcall(s, on_upcall, addr());
  }

  struct socket* open_socket() {
    struct socket* s = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, nullptr, nullptr, 0, nullptr);
    if (!s) throw std::runtime_error("usrsctp_socket failed");
    if (config.indication) {
      sctp_setadaptation adaptation{*config.indication};
      usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_ADAPTATION_LAYER, &adaptation, sizeof adaptation);
    }
    sctp_initmsg init{};
    init.sinit_num_ostreams = config.outbound_streams;
    init.sinit_max_instreams = config.inbound_streams;
    usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof init);
    for (std::uint16_t type : {std::uint16_t{SCTP_ASSOC_CHANGE}, std::uint16_t{SCTP_ADAPTATION_INDICATION},
                               std::uint16_t{SCTP_SENDER_DRY_EVENT}}) {
      sctp_event e{};
      e.se_assoc_id = SCTP_FUTURE_ASSOC;
      e.se_type = type;
      e.se_on = 1;
      usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_EVENT, &e, sizeof e);
    }
    sockaddr_conn me = conn_address(addr(), config.sctp_port);
    if (usrsctp_bind(s, reinterpret_cast<sockaddr*>(&me), sizeof me) != 0) {
      usrsctp_close(s);
      throw std::runtime_error("usrsctp_bind failed");
    }
    set_options(s);
    return s;
  }

  // ---- the UDP encapsulation (RFC 6951) and SCTP's timers ----

  void receive_datagrams() {
    udp_socket.async_receive_from(asio::buffer(datagram), sender, [this](const boost::system::error_code& ec,
                                                                         std::size_t n) {
      if (ec) return;
      const wire::Bytes packet(datagram.data(), n);
      if (learn_peer(packet)) {
        octets_received += n;
        if (events.packet) events.packet(false, packet);
        usrsctp_conninput(addr(), datagram.data(), n, 0);
      }
      receive_datagrams();
    });
  }

  // RFC 6951 §5.1: the sender of a datagram is where its SCTP source port
  // is reached; an unknown port is learnt from an INIT only.
  bool learn_peer(wire::Bytes packet) {
    auto h = sctp::decode_packet_header(packet);
    if (!h) return false;
    std::lock_guard lock(mu);
    auto it = peers.find(h->source_port);
    if (it != peers.end() && it->second == sender) return true;
    if (first_chunk_type(packet) != sctp::chunk_type::kInit) return false;
    if (it == peers.end() && peers.size() >= kMaxPeers) peers.erase(peers.begin());
    peers[h->source_port] = sender;
    return true;
  }

  void send_datagram(std::vector<std::uint8_t> packet) {
    auto h = sctp::decode_packet_header(packet);
    if (!h || !udp_socket.is_open()) return;
    udp::endpoint to;
    {
      std::lock_guard lock(mu);
      auto it = peers.find(h->destination_port);
      if (it == peers.end()) return;
      to = it->second;
    }
    boost::system::error_code ec;
    udp_socket.send_to(asio::buffer(packet), to, 0, ec);
    if (ec) return;
    octets_sent += packet.size();
    if (events.packet) events.packet(true, packet);
  }

  void run_timers() {
    advance_timers();
    tick.expires_after(std::chrono::milliseconds(10));
    tick.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) run_timers();
    });
  }

  // ---- reading what usrsctp delivered (I/O thread) ----

  void accept_new() {
    for (;;) {
      struct socket* s = usrsctp_accept(socket, nullptr, nullptr);
      if (!s) return;
      std::lock_guard lock(mu);
      if (!sctp_link_impl::room_for_another(*this)) {
        usrsctp_close(s);
        continue;
      }
      set_options(s);
      assocs[next_id++].so = s;
    }
  }

  void drain() {
    if (listening && socket) accept_new();
    std::vector<AssociationId> ids;
    {
      std::lock_guard lock(mu);
      for (const auto& [id, a] : assocs)
        if (!a.gone) ids.push_back(id);
    }
    for (AssociationId id : ids) drain_one(id);
    // Associations that ended are let go once their last event is out.
    std::lock_guard lock(mu);
    for (auto it = assocs.begin(); it != assocs.end();) {
      if (it->second.gone && it->second.so != socket) {
        if (it->second.so) usrsctp_close(it->second.so);
        it = assocs.erase(it);
      } else {
        ++it;
      }
    }
  }

  // The socket is only ever closed on this thread, so reading it needs no lock.
  void drain_one(AssociationId id) {
    struct socket* s = nullptr;
    Assoc* a = nullptr;
    {
      std::lock_guard lock(mu);
      auto it = assocs.find(id);
      if (it == assocs.end()) return;
      a = &it->second;
      s = a->so;
    }
    std::string ended;
    for (;;) {
      sctp_rcvinfo info{};
      socklen_t infolen = sizeof info;
      unsigned int infotype = 0;
      int flags = 0;
      sockaddr_conn from{};
      socklen_t fromlen = sizeof from;
      const ssize_t n = usrsctp_recvv(s, rx.data(), rx.size(), reinterpret_cast<sockaddr*>(&from), &fromlen, &info,
                                      &infolen, &infotype, &flags);
      if (n < 0) {
        if (errno != EWOULDBLOCK && errno != EAGAIN) ended = "SCTP receive failed";
        break;
      }
      if (n == 0) {
        ended = "the peer shut the SCTP association down";
        break;
      }
      const wire::Bytes got(rx.data(), static_cast<std::size_t>(n));
      if (flags & MSG_NOTIFICATION) {
        if (flags & MSG_EOR) notification(id, *a, got, ended);
        if (!ended.empty()) break;
        continue;
      }
      // A message may arrive in pieces; keep at most one octet more than
      // the largest message taken, the rest is never stored.
      const std::size_t room = rx.size() - std::min(rx.size(), a->message.size());
      a->message.insert(a->message.end(), got.begin(),
                        got.begin() + static_cast<std::ptrdiff_t>(std::min(room, got.size())));
      if (!(flags & MSG_EOR)) continue;
      report_up(id, *a);
      if (infotype == SCTP_RECVV_RCVINFO && events.message)
        events.message(id, SctpMessage{info.rcv_sid, ntohl(info.rcv_ppid),
                                          (info.rcv_flags & SCTP_UNORDERED) != 0, std::move(a->message)});
      a->message.clear();
    }
    report_up(id, *a);
    if (!ended.empty()) {
      {
        std::lock_guard lock(mu);
        a->gone = true;
      }
      if (events.gone) events.gone(id, ended);
    }
  }

  // usrsctp queues the peer's indication right behind COMM_UP: the
  // association is reported up once what came with it has been read (at
  // the end of a drain, or before the first message).
  void report_up(AssociationId id, Assoc& a) {
    if (!a.comm_up || a.reported_up) return;
    a.reported_up = true;
    if (events.up) events.up(id, a.up);
  }

  void notification(AssociationId id, Assoc& a, wire::Bytes octets, std::string& ended) {
    if (octets.size() < sizeof(sctp_notification{}.sn_header)) return;
    sctp_notification n{};
    std::copy_n(octets.begin(), std::min(octets.size(), sizeof n), reinterpret_cast<std::uint8_t*>(&n));
    switch (n.sn_header.sn_type) {
      case SCTP_ASSOC_CHANGE:
        if (n.sn_assoc_change.sac_state == SCTP_COMM_UP) {
          a.comm_up = true;
          a.up.outbound_streams = n.sn_assoc_change.sac_outbound_streams;
          a.up.inbound_streams = n.sn_assoc_change.sac_inbound_streams;
        } else if (n.sn_assoc_change.sac_state != SCTP_RESTART) {
          ended = "SCTP association ended";
        }
        return;
      case SCTP_ADAPTATION_INDICATION:
        a.up.peer_indication = n.sn_adaptation_event.sai_adaptation_ind;
        return;
      case SCTP_SENDER_DRY_EVENT:
        if (events.dry) events.dry(id);
        return;
      default:
        return;
    }
  }

  SctpLinkConfig config;
  SctpEvents events;
  asio::io_context io;
  udp::socket udp_socket;
  asio::steady_timer tick;
  asio::executor_work_guard<asio::io_context::executor_type> work;
  std::thread thread;

  // Guards assocs, peers and the sockets' lifetime against send() and
  // shutdown() from other threads; never held while a callback runs.
  mutable std::mutex mu;
  struct socket* socket = nullptr;  // active: the association's; passive: the listener
  bool listening = false;
  std::map<AssociationId, Assoc> assocs;
  AssociationId next_id = 0;
  std::map<std::uint16_t, udp::endpoint> peers;  // SCTP port -> UDP address
  udp::endpoint sender;
  std::array<std::uint8_t, 65536> datagram{};
  std::vector<std::uint8_t> rx;
  std::atomic<std::uint64_t> octets_sent{0};
  std::atomic<std::uint64_t> octets_received{0};
};

namespace {

// usrsctp hands every outgoing SCTP packet here, from whichever thread runs
// it; the packet goes out as one UDP datagram on its link's I/O thread.
int conn_output(void* addr, void* buffer, std::size_t length, std::uint8_t, std::uint8_t) {
  std::lock_guard lock(g_registry_mu);
  if (g_live.count(addr) == 0) return 0;
  const auto* p = static_cast<const std::uint8_t*>(buffer);
  static_cast<UsrsctpSink*>(addr)->post_packet(std::vector<std::uint8_t>(p, p + length));
  return 0;
}

// usrsctp says a socket became readable (or writable, or failed): read it on
// the link's I/O thread.
void on_upcall(struct socket*, void* arg, int) {
  std::lock_guard lock(g_registry_mu);
  if (g_live.count(arg) == 0) return;
  static_cast<UsrsctpSink*>(arg)->post_drain();
}

}  // namespace

UsrsctpLink::UsrsctpLink(SctpLinkConfig config, SctpEvents events)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(events))) {}
UsrsctpLink::~UsrsctpLink() = default;

udp::endpoint UsrsctpLink::local_address() const { return impl_->udp_socket.local_endpoint(); }
std::uint16_t UsrsctpLink::local_sctp_port() const { return impl_->config.sctp_port; }

bool UsrsctpLink::connect(const udp::endpoint& peer, std::uint16_t peer_sctp_port, std::string& error) {
  Impl* p = impl_.get();
  return sctp_link_impl::connect_active(
      *p,
      [p, peer, peer_sctp_port](Impl::Assoc& a) {
        p->peers[peer_sctp_port] = peer;
        a.so = p->socket;
      },
      [p, peer_sctp_port]() -> std::string {
        // The peer's SCTP endpoint has the same AF_CONN address as ours: the
        // address only tells usrsctp which link's UDP socket carries it.
        sockaddr_conn them = conn_address(p->addr(), peer_sctp_port);
        if (usrsctp_connect(p->socket, reinterpret_cast<sockaddr*>(&them), sizeof them) != 0 && errno != EINPROGRESS)
          return "SCTP connect failed (errno " + std::to_string(errno) + ")";
        return {};
      },
      error);
}

bool UsrsctpLink::listen(std::string& error) {
  Impl* p = impl_.get();
  return sctp_link_impl::listen_passive(
      *p,
      [p](int backlog) -> std::string {
        if (usrsctp_listen(p->socket, backlog) != 0) return "SCTP listen failed (errno " + std::to_string(errno) + ")";
        return {};
      },
      error);
}

bool UsrsctpLink::send(AssociationId id, const SctpMessage& m, std::string& error) {
  std::lock_guard lock(impl_->mu);
  auto it = impl_->assocs.find(id);
  if (it == impl_->assocs.end() || it->second.gone || !it->second.so) return error = "the association is gone", false;
  sctp_sndinfo info{};
  info.snd_sid = m.stream;
  info.snd_flags = m.unordered ? SCTP_UNORDERED : 0;
  info.snd_ppid = htonl(m.ppid);
  const ssize_t n = usrsctp_sendv(it->second.so, m.octets.data(), m.octets.size(), nullptr, 0, &info, sizeof info,
                                  SCTP_SENDV_SNDINFO, 0);
  if (n < 0) return error = "SCTP send failed (errno " + std::to_string(errno) + ")", false;
  return true;
}

void UsrsctpLink::shutdown(AssociationId id) {
  std::lock_guard lock(impl_->mu);
  auto it = impl_->assocs.find(id);
  if (it != impl_->assocs.end() && !it->second.gone && it->second.so) usrsctp_shutdown(it->second.so, SHUT_RDWR);
}

std::uint64_t UsrsctpLink::octets_sent() const { return impl_->octets_sent; }
std::uint64_t UsrsctpLink::octets_received() const { return impl_->octets_received; }

}  // namespace rdmaconf::endpoint
