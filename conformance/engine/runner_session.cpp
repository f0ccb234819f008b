// The tester's side of a case's connection: reading what the IUT sends and
// cutting it into units, as the phase reads it — an MPA Request or Reply
// during startup (RFC 5044 §7.1, RFC 6581), one FPDU's DDP segment in full
// operation (RFC 5044 §4-§6, RFC 5041, RFC 5040), a CLC message (RFC 7609
// App. A) — each decoded through the declarations of reference/ and recorded
// for the report (runner_session.hpp).
#include "engine/runner_session.hpp"
#include "engine/runner_sctp.hpp"
#include "engine/runner_smcr.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>

#include "ddp/headers.hpp"
#include "mpa/req_rep.hpp"
#include "rdmap/headers.hpp"
#include "engine/test_ulp.hpp"

namespace rdmaconf::conformance::runner {

std::string hex(wire::Bytes b, std::size_t max) {
  std::string s;
  char buf[4];
  for (std::size_t i = 0; i < b.size() && i < max; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    s += buf;
  }
  if (b.size() > max) s += "...";
  return s;
}

std::string describe_blocks(const std::vector<Block>& blocks, const std::vector<std::uint8_t>& octets,
                            std::size_t header_size) {
  std::string d;
  for (const Block& b : blocks) {
    d += "    " + std::string(b.decl->name) + ":";
    for (const wire::FieldDecl& f : b.fields) {
      FieldHit h{&b, &f};
      d += " " + std::string(f.abbrev) + "=" + show(h);
    }
    d += "\n";
  }
  if (octets.size() > header_size)
    d += "    payload: " + std::to_string(octets.size() - header_size) + " octets: " +
         hex(wire::Bytes(octets).subspan(header_size), 16) + "\n";
  return d;
}

// ------------------------------------------------------------ received units

namespace {

template <typename H>
Block header_block(H& h) {
  using Spec = std::remove_cvref_t<decltype(H::decl)>;
  (void)sizeof(Spec);
  Block b;
  b.decl = &H::decl;
  b.fields = H::decl.fields;
  auto idx = [](const wire::FieldDecl& f) {
    return static_cast<typename H::Field>(&f - H::decl.fields.data());
  };
  b.get = [&h, idx](const wire::FieldDecl& f) { return h.get(idx(f)); };
  b.set = [&h, idx](const wire::FieldDecl& f, std::uint64_t v) { h.set(idx(f), v); };
  b.octets = [&h, idx](const wire::FieldDecl& f) { return h.octets(idx(f)); };
  b.set_octets = [&h, idx](const wire::FieldDecl& f, wire::Bytes v) { h.set_octets(idx(f), v); };
  return b;
}

// The type-bits overlay of a CLC header as a block.
Block overlay_block(clc::ClcHeader& h, clc::MessageType t) {
  static const wire::HeaderDecl kOverlay{"CLC type-specific bits", "smcclc.hdr", 8, {}, "RFC 7609 App. A"};
  Block b;
  b.decl = &kOverlay;
  b.fields = clc::type_bits_decl(t);
  b.get = [&h](const wire::FieldDecl& f) { return clc::type_bits_field(h, f); };
  b.set = [&h](const wire::FieldDecl& f, std::uint64_t v) { clc::set_type_bits_field(h, f, v); };
  b.octets = [](const wire::FieldDecl&) { return wire::Bytes{}; };
  b.set_octets = [](const wire::FieldDecl&, wire::Bytes) {};
  return b;
}
}  // namespace

std::vector<Block> clc_blocks(clc::Message& m) {
  std::vector<Block> out;
  std::visit(
      [&](auto& msg) {
        using T = std::remove_cvref_t<decltype(msg)>;
        out.push_back(header_block(msg.header));
        out.push_back(overlay_block(msg.header, clc::message_type(m)));
        if constexpr (std::is_same_v<T, clc::Proposal>) {
          out.push_back(header_block(msg.body));
          if (msg.smcd) out.push_back(header_block(*msg.smcd));
          if (msg.ip_prefix) out.push_back(header_block(*msg.ip_prefix));
          if (msg.v2_ext) out.push_back(header_block(*msg.v2_ext));
          if (!msg.user_eids.empty()) out.push_back(header_block(msg.user_eids[0]));
          if (msg.smcd_v2_ext) out.push_back(header_block(*msg.smcd_v2_ext));
        } else if constexpr (std::is_same_v<T, clc::AcceptConfirm>) {
          if (msg.smcr) out.push_back(header_block(*msg.smcr));
          if (msg.smcr_v2) out.push_back(header_block(*msg.smcr_v2));
          if (msg.smcd) out.push_back(header_block(*msg.smcd));
          if (msg.fce) out.push_back(header_block(*msg.fce));
          if (msg.fce_v2x) out.push_back(header_block(*msg.fce_v2x));
          if (msg.gid_list) out.push_back(header_block(*msg.gid_list));
        } else {
          out.push_back(header_block(msg.body));
          if (msg.v2_diagnosis) out.push_back(header_block(*msg.v2_diagnosis));
        }
        out.push_back(header_block(msg.trailer));
      },
      m);
  return out;
}

namespace {
std::string_view clc_name(clc::MessageType t) {
  switch (t) {
    case clc::MessageType::kProposal: return "clc.proposal";
    case clc::MessageType::kAccept: return "clc.accept";
    case clc::MessageType::kConfirm: return "clc.confirm";
    case clc::MessageType::kDecline: return "clc.decline";
  }
  return "clc";
}
}  // namespace

std::vector<Block> Received::all_blocks() {
  if (kind == Kind::kFpdu) {
    segment.rebuild_blocks();
    return segment.blocks;
  }
  if (kind == Kind::kClc && clc) return clc_blocks(*clc);
  std::vector<Block> b;
  if (kind == Kind::kMpa && octets.size() >= 20) {
    b.push_back(raw_block(mpa::ReqRepSpec::decl, octets, 0));
    if (mpa_enhanced) b.push_back(raw_block(mpa::EnhancedDataSpec::decl, octets, 20));
  }
  return b;
}

// ------------------------------------------------------------------ session

std::optional<std::vector<std::uint8_t>> Session::iut_request() const {
  std::vector<std::uint8_t> iut;
  for (const auto& ch : result.exchange.chunks)
    if (!ch.from_tester) iut.insert(iut.end(), ch.octets.begin(), ch.octets.end());
  auto need = mpa::required_frame_size(iut);
  if (!need || iut.size() < *need) return std::nullopt;
  iut.resize(*need);
  return iut;
}

void Session::sent(const Step& st, wire::Bytes octets) {
  last_sent.unit = st.unit;
  last_sent.fields.clear();
  // The payload's octets are what a case carries, not how it provokes.
  for (const Arg& a : st.args)
    if (a.name != "payload") last_sent.fields.push_back(a.name);
  std::sort(last_sent.fields.begin(), last_sent.fields.end());
  last_sent.fields.erase(std::unique(last_sent.fields.begin(), last_sent.fields.end()), last_sent.fields.end());
  last_sent.octets.assign(octets.begin(), octets.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(octets.size(), 256)));
}

bool Session::send_octets(wire::Bytes b) {
  result.exchange.chunks.push_back({true, now_ms(), std::vector<std::uint8_t>(b.begin(), b.end())});
  std::size_t at = 0;
  while (at < b.size()) {
    ssize_t n = ::send(fd, b.data() + at, b.size() - at, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    at += static_cast<std::size_t>(n);
  }
  return true;
}

bool Session::read_more(Clock::time_point deadline) {
  if (eof || reset) return false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    // A device's SMC-R link group keeps running while the tester waits on
    // TCP (smcr_tend): the wait goes in short slices, the group pumped
    // between them.
    const bool tend = smcr_tend(*this);
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(tend ? std::min<long long>(left, kSmcrTendSlice.count()) : left));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0 && tend) continue;
    if (r <= 0) return false;
    std::array<std::uint8_t, 65536> buf;
    ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      reset = true;
      result.exchange.reset_by_iut = true;
      return true;
    }
    if (n == 0) {
      eof = true;
      result.exchange.closed_by_iut = true;
      return true;
    }
    result.exchange.chunks.push_back({false, now_ms(), std::vector<std::uint8_t>(buf.begin(), buf.begin() + n)});
    // A peer that floods the tester is cut off: nothing a case expects is
    // this large.
    if (rx.size() + static_cast<std::size_t>(n) > (4u << 20)) {
      reset = true;
      return true;
    }
    rx.insert(rx.end(), buf.begin(), buf.begin() + n);
    return true;
  }
}

Received Session::give_up(std::string problem, std::string headline, std::string detail) {
  Received u;
  u.kind = Received::Kind::kMalformed;
  u.name = "malformed";
  u.octets = rx;
  u.problem = std::move(problem);
  u.stream_offset = rx_taken;
  u.stream_length = rx.size();
  record(false, std::move(headline), std::move(detail));
  rx_taken += rx.size();
  rx.clear();
  phase = Phase::kDead;
  return u;
}

std::optional<Received> Session::take_unit() {
  if (phase == Phase::kDead) {
    rx.clear();
    return std::nullopt;
  }
  if (rx.empty()) return std::nullopt;
  if (phase == Phase::kMpaSetup) return take_mpa_frame();
  if (phase == Phase::kClc) return take_clc_message();
  return take_fpdu();
}

// ---- MPA startup (RFC 5044 §7.1, RFC 6581 §5)

std::optional<Received> Session::take_mpa_frame() {
  auto need = mpa::required_frame_size(rx);
  if (!need)
    return give_up("not a valid MPA Request/Reply: " + need.error().to_string(),
                   "<-- " + std::to_string(rx.size()) + " octets that are not an MPA frame", "    " + hex(rx) + "\n");
  if (rx.size() < *need) return std::nullopt;
  Received u;
  u.octets.assign(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(*need));
  rx.erase(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(*need));
  u.stream_offset = rx_taken;
  u.stream_length = *need;
  rx_taken += *need;
  u.kind = Received::Kind::kMpa;
  const bool request = std::equal(mpa::kRequestKey.begin(), mpa::kRequestKey.end(), u.octets.begin());
  u.name = request ? "mpa.request" : "mpa.reply";
  const mpa::ReqRepHeader h(wire::Bytes(u.octets).first<20>());
  const bool enhanced = h.get(mpa::ReqRepSpec::Field::Rev) == 2 && h.flag(mpa::ReqRepSpec::Field::S) &&
                        u.octets.size() >= 24;
  u.mpa_enhanced = enhanced;
  u.pseudo["pd_len"] = u.octets.size() - 20;
  u.payload_at = enhanced ? 24 : 20;
  auto decoded = mpa::decode_req_rep(u.octets, {.expect = std::nullopt, .check_reserved = true});
  if (!decoded) u.problem = decoded.error().to_string();
  std::string headline = "<-- MPA " + std::string(request ? "Request" : "Reply") +
                         (h.flag(mpa::ReqRepSpec::Field::R) ? " (reject)" : "") + ", Rev " +
                         std::to_string(h.get(mpa::ReqRepSpec::Field::Rev)) + ", " + std::to_string(u.octets.size()) +
                         " octets";
  record(false, headline, describe_blocks(u.all_blocks(), u.octets, u.payload_at));
  return u;
}

void Session::enter_full_operation(wire::Bytes request, wire::Bytes reply) {
  const mpa::ReqRepHeader rq(request.first<20>()), rp(reply.first<20>());
  using F = mpa::ReqRepSpec::Field;
  const bool crc = rq.flag(F::C) || rp.flag(F::C);
  const bool tester_is_initiator = c.role == Role::kResponder;
  const auto& mine = tester_is_initiator ? rq : rp;
  const auto& theirs = tester_is_initiator ? rp : rq;
  framer.emplace(mpa::FramerConfig{.markers = theirs.flag(F::M), .crc = crc, .stream_position = 0});
  mpa::DeframerConfig dc;
  dc.markers = mine.flag(F::M);
  dc.crc = crc;
  dc.fail_on_error = false;
  deframer = std::make_unique<mpa::Deframer>(dc);
  phase = Phase::kFull;
  vars["iut.markers"] = theirs.flag(F::M);
  vars["crc"] = crc;
  // RFC 6581 §9.2: the peer-to-peer model when a Rev 2 Reply with enhanced
  // data echoes the A its Request set.
  auto flag_a = [](wire::Bytes frame) {
    const mpa::ReqRepHeader h(frame.first<20>());
    return h.get(F::Rev) == 2 && h.flag(F::S) && frame.size() >= 24 &&
           mpa::EnhancedDataHeader(frame.subspan(20).first<4>()).flag(mpa::EnhancedDataSpec::Field::A);
  };
  result.negotiated = Negotiated{.revision = static_cast<int>(rp.get(F::Rev)),
                                 .crc = crc,
                                 .markers_to_iut = theirs.flag(F::M),
                                 .markers_to_tester = mine.flag(F::M),
                                 .peer_to_peer = flag_a(request) && flag_a(reply)};
  // The IUT's advertisement (the test ULP profile).
  const wire::Bytes iut_frame = tester_is_initiator ? reply : request;
  std::size_t pd_at = 20;
  if (theirs.get(F::Rev) == 2 && theirs.flag(F::S) && iut_frame.size() >= 24) {
    const mpa::EnhancedDataHeader e(iut_frame.subspan(20).first<4>());
    vars["iut.ird"] = e.get(mpa::EnhancedDataSpec::Field::IRD);
    vars["iut.ord"] = e.get(mpa::EnhancedDataSpec::Field::ORD);
    pd_at = 24;
  }
  for (const auto& [name, v] : parse_advertisement(iut_frame.subspan(std::min(pd_at, iut_frame.size())))) vars[name] = v;
}

// ---- full operation: one FPDU (RFC 5044 §4-§6) and its DDP segment

Received ddp_unit(std::vector<std::uint8_t> segment) {
  Received u;
  u.kind = Received::Kind::kFpdu;
  u.segment = decode_segment(std::move(segment));
  u.segment.rebuild_blocks();
  u.payload_at = u.segment.header_size;
  const auto& o = u.segment.octets;
  u.name = o.size() >= ddp::kControlSize ? std::string(message_name(segment_opcode(o))) : "fpdu";
  u.pseudo["payload_len"] = o.size() - std::min(o.size(), u.payload_at);
  return u;
}

std::optional<Received> Session::take_fpdu() {
  mpa::DeframeResult r = deframer->next(rx);
  if (std::holds_alternative<mpa::NeedMore>(r)) {
    // A length field that announces more than any FPDU can hold is caught
    // by the deframer; here the peer may simply be slow.
    return std::nullopt;
  }
  if (auto* e = std::get_if<mpa::DeframeError>(&r))
    return give_up("IUT sent a malformed FPDU: " + e->detail.to_string(), "<-- malformed FPDU",
                   "    " + e->detail.to_string() + "\n    " + hex(rx) + "\n");
  const auto& f = std::get<mpa::Fpdu>(r);
  Received u = ddp_unit(f.ulpdu().to_vector());
  u.crc_ok = f.crc_status != mpa::CrcStatus::kMismatch;
  for (std::size_t i = 0; i < f.markers.size(); ++i)
    if (!f.markers[i].valid) u.markers_ok = false;
  if (!u.crc_ok) u.problem = "the IUT's FPDU carries a wrong CRC (RFC 5044 §4.4)";
  if (!u.markers_ok) u.problem = "the IUT's FPDU carries a Marker with a wrong FPDUPTR (RFC 5044 §4.3)";
  const std::size_t consumed = f.consumed;
  const auto& o = u.segment.octets;
  u.pseudo["ulpdu_length"] = f.ulpdu_length;
  u.pseudo["crc_ok"] = u.crc_ok;
  u.pseudo["markers"] = f.markers.size();
  // What RFC 5044 §4 asks a sender to send as zero, for scripts to match
  // (the framing checks above ignore them, as a receiver must).
  u.pseudo["crc_field"] = f.received_crc;
  u.pseudo["pad_zero"] = !f.pad_nonzero;
  bool markers_res_zero = true;
  for (std::size_t i = 0; i < f.markers.size(); ++i) markers_res_zero = markers_res_zero && f.markers[i].reserved == 0;
  u.pseudo["markers_res_zero"] = markers_res_zero;
  record(false,
         "<-- " + u.name + ", FPDU " + std::to_string(consumed) + " octets" + (u.crc_ok ? "" : ", CRC MISMATCH") +
             (f.markers.size() ? ", " + std::to_string(f.markers.size()) + " marker(s)" : ""),
         describe_blocks(u.segment.blocks, o, u.payload_at));
  rx.erase(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(consumed));
  u.stream_offset = rx_taken;
  u.stream_length = consumed;
  rx_taken += consumed;
  return u;
}

// ---- CLC (RFC 7609 App. A, SMC v2)

std::optional<Received> Session::take_clc_message() {
  if (rx.size() < clc::kHeaderSize) return std::nullopt;
  auto len = clc::message_length(rx);
  if (!len)
    return give_up("not a CLC message: " + len.error().to_string(),
                   "<-- " + std::to_string(rx.size()) + " octets that are not a CLC message", "    " + hex(rx) + "\n");
  if (rx.size() < *len) return std::nullopt;
  Received u;
  u.octets.assign(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(*len));
  rx.erase(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(*len));
  u.stream_offset = rx_taken;
  u.stream_length = *len;
  rx_taken += *len;
  last_clc_received = u.octets;
  auto m = clc::decode(u.octets);
  if (!m) {
    u.kind = Received::Kind::kMalformed;
    u.name = "malformed";
    u.problem = "malformed CLC message: " + m.error().to_string();
    record(false, "<-- malformed CLC message, " + std::to_string(u.octets.size()) + " octets",
           "    " + m.error().to_string() + "\n    " + hex(u.octets) + "\n");
    return u;
  }
  u.kind = Received::Kind::kClc;
  u.clc = std::move(*m);
  u.name = std::string(clc_name(clc::message_type(*u.clc)));
  if (auto* d = std::get_if<clc::Decline>(&*u.clc)) u.pseudo["code"] = d->diagnosis();
  // RFC 7609 App. A.2.3/A.2.4: the RMB must not run past 2^64.
  if (auto* a = std::get_if<clc::AcceptConfirm>(&*u.clc); a && a->smcr) u.pseudo["rmb_wraps"] = clc::rmb_wraps(*a->smcr);
  // SMC v2 (smc_clc_match_eid): the negotiated EID is one the tester
  // offered, the run's own (--clc-eid).
  if (auto* a = std::get_if<clc::AcceptConfirm>(&*u.clc); a && a->smcr_v2) {
    const clc::Eid mine = clc::make_eid(identity.eid);
    const auto eid = a->smcr_v2->octets(clc::SmcrV2AcceptConfirmSpec::Field::Eid);
    u.pseudo["eid_offered"] = std::equal(eid.begin(), eid.end(), mine.begin(), mine.end()) ? 1 : 0;
  }
  record(false, "<-- CLC " + u.name.substr(4) + ", " + std::to_string(u.octets.size()) + " octets",
         clc::describe(*u.clc));
  return u;
}

Session::Event Session::next_event(Clock::time_point deadline) {
  if (ddp_over_sctp) return sctp_next_event(*this, deadline);
  for (;;) {
    if (auto u = take_unit()) return Event{EventKind::kUnit, std::move(*u)};
    if (eof || reset) {
      if (!rx.empty() && phase != Phase::kDead) {
        // A truncated unit before the close.
        record(false, "<-- " + std::to_string(rx.size()) + " octets of an incomplete unit, then the IUT closed",
               "    " + hex(rx) + "\n");
        rx.clear();
      }
      return Event{EventKind::kClosed, {}};
    }
    if (!read_more(deadline)) return Event{EventKind::kTimeout, {}};
  }
}

}  // namespace rdmaconf::conformance::runner
