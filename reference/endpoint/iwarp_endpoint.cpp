#include "endpoint/iwarp_endpoint.hpp"

#include <future>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include "endpoint/tcp_link.hpp"
#include "mpa/deframer.hpp"
#include "mpa/framer.hpp"
#include "mpa/mulpdu.hpp"

namespace rdmaconf::endpoint {

std::string_view to_string(ConnectionState s) {
  switch (s) {
    case ConnectionState::kNegotiating: return "negotiating";
    case ConnectionState::kAwaitingRtr: return "awaiting RTR";
    case ConnectionState::kOperational: return "operational";
    case ConnectionState::kClosed: return "closed";
  }
  return "?";
}

namespace {

// Marker octets inside an FPDU of `fpdu_octets` carrying `ulpdu_octets`.
std::size_t markers_in(std::size_t fpdu_octets, std::size_t ulpdu_octets) {
  std::size_t plain = 2 + ulpdu_octets;
  plain += (4 - plain % 4) % 4;  // PAD, RFC 5044 §4.1
  plain += 4;                    // CRC field, present even when CRC is off
  return fpdu_octets > plain ? (fpdu_octets - plain) / 4 : 0;
}

}  // namespace

struct IwarpEndpoint::Impl {
  explicit Impl(IwarpConfig c)
      : config(std::move(c)), timer(io), work(asio::make_work_guard(io)) {
    rdmap::StreamConfig sc = config.rdmap;
    // The RDMAP stream exists before the connection (so the ULP can
    // register memory and post receives first); its MULPDU is sized for the
    // configured segment budget with the worst case of Markers.
    sc.mulpdu = mpa::mulpdu_for_emss(config.fpdu_budget);
    stream = std::make_unique<rdmap::Stream>(sc);
    thread = std::thread([this] { io.run(); });
  }

  ~Impl() {
    // Close the connection on the I/O thread and wait until that happened,
    // so no handler runs after the members it uses are gone.
    std::promise<void> closed;
    asio::post(io, [this, &closed] {
      timer.cancel();
      if (link) link->abort("endpoint destroyed");
      closed.set_value();
    });
    closed.get_future().wait();
    work.reset();
    io.stop();
    if (thread.joinable()) thread.join();
  }

  // Runs f with the protocol state locked, on the caller's thread. The
  // I/O thread takes the same lock for what it receives, so a post frames
  // and CRCs its segments here while the I/O thread handles the peer's.
  template <typename F>
  auto locked(F f) -> decltype(f()) {
    std::lock_guard<std::recursive_mutex> lock(protocol_mu);
    return f();
  }

  void set_state(ConnectionState s, std::string why = {}) {
    std::lock_guard lock(mu);
    if (state == ConnectionState::kClosed) return;
    state = s;
    if (!why.empty() && failure.empty()) failure = std::move(why);
    cv.notify_all();
  }

  void observe(WireEvent e) {
    if (config.observer) config.observer(e);
  }

  // ---- connection start (io thread) ----

  void start(tcp::socket socket, mpa::Role role) {
    std::lock_guard<std::recursive_mutex> lock(protocol_mu);
    link = std::make_shared<TcpLink>(std::move(socket), config.receive_limit);
    mpa::NegotiationConfig nc = config.mpa;
    nc.role = role;
    negotiation = std::make_unique<mpa::Negotiation>(nc);
    link->start([this](wire::Bytes b) { return on_receive(b); },
                [this](const std::string& reason) { on_closed(reason); });
    negotiation_step();
  }

  // ---- negotiation (RFC 5044 §7.1.2) ----

  void flush_negotiation_output() {
    wire::Bytes out = negotiation->pending_output();
    if (out.empty()) return;
    if (auto frame = mpa::decode_req_rep(out, {.expect = std::nullopt, .check_reserved = false}))
      observe(describe_req_rep(Direction::kSent, *frame));
    link->send(std::vector<std::uint8_t>(out.begin(), out.end()));
    negotiation->output_sent(out.size());
  }

  void negotiation_step() {
    using S = mpa::NegotiationState;
    if (negotiation->state() == S::kRequestReceived) {
      observe_peer_frame();
      // The reference ULP accepts every well-formed Request; the checks of
      // revision, Markers and CRC already ran in the negotiation.
      negotiation->accept();
    }
    flush_negotiation_output();
    switch (negotiation->state()) {
      case S::kAwaitRequest:
      case S::kAwaitReply:
        if (negotiation->timer_running() && !timer_armed) arm_negotiation_timer();
        return;
      case S::kRequestReceived:
        return;
      case S::kFullOperation:
        timer.cancel();
        if (negotiation->role() == mpa::Role::kInitiator) observe_peer_frame();
        enter_full_operation(*negotiation->outcome());
        return;
      case S::kFailed:
        timer.cancel();
        observe_peer_frame();
        negotiation_failed(*negotiation->failure());
        return;
    }
  }

  void observe_peer_frame() {
    if (peer_frame_observed || !negotiation->peer_frame()) return;
    peer_frame_observed = true;
    observe(describe_req_rep(Direction::kReceived, *negotiation->peer_frame()));
  }

  void arm_negotiation_timer() {
    timer_armed = true;
    timer.expires_after(config.negotiation_timeout);
    timer.async_wait([this](const boost::system::error_code& ec) {
      std::lock_guard<std::recursive_mutex> lock(protocol_mu);
      timer_armed = false;
      if (ec || !negotiation || !negotiation->timer_running()) return;
      negotiation->timer_expired();
      negotiation_step();
    });
  }

  void negotiation_failed(const mpa::NegotiationFailure& f) {
    std::string why = "MPA negotiation failed: " + std::string(mpa::name(f.kind)) + ": " + std::string(f.reason);
    if (f.decode_error) why += " [" + f.decode_error->to_string() + "]";
    if (f.action == mpa::FailureAction::kSendTerminateThenClose && f.terminate_code) {
      // RFC 6581 §10: a Terminate (layer LLP) follows the Reply. Frame it
      // with what the two frames asked for.
      const auto& peer = negotiation->peer_frame();
      mpa::FramerConfig fc;
      fc.crc = config.mpa.want_crc || (peer && peer->crc);
      fc.markers = peer && peer->markers;
      framer = std::make_unique<mpa::Framer>(fc);
      stream->report_llp_error(*f.terminate_code);
      flush_outgoing();
    }
    set_state(ConnectionState::kClosed, why);
    close_with_grace();
  }

  void enter_full_operation(const mpa::NegotiationOutcome& o) {
    {
      std::lock_guard lock(mu);
      outcome = o;
    }
    mpa::FramerConfig fc;
    fc.markers = o.markers_send;
    fc.crc = o.crc;
    framer = std::make_unique<mpa::Framer>(fc);
    mpa::DeframerConfig dc;
    dc.markers = o.markers_receive;
    dc.crc = o.crc;
    // RFC 5044 §6: a ULPDU_Length no TCP segment could carry is a framing error.
    dc.max_ulpdu_length = static_cast<std::uint16_t>(mpa::kLargestMulpdu);
    deframer = std::make_unique<mpa::Deframer>(dc);

    // RFC 6581 §5: in the peer-to-peer model the initiator's first message
    // is the RTR of the kind agreed; the responder sends nothing before it
    // has arrived.
    (void)rdmap::post_rtr(*stream, o.rtr_to_send, kRtrWorkRequest);
    set_state(!o.rtr_to_expect.empty() ? ConnectionState::kAwaitingRtr : ConnectionState::kOperational);
    pump();
  }

  // ---- full operation ----

  std::size_t on_receive(wire::Bytes bytes) {
    std::lock_guard<std::recursive_mutex> lock(protocol_mu);
    if (negotiation && negotiation->state() != mpa::NegotiationState::kFullOperation) {
      if (negotiation->state() == mpa::NegotiationState::kFailed) return bytes.size();
      std::size_t used = negotiation->receive(bytes);
      negotiation_step();
      return used;
    }
    if (!deframer) return bytes.size();
    std::size_t pos = 0;
    while (pos < bytes.size()) {
      mpa::DeframeResult r = deframer->next(bytes.subspan(pos));
      if (std::holds_alternative<mpa::NeedMore>(r)) break;
      if (auto* e = std::get_if<mpa::DeframeError>(&r)) {
        // RFC 5044 §8: the LLP error goes up to RDMAP, which sends the
        // Terminate; the rest of the stream cannot be trusted.
        stream->report_llp_error(e->terminate_code);
        set_state(ConnectionState::kClosed, "MPA framing error: " + e->detail.to_string());
        pump();
        return bytes.size();
      }
      const auto& f = std::get<mpa::Fpdu>(r);
      if (config.observer)
        observe(describe_fpdu(Direction::kReceived, f.ulpdu(), f.consumed, f.crc_status, f.markers.size()));
      // RFC 6581 §9.2: the first FPDU is an RTR of a kind the Reply set, or
      // there is no matching RTR (LLP error code 0x07; rdmap/rtr.hpp).
      if (state_is(ConnectionState::kAwaitingRtr) && outcome && !rdmap::is_rtr(outcome->rtr_to_expect, f.ulpdu())) {
        stream->report_llp_error(mpa::LlpErrorCode::kNoMatchingRtr);
        set_state(ConnectionState::kClosed, "the first FPDU is no RTR of a kind the Reply set (RFC 6581 §9.2)");
        pump();
        return bytes.size();
      }
      stream->on_segment(f.ulpdu());
      pos += f.consumed;
      if (state_is(ConnectionState::kAwaitingRtr)) set_state(ConnectionState::kOperational);
    }
    pump();
    return pos;
  }

  bool state_is(ConnectionState s) {
    std::lock_guard lock(mu);
    return state == s;
  }

  void flush_outgoing() {
    if (!framer || !link) return;
    std::vector<std::uint8_t> out;
    while (auto seg = stream->take_outgoing()) {
      wire::Chunks ulpdu;
      ulpdu.append(seg->header());
      seg->payload.for_each([&](wire::Bytes b) { ulpdu.append(b); });
      std::size_t n = framer->frame(ulpdu, out);
      if (config.observer)
        observe(describe_fpdu(Direction::kSent, ulpdu, n, mpa::CrcStatus::kNotChecked,
                              markers_in(n, ulpdu.size())));
    }
    if (!out.empty()) link->send(std::move(out));
  }

  // Moves octets out and completions up, and closes after a Terminate.
  void pump() {
    flush_outgoing();
    std::deque<rdmap::Completion> fresh;
    while (auto c = stream->poll_completion()) {
      if (c->wr_id == kRtrWorkRequest && c->type != rdmap::CompletionType::kTerminateReceived) continue;
      fresh.push_back(std::move(*c));
    }
    if (!fresh.empty()) {
      std::lock_guard lock(mu);
      for (auto& c : fresh) completions.push_back(std::move(c));
      cv.notify_all();
    }
    // RFC 5040 §6.2: after a Terminate the stream is over; the LLP stream
    // is closed once the Terminate has gone out.
    if (stream->state() == rdmap::StreamState::kTerminateSent ||
        stream->state() == rdmap::StreamState::kTerminateReceived) {
      std::string why = stream->state() == rdmap::StreamState::kTerminateSent ? "Terminate sent"
                                                                               : "Terminate received";
      set_state(ConnectionState::kClosed, why);
      close_with_grace();
    }
  }

  // FIN once everything queued (the Terminate) is out; if the peer keeps
  // its side open, cut the connection after a grace period so a
  // misbehaving peer cannot hold the endpoint.
  void close_with_grace() {
    if (!link || closing) return;
    closing = true;
    link->close_after_flush();
    // The timer belongs to the I/O thread; pump() may run on a caller's.
    asio::dispatch(io, [this] {
      timer.expires_after(config.close_grace);
      timer.async_wait([this](const boost::system::error_code& ec) {
        if (!ec && link && link->open()) link->abort("peer did not close within the grace period");
      });
    });
  }

  void on_closed(const std::string& reason) {
    std::lock_guard<std::recursive_mutex> lock(protocol_mu);
    timer.cancel();
    stream->close();
    pump();
    {
      std::lock_guard lock(mu);
      if (failure.empty() && !reason.empty()) failure = "TCP: " + reason;
      if (failure.empty() && state == ConnectionState::kNegotiating)
        failure = "TCP connection closed during MPA negotiation";
      state = ConnectionState::kClosed;
      link_closed = true;
      cv.notify_all();
    }
  }

  // Waits (on the caller's thread) until negotiation has ended either way.
  void wait_negotiated() {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return state != ConnectionState::kNegotiating; });
  }

  static constexpr rdmap::WorkRequestId kRtrWorkRequest = ~rdmap::WorkRequestId{0};

  IwarpConfig config;
  asio::io_context io;
  asio::steady_timer timer;
  asio::executor_work_guard<asio::io_context::executor_type> work;
  std::thread thread;

  // Protocol state, guarded by protocol_mu (taken by the I/O thread's
  // handlers and by every public method). Recursive because closing the
  // link from inside a locked section reports the close synchronously.
  std::recursive_mutex protocol_mu;
  std::shared_ptr<TcpLink> link;
  std::unique_ptr<mpa::Negotiation> negotiation;
  std::unique_ptr<mpa::Framer> framer;
  std::unique_ptr<mpa::Deframer> deframer;
  std::unique_ptr<rdmap::Stream> stream;
  bool timer_armed = false;
  bool peer_frame_observed = false;
  bool closing = false;

  // shared with the caller's thread
  mutable std::mutex mu;
  std::condition_variable cv;
  ConnectionState state = ConnectionState::kNegotiating;
  std::optional<mpa::NegotiationOutcome> outcome;
  std::string failure;
  std::deque<rdmap::Completion> completions;
  bool link_closed = false;
};

IwarpEndpoint::IwarpEndpoint(IwarpConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
IwarpEndpoint::~IwarpEndpoint() = default;

bool IwarpEndpoint::connect(const tcp::endpoint& peer) {
  Impl* p = impl_.get();
  asio::post(p->io, [p, peer] {
    auto socket = std::make_shared<tcp::socket>(p->io);
    socket->async_connect(peer, [p, socket](const boost::system::error_code& ec) {
      if (ec) {
        p->set_state(ConnectionState::kClosed, "TCP connect failed: " + ec.message());
        return;
      }
      p->start(std::move(*socket), mpa::Role::kInitiator);
    });
  });
  p->wait_negotiated();
  return state() != ConnectionState::kClosed;
}

bool IwarpEndpoint::accept(tcp::acceptor& acceptor) {
  Impl* p = impl_.get();
  boost::system::error_code ec;
  tcp::socket socket(p->io);
  acceptor.accept(socket, ec);
  if (ec) {
    p->set_state(ConnectionState::kClosed, "TCP accept failed: " + ec.message());
    return false;
  }
  asio::post(p->io, [p, s = std::make_shared<tcp::socket>(std::move(socket))]() mutable {
    p->start(std::move(*s), mpa::Role::kResponder);
  });
  p->wait_negotiated();
  return state() != ConnectionState::kClosed;
}

ConnectionState IwarpEndpoint::state() const {
  std::lock_guard lock(impl_->mu);
  return impl_->state;
}

std::optional<mpa::NegotiationOutcome> IwarpEndpoint::negotiated() const {
  std::lock_guard lock(impl_->mu);
  return impl_->outcome;
}

std::string IwarpEndpoint::failure() const {
  std::lock_guard lock(impl_->mu);
  return impl_->failure;
}

ddp::Stag IwarpEndpoint::register_memory(std::span<std::uint8_t> buffer, std::uint64_t base_to,
                                         ddp::Access access) {
  return impl_->locked([&] { return impl_->stream->register_memory(buffer, base_to, access); });
}

void IwarpEndpoint::post_receive(rdmap::WorkRequestId id, std::span<std::uint8_t> buffer) {
  impl_->locked([&] { impl_->stream->post_receive(id, buffer); });
}

// Each post hands the payload to the RDMAP stream and frames the segments
// at once, so the caller's payload memory is free again when it returns.
wire::Status IwarpEndpoint::post_send(rdmap::WorkRequestId id, wire::Bytes payload,
                                      rdmap::SendOptions options) {
  return impl_->locked([&] {
    auto s = impl_->stream->post_send(id, wire::Chunks(payload), options);
    impl_->pump();
    return s;
  });
}

wire::Status IwarpEndpoint::post_write(rdmap::WorkRequestId id, wire::Bytes payload, ddp::Stag sink_stag,
                                       std::uint64_t sink_to) {
  return impl_->locked([&] {
    auto s = impl_->stream->post_write(id, wire::Chunks(payload), sink_stag, sink_to);
    impl_->pump();
    return s;
  });
}

wire::Status IwarpEndpoint::post_read(rdmap::WorkRequestId id, const rdmap::ReadRequest& read) {
  return impl_->locked([&] {
    auto s = impl_->stream->post_read(id, read);
    impl_->pump();
    return s;
  });
}

wire::Status IwarpEndpoint::post_atomic(rdmap::WorkRequestId id, const rdmap::AtomicRequest& atomic) {
  return impl_->locked([&] {
    auto s = impl_->stream->post_atomic(id, atomic);
    impl_->pump();
    return s;
  });
}

wire::Status IwarpEndpoint::post_immediate(rdmap::WorkRequestId id, std::uint64_t data, bool solicited_event) {
  return impl_->locked([&] {
    auto s = impl_->stream->post_immediate(id, data, solicited_event);
    impl_->pump();
    return s;
  });
}

std::optional<rdmap::Completion> IwarpEndpoint::wait_completion(std::chrono::milliseconds timeout) {
  std::unique_lock lock(impl_->mu);
  if (!impl_->cv.wait_for(lock, timeout, [&] { return !impl_->completions.empty() || impl_->link_closed; }))
    return std::nullopt;
  if (impl_->completions.empty()) return std::nullopt;
  rdmap::Completion c = std::move(impl_->completions.front());
  impl_->completions.pop_front();
  return c;
}

bool IwarpEndpoint::wait_closed(std::chrono::milliseconds timeout) {
  std::unique_lock lock(impl_->mu);
  return impl_->cv.wait_for(lock, timeout, [&] { return impl_->link_closed; });
}

void IwarpEndpoint::close() {
  impl_->locked([&] {
    if (impl_->link) impl_->link->close_after_flush();
  });
}

std::uint64_t IwarpEndpoint::octets_sent() const {
  return impl_->locked([&]() -> std::uint64_t { return impl_->link ? impl_->link->octets_sent() : 0; });
}

std::uint64_t IwarpEndpoint::octets_received() const {
  return impl_->locked([&]() -> std::uint64_t { return impl_->link ? impl_->link->octets_received() : 0; });
}

}  // namespace rdmaconf::endpoint
