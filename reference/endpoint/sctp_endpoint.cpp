#include "endpoint/sctp_endpoint.hpp"

#include <arpa/inet.h>
#include <usrsctp.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <set>
#include <thread>

namespace rdmaconf::endpoint {
namespace {

using Clock = std::chrono::steady_clock;

// usrsctp is one stack per process. We run it without its own threads
// (usrsctp_init_nothreads): no raw sockets that could meet a kernel's SCTP,
// no UDP socket bound to every address; each endpoint feeds it the packets
// its loopback UDP socket receives and advances its timers.
std::mutex g_registry_mu;
std::set<const void*> g_live;  // endpoints usrsctp may still hand packets to
std::atomic<std::int64_t> g_last_tick_ms{0};

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch()).count();
}

// Timers advance by the time that passed since any endpoint last advanced
// them, so two endpoints in one process do not make SCTP's clock run twice
// as fast.
void advance_timers() {
  const std::int64_t now = now_ms();
  const std::int64_t last = g_last_tick_ms.exchange(now);
  if (now > last) usrsctp_handle_timers(static_cast<std::uint32_t>(now - last));
}

// The largest message either kind of chunk may carry (RFC 5043 §5.2.2,
// §5.2.3). The receive buffer holds one octet more, so a larger message is
// seen to be larger and refused, never stored whole.
std::size_t largest_message(std::size_t max_segment_size) {
  return std::max(sctp::kSegmentChunkHeaderSize + max_segment_size,
                  sctp::kSessionControlHeaderSize + sctp::kMaxPrivateDataLength);
}

sockaddr_conn conn_address(const void* who, std::uint16_t port) {
  sockaddr_conn a{};
  a.sconn_family = AF_CONN;
  a.sconn_port = htons(port);
  a.sconn_addr = const_cast<void*>(who);
  return a;
}

// What usrsctp's C callbacks reach: the endpoint registers this part of
// itself as its AF_CONN address.
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

}  // namespace

struct SctpEndpoint::Impl final : UsrsctpSink {
  explicit Impl(SctpConfig c)
      : config(std::move(c)),
        udp_socket(io),
        tick(io),
        work(asio::make_work_guard(io)),
        association(sctp::AssociationConfig{}) {
    rdmap::StreamConfig sc = config.rdmap;
    // RFC 5043 §9: DDP learns the largest segment the adaptation layer takes.
    config.max_segment_size = std::max(config.max_segment_size, sctp::kSmallestMaxSegmentSize);
    sc.mulpdu = config.max_segment_size;
    stream = std::make_unique<rdmap::Stream>(sc);
    rx.resize(largest_message(config.max_segment_size) + 1);
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
      std::lock_guard<std::recursive_mutex> lock(protocol_mu);
      tick.cancel();
      if (conn) usrsctp_close(conn);
      if (socket) usrsctp_close(socket);
      conn = socket = nullptr;
      done.set_value();
    });
    done.get_future().wait();
    {
      // From here usrsctp's timers may still send for the closed
      // association; conn_output drops what it has no endpoint for.
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

  struct socket* open_socket() {
    struct socket* s = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, nullptr, nullptr, 0, nullptr);
    if (!s) throw std::runtime_error("usrsctp_socket failed");
    usrsctp_set_non_blocking(s, 1);
    // RFC 5043 §5.1, §11.1: our INIT or INIT-ACK announces DDP.
    sctp_setadaptation adaptation{sctp::kAdaptationIndicationDdp};
    usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_ADAPTATION_LAYER, &adaptation, sizeof adaptation);
    // RFC 5043 §8: as many inbound as outbound streams.
    sctp_initmsg init{};
    init.sinit_num_ostreams = static_cast<std::uint16_t>(config.stream + 1);
    init.sinit_max_instreams = static_cast<std::uint16_t>(config.stream + 1);
    usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof init);
    // RFC 5043 §11.2: untagged messages are not held back for bundling.
    const int on = 1;
    usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof on);
    usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on);
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
    usrsctp_set_upcall(s, on_upcall, addr());
    return s;
  }

  // ---- the UDP encapsulation (RFC 6951) and SCTP's timers ----

  void receive_datagrams() {
    udp_socket.async_receive_from(asio::buffer(datagram), sender, [this](const boost::system::error_code& ec,
                                                                         std::size_t n) {
      if (ec) return;
      {
        std::lock_guard<std::recursive_mutex> lock(protocol_mu);
        // The passive side answers whoever set the association up; later
        // datagrams from elsewhere are left alone.
        if (!peer_udp) peer_udp = sender;
        if (sender != *peer_udp) {
          receive_datagrams();
          return;
        }
        octets_received += n;
      }
      usrsctp_conninput(addr(), datagram.data(), n, 0);
      receive_datagrams();
    });
  }

  void send_datagram(std::vector<std::uint8_t> packet) {
    std::lock_guard<std::recursive_mutex> lock(protocol_mu);
    if (!peer_udp || !udp_socket.is_open()) return;
    boost::system::error_code ec;
    udp_socket.send_to(asio::buffer(packet), *peer_udp, 0, ec);
    if (!ec) octets_sent += packet.size();
  }

  void run_timers() {
    advance_timers();
    tick.expires_after(std::chrono::milliseconds(10));
    tick.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) run_timers();
    });
  }

  // ---- reading what usrsctp delivered (I/O thread) ----

  void drain() {
    std::lock_guard<std::recursive_mutex> lock(protocol_mu);
    if (listening && !conn && socket) {
      conn = usrsctp_accept(socket, nullptr, nullptr);
      if (!conn) return;
      usrsctp_set_non_blocking(conn, 1);
      usrsctp_set_upcall(conn, on_upcall, addr());
    }
    struct socket* s = listening ? conn : socket;
    if (!s) return;
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
        if (errno != EWOULDBLOCK && errno != EAGAIN) association_gone("SCTP receive failed");
        break;
      }
      // What came before the end (a Reject, a Terminate) is the session's
      // own word on it: deliver it before the association's end is taken.
      if (n == 0) {
        pump();
        association_gone("the peer shut the SCTP association down");
        break;
      }
      const wire::Bytes got(rx.data(), static_cast<std::size_t>(n));
      if (flags & MSG_NOTIFICATION) {
        pump();
        if (flags & MSG_EOR) notification(got);
        continue;
      }
      // A message may arrive in pieces; keep at most one octet more than the
      // largest legal message, the rest is never stored.
      const std::size_t room = rx.size() - std::min(rx.size(), message.size());
      message.insert(message.end(), got.begin(), got.begin() + static_cast<std::ptrdiff_t>(std::min(room, got.size())));
      if (!(flags & MSG_EOR)) continue;
      if (infotype == SCTP_RECVV_RCVINFO) {
        if (config.observer)
          config.observer(describe_sctp_message(Direction::kReceived, info.rcv_sid, ntohl(info.rcv_ppid), message));
        association.receive(info.rcv_sid, ntohl(info.rcv_ppid), (info.rcv_flags & SCTP_UNORDERED) != 0, message);
      }
      message.clear();
    }
    if (comm_up && !indication_checked) association_up();
    pump();
  }

  void notification(wire::Bytes octets) {
    if (octets.size() < sizeof(sctp_notification{}.sn_header)) return;
    sctp_notification n{};
    std::copy_n(octets.begin(), std::min(octets.size(), sizeof n), reinterpret_cast<std::uint8_t*>(&n));
    switch (n.sn_header.sn_type) {
      case SCTP_ASSOC_CHANGE:
        if (n.sn_assoc_change.sac_state == SCTP_COMM_UP) comm_up = true;
        else if (n.sn_assoc_change.sac_state != SCTP_RESTART) association_gone("SCTP association ended");
        return;
      case SCTP_ADAPTATION_INDICATION:
        peer_indication = n.sn_adaptation_event.sai_adaptation_ind;
        return;
      case SCTP_SENDER_DRY_EVENT:
        association.all_acknowledged();
        return;
      default:
        return;
    }
  }

  // RFC 5043 §11.1: INIT and INIT-ACK have been exchanged; the peer's
  // indication (usrsctp queues it right behind COMM_UP) decides.
  void association_up() {
    indication_checked = true;
    auto ok = association.association_up(peer_indication);
    if (!ok) {
      fail("no DDP on this association: " + ok.error().to_string());
      if (auto* s = listening ? conn : socket) usrsctp_shutdown(s, SHUT_RDWR);
      return;
    }
    if (!listening) {
      if (auto started = association.initiate(config.stream, config.private_data); !started)
        fail("cannot initiate the session: " + started.error().to_string());
    }
  }

  // ---- between the session, RDMAP and SCTP ----

  void pump() {
    sctp::Session* session = association.session(config.stream);
    if (session) {
      while (auto e = session->take_event()) session_event(*session, *e);
      while (auto seg = session->take_segment()) stream->on_segment(wire::Chunks(wire::Bytes(*seg)));
      while (session->can_send() && stream->has_outgoing()) {
        auto seg = stream->take_outgoing();
        wire::Chunks segment;
        segment.append(seg->header());
        seg->payload.for_each([&](wire::Bytes b) { segment.append(b); });
        if (auto sent = session->send_segment(segment); !sent) fail("DDP segment not sent: " + sent.error().to_string());
      }
      // RFC 5043 §6.2: once RDMAP's Terminate has gone out as a segment (or
      // the peer's came in), the session ends with a Session Terminate.
      if (stream->state() == rdmap::StreamState::kTerminateSent ||
          stream->state() == rdmap::StreamState::kTerminateReceived) {
        session->terminate();
        closed_because = stream->state() == rdmap::StreamState::kTerminateSent ? "Terminate sent" : "Terminate received";
      }
    }
    while (auto chunk = association.take_outgoing()) send_message(*chunk);
    // Closed once the Session Terminate has been handed to SCTP, so that
    // whoever waits for the close has seen every message go.
    if (!closed_because.empty()) set_state(SctpState::kClosed, closed_because);
    std::deque<rdmap::Completion> fresh;
    while (auto c = stream->poll_completion()) fresh.push_back(std::move(*c));
    std::lock_guard lock(mu);
    for (auto& c : fresh) completions.push_back(std::move(c));
    cv.notify_all();
  }

  void session_event(sctp::Session& session, const sctp::SessionEvent& e) {
    switch (e.kind) {
      case sctp::EventKind::kInitiateReceived: {
        {
          std::lock_guard lock(mu);
          peer_pd = e.private_data;
        }
        // The reference ULP accepts (or, told to, rejects) every Initiate.
        auto answered = config.reject ? session.reject(config.private_data) : session.accept(config.private_data);
        if (!answered) fail("cannot answer the Initiate: " + answered.error().to_string());
        else if (config.reject) set_state(SctpState::kClosed, "session rejected (as configured)");
        else set_state(SctpState::kOperational);
        return;
      }
      case sctp::EventKind::kAccepted:
        {
          std::lock_guard lock(mu);
          peer_pd = e.private_data;
        }
        set_state(SctpState::kOperational);
        return;
      case sctp::EventKind::kRejected:
        {
          std::lock_guard lock(mu);
          peer_pd = e.private_data;
        }
        fail("the peer rejected the session (RFC 5043 §6.3)");
        return;
      case sctp::EventKind::kTerminateReceived:
        stream->close();
        set_state(SctpState::kClosed, "the peer terminated the session");
        return;
      case sctp::EventKind::kViolation:
        stream->close();
        fail("session ended: " + e.violation->to_string());
        return;
    }
  }

  void send_message(const sctp::OutgoingChunk& chunk) {
    struct socket* s = listening ? conn : socket;
    if (!s) return;
    if (config.observer)
      config.observer(describe_sctp_message(Direction::kSent, chunk.stream, chunk.message.ppid, chunk.message.octets));
    sctp_sndinfo info{};
    info.snd_sid = chunk.stream;
    info.snd_flags = SCTP_UNORDERED;  // RFC 5043 §10: every chunk, U set
    info.snd_ppid = htonl(chunk.message.ppid);
    const ssize_t n = usrsctp_sendv(s, chunk.message.octets.data(), chunk.message.octets.size(), nullptr, 0, &info,
                                    sizeof info, SCTP_SENDV_SNDINFO, 0);
    if (n < 0) fail("SCTP send failed (errno " + std::to_string(errno) + ")");
  }

  void association_gone(const std::string& why) {
    stream->close();
    set_state(SctpState::kClosed, why);
  }

  void fail(const std::string& why) {
    set_state(SctpState::kClosed, why);
  }

  void set_state(SctpState s, const std::string& why = {}) {
    std::lock_guard lock(mu);
    if (state == SctpState::kClosed) return;
    state = s;
    if (!why.empty() && failure.empty()) failure = why;
    cv.notify_all();
  }

  template <typename F>
  auto locked(F f) -> decltype(f()) {
    std::lock_guard<std::recursive_mutex> lock(protocol_mu);
    return f();
  }

  bool wait_setup() {
    std::unique_lock lock(mu);
    const bool done = cv.wait_for(lock, config.setup_timeout, [&] { return state != SctpState::kConnecting; });
    if (!done) {
      state = SctpState::kClosed;
      if (failure.empty()) failure = "no DDP Stream Session within the setup timeout";
    }
    return state == SctpState::kOperational;
  }

  SctpConfig config;
  asio::io_context io;
  udp::socket udp_socket;
  asio::steady_timer tick;
  asio::executor_work_guard<asio::io_context::executor_type> work;
  std::thread thread;

  std::recursive_mutex protocol_mu;
  std::string closed_because;  // the session ended: why, once its last message is out
  struct socket* socket = nullptr;  // active: the association; passive: the listener
  struct socket* conn = nullptr;    // passive: the accepted association
  bool listening = false;
  bool comm_up = false;
  bool indication_checked = false;
  std::optional<std::uint32_t> peer_indication;
  std::optional<udp::endpoint> peer_udp;
  udp::endpoint sender;
  std::array<std::uint8_t, 65536> datagram{};
  std::vector<std::uint8_t> rx;
  std::vector<std::uint8_t> message;
  sctp::Association association;
  std::unique_ptr<rdmap::Stream> stream;
  std::uint64_t octets_sent = 0;
  std::uint64_t octets_received = 0;

  mutable std::mutex mu;
  std::condition_variable cv;
  SctpState state = SctpState::kConnecting;
  std::string failure;
  std::vector<std::uint8_t> peer_pd;
  std::deque<rdmap::Completion> completions;
};

namespace {

// usrsctp hands every outgoing SCTP packet here, from whichever thread runs
// it; the packet goes out as one UDP datagram on its endpoint's I/O thread.
int conn_output(void* addr, void* buffer, std::size_t length, std::uint8_t, std::uint8_t) {
  std::lock_guard lock(g_registry_mu);
  if (g_live.count(addr) == 0) return 0;
  const auto* p = static_cast<const std::uint8_t*>(buffer);
  static_cast<UsrsctpSink*>(addr)->post_packet(std::vector<std::uint8_t>(p, p + length));
  return 0;
}

// usrsctp says a socket became readable (or writable, or failed): read it on
// the endpoint's I/O thread.
void on_upcall(struct socket*, void* arg, int) {
  std::lock_guard lock(g_registry_mu);
  if (g_live.count(arg) == 0) return;
  static_cast<UsrsctpSink*>(arg)->post_drain();
}

}  // namespace

SctpEndpoint::SctpEndpoint(SctpConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
SctpEndpoint::~SctpEndpoint() = default;

udp::endpoint SctpEndpoint::local_udp() const { return impl_->udp_socket.local_endpoint(); }
std::uint16_t SctpEndpoint::local_sctp_port() const { return impl_->config.sctp_port; }

bool SctpEndpoint::connect(const udp::endpoint& peer, std::uint16_t peer_sctp_port) {
  Impl* p = impl_.get();
  asio::post(p->io, [p, peer, peer_sctp_port] {
    std::lock_guard<std::recursive_mutex> lock(p->protocol_mu);
    p->association = sctp::Association({.role = sctp::Role::kActive,
                                        .streams = static_cast<std::uint16_t>(p->config.stream + 1),
                                        .pending_limit = 4,
                                        .session = {.role = sctp::Role::kActive,
                                                    .max_segment_size = p->config.max_segment_size,
                                                    .reorder_limit = 64}});
    p->peer_udp = peer;
    // The peer's SCTP endpoint has the same AF_CONN address as ours: the
    // address only tells usrsctp which endpoint's UDP socket carries it.
    sockaddr_conn them = conn_address(p->addr(), peer_sctp_port);
    if (usrsctp_connect(p->socket, reinterpret_cast<sockaddr*>(&them), sizeof them) != 0 && errno != EINPROGRESS)
      p->fail("SCTP connect failed (errno " + std::to_string(errno) + ")");
  });
  return p->wait_setup();
}

bool SctpEndpoint::listen() {
  Impl* p = impl_.get();
  std::promise<bool> listening;
  asio::post(p->io, [p, &listening] {
    std::lock_guard<std::recursive_mutex> lock(p->protocol_mu);
    if (p->listening) return listening.set_value(true);
    p->association = sctp::Association({.role = sctp::Role::kPassive,
                                        .streams = static_cast<std::uint16_t>(p->config.stream + 1),
                                        .pending_limit = 4,
                                        .session = {.role = sctp::Role::kPassive,
                                                    .max_segment_size = p->config.max_segment_size,
                                                    .reorder_limit = 64}});
    p->listening = true;
    if (usrsctp_listen(p->socket, 1) != 0) {
      p->fail("SCTP listen failed (errno " + std::to_string(errno) + ")");
      return listening.set_value(false);
    }
    listening.set_value(true);
  });
  return listening.get_future().get();
}

bool SctpEndpoint::accept() {
  if (!listen()) return false;
  return impl_->wait_setup();
}

SctpState SctpEndpoint::state() const {
  std::lock_guard lock(impl_->mu);
  return impl_->state;
}

std::string SctpEndpoint::failure() const {
  std::lock_guard lock(impl_->mu);
  return impl_->failure;
}

std::vector<std::uint8_t> SctpEndpoint::peer_private_data() const {
  std::lock_guard lock(impl_->mu);
  return impl_->peer_pd;
}

ddp::Stag SctpEndpoint::register_memory(std::span<std::uint8_t> buffer, std::uint64_t base_to, ddp::Access access) {
  return impl_->locked([&] { return impl_->stream->register_memory(buffer, base_to, access); });
}

void SctpEndpoint::post_receive(rdmap::WorkRequestId id, std::span<std::uint8_t> buffer) {
  impl_->locked([&] { impl_->stream->post_receive(id, buffer); });
}

wire::Status SctpEndpoint::post_send(rdmap::WorkRequestId id, wire::Bytes payload, rdmap::SendOptions options) {
  return impl_->locked([&] {
    auto s = impl_->stream->post_send(id, wire::Chunks(payload), options);
    impl_->pump();
    return s;
  });
}

wire::Status SctpEndpoint::post_write(rdmap::WorkRequestId id, wire::Bytes payload, ddp::Stag sink_stag,
                                      std::uint64_t sink_to) {
  return impl_->locked([&] {
    auto s = impl_->stream->post_write(id, wire::Chunks(payload), sink_stag, sink_to);
    impl_->pump();
    return s;
  });
}

wire::Status SctpEndpoint::post_read(rdmap::WorkRequestId id, const rdmap::ReadRequest& read) {
  return impl_->locked([&] {
    auto s = impl_->stream->post_read(id, read);
    impl_->pump();
    return s;
  });
}

wire::Status SctpEndpoint::post_atomic(rdmap::WorkRequestId id, const rdmap::AtomicRequest& atomic) {
  return impl_->locked([&] {
    auto s = impl_->stream->post_atomic(id, atomic);
    impl_->pump();
    return s;
  });
}

wire::Status SctpEndpoint::post_immediate(rdmap::WorkRequestId id, std::uint64_t data, bool solicited_event) {
  return impl_->locked([&] {
    auto s = impl_->stream->post_immediate(id, data, solicited_event);
    impl_->pump();
    return s;
  });
}

std::optional<rdmap::Completion> SctpEndpoint::wait_completion(std::chrono::milliseconds timeout) {
  std::unique_lock lock(impl_->mu);
  if (!impl_->cv.wait_for(lock, timeout, [&] { return !impl_->completions.empty(); })) return std::nullopt;
  rdmap::Completion c = std::move(impl_->completions.front());
  impl_->completions.pop_front();
  return c;
}

bool SctpEndpoint::wait_closed(std::chrono::milliseconds timeout) {
  std::unique_lock lock(impl_->mu);
  return impl_->cv.wait_for(lock, timeout, [&] { return impl_->state == SctpState::kClosed; });
}

std::uint64_t SctpEndpoint::octets_sent() const {
  return impl_->locked([&] { return impl_->octets_sent; });
}

std::uint64_t SctpEndpoint::octets_received() const {
  return impl_->locked([&] { return impl_->octets_received; });
}

void SctpEndpoint::terminate_session() {
  impl_->locked([&] {
    if (auto* s = impl_->association.session(impl_->config.stream)) s->terminate();
    impl_->pump();
  });
}

}  // namespace rdmaconf::endpoint
