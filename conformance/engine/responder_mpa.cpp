// The reference IUT's MPA startup (RFC 5044 §7.1, RFC 6581 §5, §9): the
// negotiation machine as responder or initiator, with the faults that act on
// the Request before it sees it and on the Request or Reply it sends; then
// the RTR of the peer-to-peer model and full operation (responder_rdmap.cpp).
#include <algorithm>
#include <optional>

#include "mpa/framer.hpp"
#include "mpa/headers.hpp"
#include "mpa/req_rep.hpp"
#include "rdmap/rtr.hpp"
#include "engine/responder_internal.hpp"

namespace rdmaconf::conformance::iut {
namespace {

// Patches the peer's Request before the negotiation sees it (MPA seams).
void patch_request(const FaultSet& f, std::vector<std::uint8_t>& frame) {
  if (frame.size() < 20) return;
  mpa::ReqRepHeader h(wire::Bytes(frame).first<20>());
  using F = mpa::ReqRepSpec::Field;
  if (f.has(FaultId::kMpaAcceptBadKey)) h.set_octets(F::Key, mpa::kRequestKey);
  const auto rev = h.get(F::Rev);
  if (f.has(FaultId::kMpaAcceptAnyRevision) && rev != 1 && rev != 2) h.set(F::Rev, 1).set(F::S, 0);
  // RFC 5044 §7.1.1: R is not checked in a received Request (the codec's
  // decoder does check it, so the reference clears it first).
  if (!f.has(FaultId::kMpaCheckRInRequest)) h.set(F::R, 0);
  std::copy(h.bytes().begin(), h.bytes().end(), frame.begin());
  // Fault (RFC 6581 §9.2): RTR flags without flag A taken as a peer-to-peer
  // Request, as if A were set.
  if (f.has(FaultId::kMpaRtrFlagsHonouredWithoutP2p) && h.get(F::Rev) == 2 && h.get(F::S) == 1 &&
      frame.size() >= mpa::kReqRepHeaderSize + mpa::EnhancedDataSpec::decl.size_octets) {
    mpa::EnhancedDataHeader e(wire::Bytes(frame).subspan(mpa::kReqRepHeaderSize).first<4>());
    using E = mpa::EnhancedDataSpec::Field;
    if (e.get(E::A) == 0 && (e.get(E::B) || e.get(E::C) || e.get(E::D))) e.set(E::A, 1);
    std::copy(e.bytes().begin(), e.bytes().end(), frame.begin() + mpa::kReqRepHeaderSize);
  }
}

// Fault mpa-ignore-pd-length-limit as initiator: a Reply announcing more
// than 512 octets of private data (RFC 5044 §7.1.1) is taken as one with
// none; the octets of it that have come are dropped.
void swallow_oversized_reply_pd(std::vector<std::uint8_t>& rx) {
  if (rx.size() < mpa::kReqRepHeaderSize) return;
  using F = mpa::ReqRepSpec::Field;
  const std::size_t pd = mpa::ReqRepHeader::read(rx, F::PD_Length);
  if (pd <= mpa::kMaxPrivateDataLength) return;
  constexpr auto kPdAt = static_cast<std::ptrdiff_t>(mpa::kReqRepHeaderSize);
  const auto drop = static_cast<std::ptrdiff_t>(std::min(pd, rx.size() - mpa::kReqRepHeaderSize));
  rx.erase(rx.begin() + kPdAt, rx.begin() + kPdAt + drop);
  mpa::ReqRepHeader::write(rx, F::PD_Length, 0);
}

// Fault mpa-initiator-sends-unset-rtr: a peer-to-peer Reply that sets no
// RTR kind is read as one that sets the zero-length Send (RFC 6581 §9.2
// asks for a Terminate with code 0x07 instead).
void patch_reply_rtr(std::vector<std::uint8_t>& rx) {
  constexpr std::size_t kEnhancedEnd = mpa::kReqRepHeaderSize + mpa::EnhancedDataSpec::decl.size_octets;
  if (rx.size() < kEnhancedEnd) return;
  mpa::ReqRepHeader h(wire::Bytes(rx).first<20>());
  using F = mpa::ReqRepSpec::Field;
  if (h.get(F::Rev) != 2 || h.get(F::S) != 1) return;
  mpa::EnhancedDataHeader e(wire::Bytes(rx).subspan(mpa::kReqRepHeaderSize).first<4>());
  using E = mpa::EnhancedDataSpec::Field;
  if (e.get(E::A) == 1 && !e.get(E::B) && !e.get(E::C) && !e.get(E::D)) e.set(E::B, 1);
  std::copy(e.bytes().begin(), e.bytes().end(), rx.begin() + mpa::kReqRepHeaderSize);
}

// The negotiation as this IUT runs it (RFC 5044 §7.1.1, RFC 6581 §9): the
// revision, model, RTR kinds and IRD/ORD it offers or answers with, and
// which of the peer's frames it accepts.
mpa::NegotiationConfig negotiation_config(const Socket& sock, const FaultSet& f, bool initiator,
                                          const InitiatorProfile& profile) {
  mpa::NegotiationConfig nc;
  nc.role = initiator ? mpa::Role::kInitiator : mpa::Role::kResponder;
  // As initiator, Rev 2 with the peer-to-peer model and every RTR kind
  // offered when the profile says so (RFC 6581 §9.2), Rev 1 otherwise.
  nc.revision = initiator && profile.rev2_peer_to_peer ? 2 : 1;
  nc.peer_to_peer = initiator && profile.rev2_peer_to_peer;
  nc.rtr = {true, true, true};
  // RFC 5044 §7.1.1: Res is not checked on receipt.
  nc.check_reserved = f.has(FaultId::kMpaCheckResBits);
  nc.ird = 4;
  nc.ord = 4;
  // RFC 5044 §7.1.1: CRCs are used when either side asks; the test ULP asks
  // for none itself, so a tester that asks for none can see MPA without them.
  nc.want_crc = sock.mpa.want_crc.value_or(false);
  if (!initiator && sock.mpa.revision) {
    nc.accept_rev1 = *sock.mpa.revision == 1;
    nc.accept_rev2 = *sock.mpa.revision == 2;
  }
  return nc;
}

// The responder's wait for the Request (RFC 5044 §7.1.2, §7.1.5): the whole
// frame, however it was segmented, before the negotiation sees it. Empty
// when the connection ended first (the peer closed, the timer expired).
std::optional<std::vector<std::uint8_t>> gather_request(Socket& sock, const FaultSet& f,
                                                        std::vector<std::uint8_t>& rx,
                                                        Clock::time_point handshake_deadline) {
  for (;;) {
    std::vector<std::uint8_t> probe = rx;
    patch_request(f, probe);
    auto need = mpa::required_frame_size(probe, mpa::FrameKind::kRequest);
    const std::size_t pd = probe.size() >= mpa::kReqRepHeaderSize
                               ? mpa::ReqRepHeader::read(probe, mpa::ReqRepSpec::Field::PD_Length)
                               : 0;
    if (!need && f.has(FaultId::kMpaIgnorePdLimit) && pd > mpa::kMaxPrivateDataLength) {
      if (probe.size() >= 20 + pd) {
        // Swallow the oversized private data and go on as if it were empty.
        constexpr auto kPdAt = static_cast<std::ptrdiff_t>(mpa::kReqRepHeaderSize);
        rx.erase(rx.begin() + kPdAt, rx.begin() + kPdAt + static_cast<std::ptrdiff_t>(pd));
        mpa::ReqRepHeader::write(rx, mpa::ReqRepSpec::Field::PD_Length, 0);
        continue;
      }
    } else if (!need || probe.size() >= *need) {
      return rx;
    } else if (f.has(FaultId::kMpaRequestOneRead) && !rx.empty()) {
      sock.close_gracefully();  // as if the first segment held the whole Request (RFC 5044 §7.1.5)
      return std::nullopt;
    }
    // RFC 5044 §7.1.2: no Request in time, the connection is closed.
    if (Clock::now() >= handshake_deadline && !f.has(FaultId::kMpaNoHandshakeTimer)) {
      sock.close_gracefully();
      return std::nullopt;
    }
    if (!sock.read(rx)) return std::nullopt;
  }
}

// Sends what the negotiation has queued (Request, Reply or Reject), with the
// faults that act on the frames this IUT sends.
void send_output(Socket& sock, const FaultSet& f, mpa::Negotiation& n, const mpa::NegotiationConfig& nc,
                 bool initiator, bool accepting) {
  std::vector<std::uint8_t> out(n.pending_output().begin(), n.pending_output().end());
  n.output_sent(out.size());
  if (out.size() >= 20 && !initiator) {
    mpa::ReqRepHeader h(wire::Bytes(out).first<20>());
    using F = mpa::ReqRepSpec::Field;
    if (f.has(FaultId::kMpaReplyBadKey)) h.set_octets(F::Key, mpa::kRequestKey);
    if (accepting && f.has(FaultId::kMpaReplyWrongRevision)) h.set(F::Rev, h.get(F::Rev) == 1 ? 2 : 1);
    if (accepting && f.has(FaultId::kMpaIgnoreCrcRequest)) h.set(F::C, 0);
    if (!accepting && f.has(FaultId::kMpaRejectWithoutR)) h.set(F::R, 0);
    // Fault (RFC 6581 §9.1, §10): the Reject of an enhanced Request leaves
    // out the responder's IRD and ORD.
    const bool drop_enhanced = !accepting && f.has(FaultId::kMpaRejectWithoutIrdOrd) && h.get(F::S) == 1 &&
                               out.size() >= mpa::kReqRepHeaderSize + mpa::kEnhancedDataSize;
    if (drop_enhanced) h.set(F::S, 0).set(F::PD_Length, h.get(F::PD_Length) - mpa::kEnhancedDataSize);
    std::copy(h.bytes().begin(), h.bytes().end(), out.begin());
    if (drop_enhanced) {
      constexpr auto kAt = static_cast<std::ptrdiff_t>(mpa::kReqRepHeaderSize);
      out.erase(out.begin() + kAt, out.begin() + kAt + static_cast<std::ptrdiff_t>(mpa::kEnhancedDataSize));
    }
    if (accepting && h.get(F::Rev) == 2 && h.get(F::S) == 1 && out.size() >= 24) {
      // Faults in the responder's enhanced data (RFC 6581 §9.1, §9.2).
      mpa::EnhancedDataHeader e(wire::Bytes(out).subspan(20).first<4>());
      using E = mpa::EnhancedDataSpec::Field;
      if (f.has(FaultId::kMpaNoNegotiationTaken)) {
        if (e.get(E::IRD) == mpa::kMaxIrdOrd) e.set(E::IRD, nc.ird);
        if (e.get(E::ORD) == mpa::kMaxIrdOrd) e.set(E::ORD, nc.ord);
      }
      if (f.has(FaultId::kMpaIrdOrdOverFlags)) e.set(E::A, 0).set(E::B, 0).set(E::C, 0).set(E::D, 0);
      if (f.has(FaultId::kMpaRtrFlagsWithoutP2p) && e.get(E::A) == 0) e.set(E::B, 1).set(E::C, 1).set(E::D, 1);
      std::copy(e.bytes().begin(), e.bytes().end(), out.begin() + 20);
    }
  }
  if (out.size() >= 24 && initiator && nc.peer_to_peer) {
    // Faults in the initiator's enhanced data (RFC 6581 §9.2).
    mpa::EnhancedDataHeader e(wire::Bytes(out).subspan(20).first<4>());
    using E = mpa::EnhancedDataSpec::Field;
    if (f.has(FaultId::kMpaP2pNoRtrOffered)) e.set(E::B, 0).set(E::C, 0).set(E::D, 0);
    if (f.has(FaultId::kMpaRtrReadWithoutOrd)) e.set(E::ORD, 0);
    std::copy(e.bytes().begin(), e.bytes().end(), out.begin() + 20);
  }
  if (!out.empty()) sock.send(out);
}

// A startup that failed (RFC 5044 §7.1.2, §8; RFC 6581 §9, §10): the Reject
// or the Terminate the failure asks for, then the close.
void end_failed_startup(Socket& sock, const FaultSet& f, mpa::Negotiation& n, const mpa::NegotiationConfig& nc,
                        bool initiator, rdmap::Stream& st) {
  const auto& fail = *n.failure();
  sock.emit(IutEvent::Kind::kConnection, "rejected", {}, "MPA negotiation failed");
  if (!(fail.action == mpa::FailureAction::kSendRejectThenClose && f.has(FaultId::kMpaCloseWithoutReject)))
    send_output(sock, f, n, nc, initiator, false);
  if (fail.action == mpa::FailureAction::kSendTerminateThenClose && fail.terminate_code) {
    // RFC 6581 §10 / RFC 5044 §8: the Terminate follows, framed as the
    // two frames asked (RFC 5044 §7.1.2: CRC when either set C, Markers
    // when the Reply's M asked for them). A Reply that did not decode
    // settled nothing: no Markers, and a CRC, which a receiver that
    // expects one checks and one that does not ignores (RFC 5044 §4.1).
    const auto& reply = n.peer_frame();
    const bool markers = reply && reply->markers && nc.can_send_markers;
    const bool crc = reply ? nc.want_crc || reply->crc : true;
    mpa::Framer framer(mpa::FramerConfig{.markers = markers, .crc = crc, .stream_position = 0});
    st.report_llp_error(*fail.terminate_code);
    std::vector<std::uint8_t> out;
    while (auto seg = st.take_outgoing()) {
      if (!rewrite_outgoing(f, *seg)) continue;
      wire::Chunks ulpdu;
      ulpdu.append(seg->header());
      framer.frame(ulpdu, out);
    }
    sock.send(out);
  }
  sock.close_gracefully();
}

// Full operation begins (RFC 5044 §7.1.2, RFC 6581 §5, §9.2): the IRD/ORD
// settled, the initiator's RTR and first Send, then the test ULP.
void begin_full_operation(Socket& sock, const FaultSet& f, bool initiator, const mpa::NegotiationOutcome& o,
                          rdmap::Stream& st, Memory& mem, const std::vector<std::uint8_t>& ad,
                          std::vector<std::uint8_t> rx) {
  sock.emit(IutEvent::Kind::kConnection, "established", {},
            "rev " + std::to_string(o.revision) + (o.crc ? " crc=on" : " crc=off") +
                (o.markers_send || o.markers_receive ? " markers=on" : " markers=off") +
                (o.peer_to_peer ? " p2p" : ""));
  // RFC 6581 §5: with the IRD/ORD exchange, our ORD is what it settled (never
  // above the peer's IRD).
  if (o.enhanced) st.settle_ird_ord(o.ird, o.ord);
  // RFC 5044 §7.1.2, RFC 5040 §6.1: in the client/server model the initiator
  // sends the first FPDU. The test ULP as initiator opens with a Send that
  // carries its advertisement; in the peer-to-peer model the RTR the Reply
  // chose comes before it (RFC 6581 §9.2).
  mpa::RtrKind rtr = o.rtr_to_send;
  if (rtr != mpa::RtrKind::kNone && f.has(FaultId::kMpaInitiatorWrongRtr))
    rtr = rtr == mpa::RtrKind::kZeroLengthSend    ? mpa::RtrKind::kZeroLengthWrite
          : rtr == mpa::RtrKind::kZeroLengthWrite ? mpa::RtrKind::kZeroLengthRead
                                                  : mpa::RtrKind::kZeroLengthSend;
  (void)rdmap::post_rtr(st, rtr, kRtrWorkRequest);
  if (initiator && !f.has(FaultId::kMpaInitiatorWaits)) (void)st.post_send(900, wire::Chunks(wire::Bytes(ad)));
  run_full_operation(sock, f, o, st, mem, std::move(rx));
}

}  // namespace

void serve_iwarp(Socket& sock, const FaultSet& f, bool initiator, const InitiatorProfile& profile) {
  if (f.has(FaultId::kMpaNoHandshakeTimer)) sock.lifetime = Clock::duration::max() / 2;
  std::vector<std::uint8_t> rx;
  Memory mem;
  rdmap::StreamConfig sc;
  sc.mulpdu = 1024;
  // Fault (RFC 5044 §3): ULPDUs as long as ULPDU_Length can say, above 64768.
  if (f.has(FaultId::kDdpUlpduOver64768)) sc.mulpdu = 65535;
  sc.faults = f.stream_faults();
  sc.first_stag_key = sock.stag_key;
  rdmap::Stream st(sc);
  const std::vector<std::uint8_t> ad = make_advertisement(register_all(st, mem));

  mpa::NegotiationConfig nc = negotiation_config(sock, f, initiator, profile);
  std::vector<std::uint8_t> frame;
  const auto handshake_deadline = Clock::now() + kHandshakeTimer;
  if (!initiator) {
    // Gather the whole Request first: the test ULP's hint (in its private
    // data) decides whether we ask for Markers.
    auto request = gather_request(sock, f, rx, handshake_deadline);
    if (!request) return;
    frame = std::move(*request);
    patch_request(f, frame);
    if (auto req = mpa::decode_req_rep(frame, {.expect = mpa::FrameKind::kRequest, .check_reserved = false})) {
      const std::uint8_t hint = parse_hint(req->ulp_private_data);
      if (hint & kHintMarkers) nc.want_markers = true;
      // The test ULP's Reads need an ORD of at least 1: an IRD of 0 cannot
      // serve them, and the Request is rejected (RFC 6581 §9.1).
      if (hint & kHintReads) nc.required_ord = 1;
    }
  }
  if (sock.mpa.want_markers) nc.want_markers = *sock.mpa.want_markers;
  mpa::Negotiation n(nc);
  if (initiator) send_output(sock, f, n, nc, initiator, false);
  std::size_t used = 0;
  if (!initiator) {
    used = n.receive(frame);
    rx.erase(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(std::min(used, rx.size())));
  }
  for (;;) {
    if (n.state() == mpa::NegotiationState::kRequestReceived) n.accept(ad);
    if (n.state() == mpa::NegotiationState::kFullOperation) {
      send_output(sock, f, n, nc, initiator, true);
      break;
    }
    if (n.state() == mpa::NegotiationState::kFailed) return end_failed_startup(sock, f, n, nc, initiator, st);
    // RFC 5044 §7.1.2: the initiator's wait for the Reply is bounded.
    if (n.timer_running() && Clock::now() >= handshake_deadline && !f.has(FaultId::kMpaNoHandshakeTimer)) {
      n.timer_expired();
      continue;
    }
    if (!sock.read(rx)) return;
    if (initiator && f.has(FaultId::kMpaIgnorePdLimit)) swallow_oversized_reply_pd(rx);
    if (initiator && f.has(FaultId::kMpaInitiatorSendsUnsetRtr)) patch_reply_rtr(rx);
    used = n.receive(rx);
    rx.erase(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(std::min(used, rx.size())));
  }
  begin_full_operation(sock, f, initiator, *n.outcome(), st, mem, ad, std::move(rx));
}

}  // namespace rdmaconf::conformance::iut
