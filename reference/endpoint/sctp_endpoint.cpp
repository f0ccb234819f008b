#include "endpoint/sctp_endpoint.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "endpoint/sctp_link.hpp"

namespace rdmaconf::endpoint {
namespace {

// The largest message either kind of chunk may carry (RFC 5043 §5.2.2,
// §5.2.3). The link keeps one octet more, so a larger message is seen to be
// larger and refused, never stored whole.
std::size_t largest_message(std::size_t max_segment_size) {
  return std::max(sctp::kSegmentChunkHeaderSize + max_segment_size,
                  sctp::kSessionControlHeaderSize + sctp::kMaxPrivateDataLength);
}

}  // namespace

// The SCTP stack, its sockets (and usrsctp's UDP encapsulation) are the
// link's (sctp_link.hpp); the endpoint runs the adaptation layer and RDMAP
// above the one association its link carries.
struct SctpEndpoint::Impl {
  explicit Impl(SctpConfig c) : config(std::move(c)), association(sctp::AssociationConfig{}) {
    rdmap::StreamConfig sc = config.rdmap;
    // RFC 5043 §9: DDP learns the largest segment the adaptation layer takes.
    config.max_segment_size = std::max(config.max_segment_size, sctp::kSmallestMaxSegmentSize);
    sc.mulpdu = config.max_segment_size;
    stream = std::make_unique<rdmap::Stream>(sc);
    SctpLinkConfig lc;
    lc.local = config.local;
    lc.sctp_port = config.sctp_port;
    // RFC 5043 §5.1, §11.1: our INIT or INIT-ACK announces DDP.
    lc.indication = sctp::kAdaptationIndicationDdp;
    // RFC 5043 §8: as many inbound as outbound streams.
    lc.outbound_streams = lc.inbound_streams = static_cast<std::uint16_t>(config.stream + 1);
    lc.max_message = largest_message(config.max_segment_size);
    SctpEvents ev;
    ev.up = [this](AssociationId id, const SctpUp& up) {
      std::lock_guard<std::recursive_mutex> lock(protocol_mu);
      assoc = id;
      association_up(up.peer_indication);
      pump();
    };
    ev.message = [this](AssociationId, SctpMessage m) {
      std::lock_guard<std::recursive_mutex> lock(protocol_mu);
      if (config.observer) config.observer(describe_sctp_message(Direction::kReceived, m.stream, m.ppid, m.octets));
      association.receive(m.stream, m.ppid, m.unordered, m.octets);
      pump();
    };
    ev.dry = [this](AssociationId) {
      std::lock_guard<std::recursive_mutex> lock(protocol_mu);
      association.all_acknowledged();
      pump();
    };
    ev.gone = [this](AssociationId, const std::string& why) {
      std::lock_guard<std::recursive_mutex> lock(protocol_mu);
      // What came before the end (a Reject, a Terminate) is the session's
      // own word on it: it was delivered before the association's end.
      pump();
      association_gone(why);
    };
    link = open_sctp_link(config.stack, lc, std::move(ev));
    config.sctp_port = link->local_sctp_port();
  }

  ~Impl() { link.reset(); }

  // RFC 5043 §11.1: INIT and INIT-ACK have been exchanged; the peer's
  // indication decides.
  void association_up(std::optional<std::uint32_t> peer_indication) {
    auto ok = association.association_up(peer_indication);
    if (!ok) {
      fail("no DDP on this association: " + ok.error().to_string());
      link->shutdown(assoc);
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
    if (config.observer)
      config.observer(describe_sctp_message(Direction::kSent, chunk.stream, chunk.message.ppid, chunk.message.octets));
    std::string why;
    // RFC 5043 §10: every chunk unordered.
    if (!link->send(assoc, SctpMessage{chunk.stream, chunk.message.ppid, true, chunk.message.octets}, why))
      fail(why);
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
  std::recursive_mutex protocol_mu;
  std::string closed_because;  // the session ended: why, once its last message is out
  bool listening = false;
  AssociationId assoc = 0;
  sctp::Association association;
  std::unique_ptr<rdmap::Stream> stream;
  mutable std::mutex mu;
  std::condition_variable cv;
  SctpState state = SctpState::kConnecting;
  std::string failure;
  std::vector<std::uint8_t> peer_pd;
  std::deque<rdmap::Completion> completions;
  // Last: its callbacks reach every member above, and ~Impl ends it first.
  std::unique_ptr<SctpLink> link;
};

SctpEndpoint::SctpEndpoint(SctpConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
SctpEndpoint::~SctpEndpoint() = default;

udp::endpoint SctpEndpoint::local_address() const { return impl_->link->local_address(); }
std::uint16_t SctpEndpoint::local_sctp_port() const { return impl_->config.sctp_port; }

bool SctpEndpoint::connect(const udp::endpoint& peer, std::uint16_t peer_sctp_port) {
  Impl* p = impl_.get();
  {
    std::lock_guard<std::recursive_mutex> lock(p->protocol_mu);
    p->association = sctp::Association({.role = sctp::Role::kActive,
                                        .streams = static_cast<std::uint16_t>(p->config.stream + 1),
                                        .pending_limit = 4,
                                        .session = {.role = sctp::Role::kActive,
                                                    .max_segment_size = p->config.max_segment_size,
                                                    .reorder_limit = 64}});
  }
  if (std::string why; !p->link->connect(peer, peer_sctp_port, why)) {
    p->fail(why);
    return false;
  }
  return p->wait_setup();
}

bool SctpEndpoint::listen() {
  Impl* p = impl_.get();
  {
    std::lock_guard<std::recursive_mutex> lock(p->protocol_mu);
    if (p->listening) return true;
    p->association = sctp::Association({.role = sctp::Role::kPassive,
                                        .streams = static_cast<std::uint16_t>(p->config.stream + 1),
                                        .pending_limit = 4,
                                        .session = {.role = sctp::Role::kPassive,
                                                    .max_segment_size = p->config.max_segment_size,
                                                    .reorder_limit = 64}});
    p->listening = true;
  }
  if (std::string why; !p->link->listen(why)) {
    p->fail(why);
    return false;
  }
  return true;
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

std::uint64_t SctpEndpoint::octets_sent() const { return impl_->link->octets_sent(); }

std::uint64_t SctpEndpoint::octets_received() const { return impl_->link->octets_received(); }

void SctpEndpoint::terminate_session() {
  impl_->locked([&] {
    if (auto* s = impl_->association.session(impl_->config.stream)) s->terminate();
    impl_->pump();
  });
}

}  // namespace rdmaconf::endpoint
