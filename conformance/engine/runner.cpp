// Runs one case on one TCP connection: the tester's side of the exchange.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

#include "clc/handshake.hpp"
#include "clc/messages.hpp"
#include "ddp/headers.hpp"
#include "engine.hpp"
#include "mpa/deframer.hpp"
#include "mpa/framer.hpp"
#include "mpa/req_rep.hpp"
#include "rdmap/diagnosis.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "test_ulp.hpp"
#include "units.hpp"

namespace rdmaconf::conformance {
namespace {

using Clock = std::chrono::steady_clock;

std::string hex(wire::Bytes b, std::size_t max = 32) {
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

std::vector<Block> clc_blocks(clc::Message& m);

struct Received {
  enum class Kind : std::uint8_t { kMpa, kFpdu, kClc, kMalformed } kind = Kind::kMalformed;
  std::string name;  // "mpa.reply", "send", "clc.decline", ...
  std::vector<std::uint8_t> octets;  // the unit (ULPDU for an FPDU)
  Segment segment;                   // FPDU: DDP/RDMAP blocks
  bool mpa_enhanced = false;
  std::optional<clc::Message> clc;
  std::size_t payload_at = 0;
  bool crc_ok = true;
  bool markers_ok = true;
  std::string problem;  // kMalformed, or a framing violation
  std::map<std::string, std::uint64_t, std::less<>> pseudo;

  // Blocks point into this object's octets: rebuilt on use, since a
  // Received is moved around after decoding.
  std::vector<Block> all_blocks() {
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
  wire::Bytes payload() const {
    const auto& o = kind == Kind::kFpdu ? segment.octets : octets;
    return wire::Bytes(o).subspan(std::min(payload_at, o.size()));
  }
};

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

std::string_view clc_name(clc::MessageType t) {
  switch (t) {
    case clc::MessageType::kProposal: return "clc.proposal";
    case clc::MessageType::kAccept: return "clc.accept";
    case clc::MessageType::kConfirm: return "clc.confirm";
    case clc::MessageType::kDecline: return "clc.decline";
  }
  return "clc";
}

// ------------------------------------------------------------------ session

enum class Phase : std::uint8_t { kMpaSetup, kFull, kClc, kDead };

struct Session {
  const Case& c;
  const RunOptions& o;
  CaseResult& result;
  int fd = -1;
  Clock::time_point start = Clock::now();
  Phase phase = Phase::kMpaSetup;
  std::vector<std::uint8_t> rx;
  bool eof = false, reset = false;
  Variables vars;
  Captures captures;  // `field=@name` values the IUT sent earlier in this case

  // MPA state
  std::vector<std::uint8_t> sent_frame;  // the tester's Request/Reply, as sent
  // RunOptions::reply_settle: the next send waits until then.
  std::optional<Clock::time_point> settle_until;
  std::optional<mpa::Framer> framer;
  std::unique_ptr<mpa::Deframer> deframer;
  std::uint32_t next_msn[4] = {1, 1, 1, 1};
  // CLC state: the reference machines build valid messages for the tester.
  std::unique_ptr<clc::ClientHandshake> clc_client;
  std::unique_ptr<clc::ServerHandshake> clc_server;
  std::vector<std::uint8_t> last_clc_received;

  Session(const Case& cc, const RunOptions& oo, CaseResult& r) : c(cc), o(oo), result(r) {}

  // The IUT's Request (role initiator): the first frame it sent, once whole.
  std::optional<std::vector<std::uint8_t>> iut_request() const {
    std::vector<std::uint8_t> iut;
    for (const auto& ch : result.exchange.chunks)
      if (!ch.from_tester) iut.insert(iut.end(), ch.octets.begin(), ch.octets.end());
    auto need = mpa::required_frame_size(iut);
    if (!need || iut.size() < *need) return std::nullopt;
    iut.resize(*need);
    return iut;
  }

  double now_ms() const { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }
  Duration scaled(Duration d) const {
    return Duration(static_cast<Duration::rep>(static_cast<double>(d.count()) * o.time_scale + 0.5));
  }

  void record(bool from_tester, std::string headline, std::string detail) {
    result.frames.push_back({from_tester, now_ms(), std::move(headline), std::move(detail)});
  }

  bool send_octets(wire::Bytes b) {
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

  // Reads what is available until `deadline`; false on timeout.
  bool read_more(Clock::time_point deadline) {
    if (eof || reset) return false;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{fd, POLLIN, 0};
      int r = ::poll(&p, 1, static_cast<int>(left));
      if (r < 0 && errno == EINTR) continue;
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

  enum class EventKind : std::uint8_t { kUnit, kClosed, kTimeout };
  struct Event {
    EventKind kind = EventKind::kTimeout;
    Received unit;
  };

  // Tries to take one complete unit from rx.
  std::optional<Received> take_unit() {
    if (phase == Phase::kDead) {
      rx.clear();
      return std::nullopt;
    }
    if (rx.empty()) return std::nullopt;
    if (phase == Phase::kMpaSetup) {
      auto need = mpa::required_frame_size(rx);
      if (!need) {
        Received u;
        u.kind = Received::Kind::kMalformed;
        u.name = "malformed";
        u.octets = rx;
        u.problem = "not a valid MPA Request/Reply: " + need.error().to_string();
        record(false, "<-- " + std::to_string(rx.size()) + " octets that are not an MPA frame", "    " + hex(rx) + "\n");
        rx.clear();
        phase = Phase::kDead;
        return u;
      }
      if (rx.size() < *need) return std::nullopt;
      Received u;
      u.octets.assign(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(*need));
      rx.erase(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(*need));
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
    if (phase == Phase::kClc) {
      if (rx.size() < clc::kHeaderSize) return std::nullopt;
      auto len = clc::message_length(rx);
      if (!len) {
        Received u;
        u.kind = Received::Kind::kMalformed;
        u.name = "malformed";
        u.octets = rx;
        u.problem = "not a CLC message: " + len.error().to_string();
        record(false, "<-- " + std::to_string(rx.size()) + " octets that are not a CLC message", "    " + hex(rx) + "\n");
        rx.clear();
        phase = Phase::kDead;
        return u;
      }
      if (rx.size() < *len) return std::nullopt;
      Received u;
      u.octets.assign(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(*len));
      rx.erase(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(*len));
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
      record(false, "<-- CLC " + u.name.substr(4) + ", " + std::to_string(u.octets.size()) + " octets",
             clc::describe(*u.clc));
      return u;
    }
    // Full operation: one FPDU.
    mpa::DeframeResult r = deframer->next(rx);
    if (std::holds_alternative<mpa::NeedMore>(r)) {
      // A length field that announces more than any FPDU can hold is caught
      // by the deframer; here the peer may simply be slow.
      return std::nullopt;
    }
    if (auto* e = std::get_if<mpa::DeframeError>(&r)) {
      Received u;
      u.kind = Received::Kind::kMalformed;
      u.name = "malformed";
      u.octets = rx;
      u.problem = "IUT sent a malformed FPDU: " + e->detail.to_string();
      record(false, "<-- malformed FPDU", "    " + e->detail.to_string() + "\n    " + hex(rx) + "\n");
      rx.clear();
      phase = Phase::kDead;
      return u;
    }
    const auto& f = std::get<mpa::Fpdu>(r);
    Received u;
    u.kind = Received::Kind::kFpdu;
    u.segment = decode_segment(f.ulpdu().to_vector());
    u.segment.rebuild_blocks();
    u.payload_at = u.segment.header_size;
    u.crc_ok = f.crc_status != mpa::CrcStatus::kMismatch;
    for (std::size_t i = 0; i < f.markers.size(); ++i)
      if (!f.markers[i].valid) u.markers_ok = false;
    if (!u.crc_ok) u.problem = "the IUT's FPDU carries a wrong CRC (RFC 5044 §4.4)";
    if (!u.markers_ok) u.problem = "the IUT's FPDU carries a Marker with a wrong FPDUPTR (RFC 5044 §4.3)";
    const std::size_t consumed = f.consumed;
    const auto& o = u.segment.octets;
    u.name = o.size() >= 2 ? std::string(message_name(o[1] & 0x0f)) : "fpdu";
    u.pseudo["payload_len"] = o.size() - std::min(o.size(), u.payload_at);
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
    return u;
  }

  Event next_event(Clock::time_point deadline) {
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

  // Full operation from the frames both sides sent (RFC 5044 §7.1.2: CRC if
  // either asked, Markers towards whoever asked for them).
  void enter_full_operation(wire::Bytes request, wire::Bytes reply) {
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
};

// ---------------------------------------------------------- building units

struct Built {
  std::vector<std::uint8_t> octets;
  std::string headline;
  std::string detail;
};

std::string apply_args(Session& s, std::vector<Block>& blocks, const std::vector<Arg>& args,
                       std::initializer_list<std::string_view> skip) {
  for (const Arg& a : args) {
    if (std::find(skip.begin(), skip.end(), a.name) != skip.end() || is_framing_arg(a.name)) continue;
    std::string name = a.name;
    auto hit = find_field(blocks, name);
    if (!hit && name == "code") hit = find_field(blocks, "errcode");
    if (!hit) return "no field '" + a.name + "' in this unit";
    auto v = resolve(a.value, hit->field, s.vars, &s.captures);
    if (auto* e = std::get_if<std::string>(&v)) return a.name + ": " + *e;
    store(*hit, std::get<Resolved>(v));
  }
  return {};
}

const Arg* find_arg(const std::vector<Arg>& args, std::string_view name) {
  for (const Arg& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

std::variant<std::uint64_t, std::string> number_arg(Session& s, const Arg& a) {
  auto v = resolve(a.value, nullptr, s.vars, &s.captures);
  if (auto* e = std::get_if<std::string>(&v)) return a.name + ": " + *e;
  const auto& r = std::get<Resolved>(v);
  if (!r.number) return a.name + ": expected a number";
  return *r.number;
}

// mpa.request / mpa.reply
std::variant<Built, std::string> build_mpa(Session& s, bool request, const std::vector<Arg>& args) {
  mpa::ReqRepFields f;
  f.kind = request ? mpa::FrameKind::kRequest : mpa::FrameKind::kReply;
  f.revision = 1;
  f.crc = true;
  if (const Arg* a = find_arg(args, "rev")) {
    auto n = number_arg(s, *a);
    if (auto* e = std::get_if<std::string>(&n)) return *e;
    f.revision = static_cast<std::uint8_t>(std::get<std::uint64_t>(n));
  }
  static constexpr std::string_view kEnhanced[] = {"p2p", "rtr_send", "ird", "rtr_write", "rtr_read", "ord", "A", "B", "C", "D", "IRD", "ORD"};
  bool wants_enhanced = f.revision == 2;
  if (const Arg* a = find_arg(args, "s"); a && a->value.kind == Value::Kind::kNumber && a->value.number == 0)
    wants_enhanced = false;
  if (wants_enhanced) f.enhanced = mpa::EnhancedData{.peer_to_peer = false, .rtr_send = false, .rtr_write = false,
                                                     .rtr_read = false, .ird = 4, .ord = 4};
  std::vector<std::uint8_t> pd;
  if (const Arg* h = find_arg(args, "hint")) {
    std::uint8_t flags = 0;
    if (h->value.kind == Value::Kind::kWord && h->value.text == "markers") flags |= kHintMarkers;
    else return std::string("hint: expected hint=markers");
    pd = make_hint(flags);
  }
  std::vector<std::uint8_t> raw_pd;
  bool have_raw_pd = false;
  if (const Arg* p = find_arg(args, "pd")) {
    auto b = payload_octets(p->value, s.vars);
    if (auto* e = std::get_if<std::string>(&b)) return "pd: " + *e;
    raw_pd = std::get<std::vector<std::uint8_t>>(b);
    have_raw_pd = true;
  }
  f.private_data = pd;
  Built out;
  mpa::encode_req_rep(f, out.octets);
  if (have_raw_pd) {
    out.octets.resize(20);
    out.octets.insert(out.octets.end(), raw_pd.begin(), raw_pd.end());
    wire::store_be(wire::MutableBytes(out.octets).subspan(18, 2), static_cast<std::uint16_t>(std::min<std::size_t>(raw_pd.size(), 0xffff)));
  }
  std::vector<Block> blocks{raw_block(mpa::ReqRepSpec::decl, out.octets, 0)};
  const bool has_enhanced_block = out.octets.size() >= 24 && f.enhanced;
  if (has_enhanced_block) blocks.push_back(raw_block(mpa::EnhancedDataSpec::decl, out.octets, 20));
  // Enhanced fields named without an enhanced block (Rev 1) are an error of the script.
  for (const Arg& a : args)
    for (std::string_view n : kEnhanced)
      if (a.name == n && !has_enhanced_block) return "field '" + a.name + "' needs a Rev 2 frame with S set";
  if (auto e = apply_args(s, blocks, args, {"rev", "hint", "pd"}); !e.empty()) return e;
  // rev was applied above through the encoder; apply it again in case it was forced.
  if (const Arg* a = find_arg(args, "rev")) {
    auto hit = find_field(blocks, "rev");
    auto v = resolve(a->value, hit->field, s.vars, &s.captures);
    if (auto* r = std::get_if<Resolved>(&v)) store(*hit, *r);
  }
  const mpa::ReqRepHeader h(wire::Bytes(out.octets).first<20>());
  out.headline = std::string("--> MPA ") + (request ? "Request" : "Reply") +
                 (h.flag(mpa::ReqRepSpec::Field::R) ? " (reject)" : "") + ", Rev " +
                 std::to_string(h.get(mpa::ReqRepSpec::Field::Rev)) + ", " + std::to_string(out.octets.size()) + " octets";
  out.detail = describe_blocks(blocks, out.octets, has_enhanced_block ? 24 : 20);
  return out;
}

// An RDMAP message in one FPDU.
std::variant<Built, std::string> build_fpdu(Session& s, const std::string& unit, const std::vector<Arg>& args) {
  if (!s.framer) return std::string("'" + unit + "' needs full operation: run 'handshake' first");
  // A test ULP command is a Send whose payload is the command (test_ulp.hpp).
  const bool command = unit == "ulp.command";
  Segment seg = default_segment(command ? "send" : unit, s.next_msn);
  seg.rebuild_blocks();
  std::vector<std::uint8_t> payload;
  if (command) {
    payload.assign(UlpCommandSpec::decl.size_octets, 0);
    Block b = raw_block(UlpCommandSpec::decl, payload, 0);
    using F = UlpCommandSpec::Field;
    b.set(UlpCommandSpec::fields[static_cast<std::size_t>(F::Magic)], kUlpMagic);
    b.set(UlpCommandSpec::fields[static_cast<std::size_t>(F::Version)], 1);
    b.set(UlpCommandSpec::fields[static_cast<std::size_t>(F::Count)], 1);
    seg.blocks.push_back(std::move(b));
  } else if (const Arg* p = find_arg(args, "payload")) {
    auto b = payload_octets(p->value, s.vars);
    if (auto* e = std::get_if<std::string>(&b)) return "payload: " + *e;
    payload = std::get<std::vector<std::uint8_t>>(b);
  }
  if (auto e = apply_args(s, seg.blocks, args, {}); !e.empty()) return e;
  // An opcode override may change the headers a segment has: keep the
  // octets, re-read the blocks.
  seg.rebuild_blocks();
  const bool tagged = (seg.octets[0] & 0x80) != 0;
  const bool msn_given = find_arg(args, "msn") != nullptr;
  if (!tagged && seg.octets.size() >= ddp::kUntaggedHeaderSize) {
    const std::uint32_t qn = static_cast<std::uint32_t>(wire::load_be(wire::Bytes(seg.octets).subspan(6, 4)));
    const std::uint32_t msn = static_cast<std::uint32_t>(wire::load_be(wire::Bytes(seg.octets).subspan(10, 4)));
    const bool last = (seg.octets[0] & 0x40) != 0;
    if (qn < 4 && last && (!msn_given || msn == s.next_msn[qn])) s.next_msn[qn] = msn + 1;
  }
  const std::size_t header_size = seg.octets.size();
  seg.octets.insert(seg.octets.end(), payload.begin(), payload.end());
  if (command) seg.blocks.push_back(raw_block(UlpCommandSpec::decl, seg.octets, header_size));

  mpa::FramerOverrides fo;
  bool bad_crc = false;
  for (const Arg& a : args) {
    if (a.name == "crc" && a.value.kind == Value::Kind::kWord && a.value.text == "bad") {
      bad_crc = true;
      continue;
    }
    if (a.name == "omit_markers") {
      fo.omit_markers = true;
      continue;
    }
    if (!is_framing_arg(a.name) || a.name == "payload" || a.name == "truncate" || a.name == "append") continue;
    auto n = number_arg(s, a);
    if (auto* e = std::get_if<std::string>(&n)) return *e;
    const std::uint64_t v = std::get<std::uint64_t>(n);
    if (a.name == "ulpdu_length") fo.ulpdu_length = static_cast<std::uint16_t>(v);
    else if (a.name == "pad") fo.pad_length = static_cast<std::size_t>(std::min<std::uint64_t>(v, 64));
    else if (a.name == "pad_octet") fo.pad_octet = static_cast<std::uint8_t>(v);
    else if (a.name == "crc") fo.crc = static_cast<std::uint32_t>(v);
    else if (a.name == "fpduptr") fo.fpdu_ptr = static_cast<std::uint16_t>(v);
    else if (a.name == "marker_res") fo.marker_reserved = static_cast<std::uint16_t>(v);
  }
  Built out;
  const std::size_t n = s.framer->frame(wire::Bytes(seg.octets), out.octets, fo);
  // The CRC is the FPDU's last four octets (a Marker due after them belongs
  // to the next FPDU); a bad one differs in its last octet.
  if (bad_crc && n >= 4) out.octets.back() ^= 0x5a;
  const std::uint8_t opcode = seg.octets.size() >= 2 ? (seg.octets[1] & 0x0f) : 0;
  out.headline = "--> " + std::string(message_name(opcode)) + (command ? " (test ULP command)" : "") + ", FPDU " + std::to_string(n) + " octets" +
                 (bad_crc ? ", bad CRC" : "") + (fo.ulpdu_length ? ", ULPDU_Length forced" : "");
  out.detail = describe_blocks(seg.blocks, seg.octets, header_size);
  return out;
}

clc::ClientConfig tester_client(const RunOptions& o) {
  clc::ClientConfig c;
  c.link.peer_id = 0x52434e4643000001ull;  // "RCNFC" + 1
  c.link.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xff, 0xfe, 0, 0, 0x01};
  c.link.mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
  c.link.qp_number = 0x000200;
  c.link.rmb_rkey = 0x1234;
  c.link.rmb_virtual_address = 0x100000;
  c.link.initial_psn = 0x10;
  c.v2.user_eids = {clc::make_eid(o.clc_eid)};
  c.v2.rocev2_gid = c.link.gid;
  c.ipv4 = {o.clc_subnet, o.clc_prefix_length};
  return c;
}

clc::ServerConfig tester_server(const RunOptions& o) {
  clc::ServerConfig c;
  const clc::ClientConfig cc = tester_client(o);
  c.link = cc.link;
  c.link.peer_id = 0x52434e4653000001ull;
  c.link.mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
  c.link.qp_number = 0x000300;
  c.v2 = cc.v2;
  c.ipv4 = cc.ipv4;
  return c;
}

std::variant<Built, std::string> build_clc(Session& s, const std::string& unit, const std::vector<Arg>& args) {
  std::vector<std::uint8_t> octets;
  if (unit == "clc.proposal") {
    clc::ClientConfig cfg = tester_client(s.o);
    if (const Arg* a = find_arg(args, "offer")) {
      const std::string v = a->value.text;
      cfg.offer_v1 = v == "v1" || v == "v1v2";
      cfg.offer_v2 = v == "v2" || v == "v1v2";
      if (!cfg.offer_v1 && !cfg.offer_v2) return std::string("offer: expected v1, v2 or v1v2");
    }
    s.clc_client = std::make_unique<clc::ClientHandshake>(cfg);
    octets = s.clc_client->start(true).send;
  } else if (unit == "clc.accept") {
    if (s.last_clc_received.empty()) return std::string("clc.accept answers a Proposal: expect one first");
    clc::ServerConfig cfg = tester_server(s.o);
    if (const Arg* a = find_arg(args, "choose")) {
      // The version the tester's server settles on, when the IUT offered both.
      const std::string v = a->value.text;
      cfg.accept_v1 = v == "v1";
      cfg.accept_v2 = v == "v2";
      if (!cfg.accept_v1 && !cfg.accept_v2) return std::string("choose: expected v1 or v2");
    }
    s.clc_server = std::make_unique<clc::ServerHandshake>(cfg);
    (void)s.clc_server->start(true);
    octets = s.clc_server->on_message(s.last_clc_received).send;
    if (octets.empty()) return std::string("the reference server would not answer the IUT's Proposal");
  } else if (unit == "clc.confirm") {
    if (!s.clc_client || s.last_clc_received.empty()) return std::string("clc.confirm answers an Accept: send clc.proposal and expect clc.accept first");
    const clc::Step step = s.clc_client->on_message(s.last_clc_received);
    octets = step.send;
    if (octets.empty()) return std::string("the reference client would not confirm the IUT's Accept");
    // The tester's client found the Accept wrong and would decline it: the
    // case cannot go on to judge what it was written for.
    if (step.outcome && step.outcome->kind == clc::OutcomeKind::kFallback && step.outcome->failed_check)
      return "the tester's client declines the IUT's Accept (" + std::string(step.outcome->failed_check->summary) +
             "), so it cannot send a Confirm";
  } else if (unit == "clc.decline") {
    octets = clc::encode(clc::build_decline(clc::kVersion2, 0x52434e4643000001ull, clc::kDeclPeerDecl, clc::kOsLinux));
  } else {
    return "unknown CLC unit '" + unit + "'";
  }
  auto m = clc::decode(octets);
  if (!m) return "the reference built an undecodable " + unit + ": " + m.error().to_string();
  clc::Message msg = std::move(*m);
  // `growth=N`: N octets of future growth between the IP Area Offset and the
  // prefix area of a version 1 SMC-R Proposal (RFC 7609 App. A.2.2); the
  // offset and Length follow.
  if (const Arg* a = find_arg(args, "growth")) {
    auto* p = std::get_if<clc::Proposal>(&msg);
    if (!p || p->version() != clc::kVersion1 || p->smcd) return std::string("growth: only in a version 1 SMC-R Proposal (offer=v1)");
    auto n = number_arg(s, *a);
    if (auto* e = std::get_if<std::string>(&n)) return *e;
    if (std::get<std::uint64_t>(n) > 256) return std::string("growth: at most 256 octets");
    p->v1_growth_area.assign(static_cast<std::size_t>(std::get<std::uint64_t>(n)), 0);
  }
  {
    std::vector<Block> blocks = clc_blocks(msg);
    if (auto e = apply_args(s, blocks, args, {"offer", "choose", "grow", "shrink", "growth"}); !e.empty()) return e;
  }
  // Recompute what a sender derives, then force again what the script forced.
  std::visit([](auto& x) { clc::finalize(x); }, msg);
  {
    std::vector<Block> blocks = clc_blocks(msg);
    if (auto e = apply_args(s, blocks, args, {"offer", "choose", "grow", "shrink", "growth"}); !e.empty()) return e;
  }
  Built out;
  out.octets = clc::encode(msg);
  // `grow=N` / `shrink=N`: N zero octets more, or N octets fewer, just before
  // the trailer, with Length following (unless the script forced it): a
  // message whose Length disagrees with its blocks but whose trailer is where
  // Length says (SMC v2: smc_clc_msg_prop_valid, smc_clc_msg_acc_conf_valid).
  for (const char* name : {"grow", "shrink"}) {
    const Arg* a = find_arg(args, name);
    if (!a) continue;
    auto n = number_arg(s, *a);
    if (auto* e = std::get_if<std::string>(&n)) return *e;
    const std::size_t k = static_cast<std::size_t>(std::get<std::uint64_t>(n));
    const std::size_t body_end = out.octets.size() - clc::kTrailerSize;
    if (std::string_view(name) == "grow") {
      if (k > 1024) return std::string("grow: at most 1024 octets");
      out.octets.insert(out.octets.begin() + static_cast<std::ptrdiff_t>(body_end), k, 0);
    } else {
      if (k > body_end - clc::kHeaderSize) return std::string("shrink: the message has fewer octets between header and trailer");
      out.octets.erase(out.octets.begin() + static_cast<std::ptrdiff_t>(body_end - k),
                       out.octets.begin() + static_cast<std::ptrdiff_t>(body_end));
    }
    if (!find_arg(args, "length")) {
      clc::ClcHeader h(wire::Bytes(out.octets).first<clc::kHeaderSize>());
      h.set(clc::ClcHeaderSpec::Field::Length, out.octets.size());
      std::copy(h.bytes().begin(), h.bytes().end(), out.octets.begin());
    }
  }
  out.headline = "--> CLC " + unit.substr(4) + ", " + std::to_string(out.octets.size()) + " octets";
  out.detail = clc::describe(msg);
  return out;
}

std::variant<Built, std::string> build(Session& s, const Step& st) {
  std::variant<Built, std::string> r = std::string("unknown unit '" + st.unit + "'");
  if (st.unit == "mpa.request" || st.unit == "mpa.reply") r = build_mpa(s, st.unit == "mpa.request", st.args);
  else if (st.unit == "raw") {
    Built b;
    b.octets = st.args.front().value.bytes;
    b.headline = "--> " + std::to_string(b.octets.size()) + " raw octets";
    b.detail = "    " + hex(b.octets, 64) + "\n";
    r = b;
  } else if (st.unit.starts_with("clc.")) r = build_clc(s, st.unit, st.args);
  else if (opcode_for(st.unit) || st.unit == "ddp.tagged" || st.unit == "ddp.untagged" || st.unit == "ulp.command")
    r = build_fpdu(s, st.unit, st.args);
  if (auto* b = std::get_if<Built>(&r)) {
    if (const Arg* t = find_arg(st.args, "truncate")) {
      auto n = number_arg(s, *t);
      if (auto* e = std::get_if<std::string>(&n)) return *e;
      const auto keep = std::min<std::uint64_t>(std::get<std::uint64_t>(n), b->octets.size());
      b->octets.resize(static_cast<std::size_t>(keep));
      b->headline += ", truncated to " + std::to_string(keep) + " octets";
    }
    if (const Arg* a = find_arg(st.args, "append")) {
      b->octets.insert(b->octets.end(), a->value.bytes.begin(), a->value.bytes.end());
      b->headline += ", " + std::to_string(a->value.bytes.size()) + " octets appended";
    }
  }
  return r;
}

// ---------------------------------------------------------------- matching

std::string describe_unit(const Received& u) {
  if (u.kind == Received::Kind::kMalformed) return u.problem;
  return u.name;
}

// A captured value, for messages.
std::string shown(const Captures& c, const std::string& name) {
  const auto it = c.find(name);
  if (it == c.end()) return "nothing captured";
  if (it->second.is_octets) return "hex:" + hex(it->second.octets, 64);
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(it->second.number.value_or(0)));
  return buf;
}

// Empty when `u` matches `alt`; otherwise why not.
std::string match(Session& s, const Alternative& alt, Received& u) {
  if (u.kind == Received::Kind::kMalformed) return u.problem;
  const std::string& want = alt.unit;
  bool name_ok = false;
  if (want == u.name) name_ok = true;
  else if (want == "fpdu" && u.kind == Received::Kind::kFpdu) name_ok = true;
  else if (want == "clc" && u.kind == Received::Kind::kClc) name_ok = true;
  else if (want == "mpa.reject" && u.name == "mpa.reply") {
    name_ok = true;
    const auto blocks = u.all_blocks();
    auto hit = find_field(blocks, "r");
    if (hit->block->get(*hit->field) != 1) return "expected an MPA Reply with R set, got one accepting the connection";
  }
  if (!name_ok) return "expected " + want + ", got " + describe_unit(u);
  if (u.kind == Received::Kind::kFpdu && (!u.crc_ok || !u.markers_ok)) {
    const Arg* crc = find_arg(alt.args, "crc_ok");
    if (!(crc && crc->value.kind == Value::Kind::kNumber && crc->value.number == 0)) return u.problem;
  }
  // Captures bind only when the whole alternative matches.
  Captures captures = s.captures;
  for (const Arg& a : alt.args) {
    if (!a.has_value && (a.name == "ends_case" || a.name == "unjudged")) continue;
    bool ok = false;
    std::string have;
    const bool binds = a.value.kind == Value::Kind::kCapture && !captures.contains(a.value.text);
    if (a.name == "payload") {
      auto b = payload_octets(a.value, s.vars);
      if (auto* e = std::get_if<std::string>(&b)) return "payload: " + *e;
      const auto& want_octets = std::get<std::vector<std::uint8_t>>(b);
      const wire::Bytes got = u.payload();
      ok = got.size() == want_octets.size() && std::equal(got.begin(), got.end(), want_octets.begin());
      if (a.negate()) ok = !ok;
      have = std::to_string(got.size()) + " octets " + hex(got, 16);
    } else if (auto it = u.pseudo.find(a.name); it != u.pseudo.end()) {
      const std::uint64_t value = a.mask ? it->second & *a.mask : it->second;
      if (binds) {
        captures[a.value.text] = Resolved::of(value);
        ok = true;
      } else {
        auto v = resolve(a.value, nullptr, s.vars, &captures);
        if (auto* e = std::get_if<std::string>(&v)) return a.name + ": " + *e;
        const auto& want = std::get<Resolved>(v).number;
        ok = want && compare(value, a.op, *want);
      }
      have = std::to_string(it->second);
    } else {
      const std::string name = a.name == "code" && u.name == "terminate" ? "errcode"
                               : a.name == "code"                         ? "decline.diagnosis"
                                                                          : a.name;
      const auto blocks = u.all_blocks();
      auto hit = find_field(blocks, name);
      if (!hit) return "no field '" + a.name + "' in the received " + u.name;
      have = show(*hit);
      if (binds) {
        Resolved r = capture(*hit);
        if (a.mask) {
          auto n = numeric_value(*hit);
          if (!n) return a.name + ": a mask needs a field of at most 8 octets";
          r = Resolved::of(*n & *a.mask);
        }
        captures[a.value.text] = std::move(r);
        ok = true;
      } else {
        auto v = resolve(a.value, hit->field, s.vars, &captures);
        if (auto* e = std::get_if<std::string>(&v)) return a.name + ": " + *e;
        const Resolved& want = std::get<Resolved>(v);
        if (!a.mask && (a.op == Op::kEq || a.op == Op::kNe || a.op == Op::kNone)) {
          ok = holds(*hit, want) == (a.op != Op::kNe);
        } else {
          // Masks and order comparisons read the field as a number.
          auto n = numeric_value(*hit);
          if (!n) return a.name + ": '" + std::string(to_string(a.op)) + "' needs a field of at most 8 octets";
          std::optional<std::uint64_t> w = want.number;
          if (want.is_octets && want.octets.size() <= 8) w = wire::load_be(want.octets);
          if (!w) return a.name + ": expected a number to compare with";
          ok = compare(a.mask ? *n & *a.mask : *n, a.op, *w);
        }
      }
    }
    if (!ok) {
      std::string lhs = a.name;
      if (a.mask) {
        char m[24];
        std::snprintf(m, sizeof m, "&0x%llx", static_cast<unsigned long long>(*a.mask));
        lhs += m;
      }
      const std::string want_text = a.value.kind == Value::Kind::kNumber    ? std::to_string(a.value.number)
                                    : a.value.kind == Value::Kind::kCapture ? "@" + a.value.text + " (" + shown(captures, a.value.text) + ")"
                                    : a.value.text.empty()                  ? std::string("...")
                                                                            : a.value.text;
      std::string reason = u.name + ": expected " + lhs + std::string(to_string(a.op)) + want_text + ", got " + have;
      // A known encoding mistake that explains the octets (rdmap/diagnosis.hpp).
      if (u.name == "terminate" && u.segment.octets.size() > ddp::kUntaggedHeaderSize)
        if (auto h = rdmap::diagnose_terminate(wire::Bytes(u.segment.octets).subspan(ddp::kUntaggedHeaderSize)))
          reason += " (hint: " + h->text + ")";
      return reason;
    }
  }
  s.captures = std::move(captures);
  return {};
}

std::string alternatives_text(const Step& st) {
  std::string s;
  for (const Alternative& a : st.alternatives) {
    if (!s.empty()) s += " or ";
    s += a.unit;
  }
  return s;
}

// ------------------------------------------------------------------- steps

struct StepOutcome {
  enum class Kind : std::uint8_t { kOk, kMismatch, kUnimplemented, kError } kind = Kind::kOk;
  std::string reason;
  bool ends_case = false;  // an alternative marked `ends_case` matched: the case passed
};

// `< message ...`: the next FPDUs are the segments of one message, up to the
// one with L set, and no segment of another message comes between them (RFC
// 5041 §5.2: a Data Source does not interleave messages on a stream; MO or
// TO runs on without a gap). The matchers judge the first segment's headers;
// `payload_len` and `segments` count the whole message.
StepOutcome expect_message(Session& s, const Step& st) {
  const Duration bound = s.scaled(st.within.value_or(Duration(2000)));
  const auto deadline = Clock::now() + bound;
  std::optional<Received> first;
  std::uint64_t total = 0, segments = 0, next_offset = 0;
  bool tagged = false;
  std::uint64_t qn = 0, msn = 0, stag = 0;
  auto field = [](Received& u, std::string_view name) -> std::uint64_t {
    auto blocks = u.all_blocks();
    auto hit = find_field(blocks, std::string(name));
    return hit ? hit->block->get(*hit->field) : 0;
  };
  for (;;) {
    auto ev = s.next_event(deadline);
    if (ev.kind == Session::EventKind::kClosed)
      return {StepOutcome::Kind::kMismatch, first ? "the IUT closed the connection inside a message (no segment with L set)"
                                                  : "the IUT closed the connection; expected a message"};
    if (ev.kind == Session::EventKind::kTimeout)
      return {StepOutcome::Kind::kMismatch, (first ? "the message's last segment (L set) did not arrive within "
                                                   : "no message within ") +
                                                std::to_string(bound.count()) + " ms"};
    Received& u = ev.unit;
    if (u.kind != Received::Kind::kFpdu) return {StepOutcome::Kind::kMismatch, "expected a message's segment, got " + describe_unit(u)};
    if (!u.crc_ok || !u.markers_ok) return {StepOutcome::Kind::kMismatch, u.problem};
    const bool t = field(u, "t") != 0;
    const std::uint64_t offset = field(u, t ? "to" : "mo");
    const std::uint64_t len = u.pseudo["payload_len"];
    if (!first) {
      tagged = t;
      qn = field(u, "qn");
      msn = field(u, "msn");
      stag = field(u, "stag");
      first = u;
    } else {
      const bool same = t == tagged && (t ? field(u, "stag") == stag : field(u, "qn") == qn && field(u, "msn") == msn);
      auto which = [&](Received& x, bool x_tagged) {
        return x_tagged ? "STag " + std::to_string(field(x, "stag"))
                        : "QN " + std::to_string(field(x, "qn")) + " MSN " + std::to_string(field(x, "msn"));
      };
      if (!same)
        return {StepOutcome::Kind::kMismatch, "interleaved: a " + describe_unit(u) + " segment (" + which(u, t) +
                                                  ") arrived before the last segment (L set) of the message of " +
                                                  which(*first, tagged) + " (RFC 5041 §5.2)"};
      if (offset != next_offset)
        return {StepOutcome::Kind::kMismatch, std::string(t ? "TO" : "MO") + " " + std::to_string(offset) + " where the message's previous segment ended at " +
                                                  std::to_string(next_offset) + " (RFC 5041 §5.2)"};
    }
    next_offset = offset + len;
    total += len;
    ++segments;
    if (field(u, "l")) break;
  }
  first->pseudo["payload_len"] = total;
  first->pseudo["segments"] = segments;
  Alternative a = st.alternatives.front();
  a.unit = "fpdu";
  if (std::string m = match(s, a, *first); !m.empty()) return {StepOutcome::Kind::kMismatch, "message: " + m};
  return {};
}

// RFC 5044 §7.1.1 (Rev), RFC 6581 §6: an initiator that cannot work with the
// revision of the Reply closes the connection. When the tester's accepting
// Reply named a lower revision than the IUT's Request (a Rev 1 Reply to a
// Rev 2 Request) and the IUT then closed, the case cannot show what it was
// written for: the IUT lacks Rev 1 as initiator. Empty otherwise.
std::string closed_on_lower_revision(const Session& s) {
  using F = mpa::ReqRepSpec::Field;
  if (s.c.role != Role::kInitiator || s.sent_frame.size() < 20) return {};
  const auto request = s.iut_request();
  if (!request) return {};
  const mpa::ReqRepHeader rq(wire::Bytes(*request).first<20>());
  const mpa::ReqRepHeader rp(wire::Bytes(s.sent_frame).first<20>());
  if (rp.flag(F::R) || rp.get(F::Rev) >= rq.get(F::Rev)) return {};
  return "the IUT closed after the tester's Rev " + std::to_string(rp.get(F::Rev)) + " Reply to its Rev " +
         std::to_string(rq.get(F::Rev)) + " Request, as an initiator that cannot work with that revision must " +
         "(RFC 5044 §7.1.1, RFC 6581 §6)";
}

StepOutcome expect(Session& s, const Step& st) {
  if (st.alternatives.size() == 1 && st.alternatives.front().unit == "message") return expect_message(s, st);
  if (st.alternatives.size() == 1 && is_agent_unit(st.alternatives.front().unit)) {
    if (!s.o.agent) return {StepOutcome::Kind::kUnimplemented, "no view of the IUT's own side in this run (rdmaconf run --agent)"};
    const std::string why = expect_agent(*s.o.agent, s.result.exchange, st, s.scaled(st.within.value_or(Duration(2000))));
    if (!why.empty()) return {StepOutcome::Kind::kMismatch, why};
    return {};
  }
  bool has_close = false, has_silence = false, has_unit = false;
  bool nothing_before_close = false;  // `close nothing_before`: no unit may come first
  bool reset_close = false;           // `close reset`: an RST, not a FIN
  bool unjudged_close = false;        // `close unjudged`: a close leaves the case nothing to judge
  for (const Alternative& a : st.alternatives) {
    if (a.unit == "close") {
      has_close = true;
      if (find_arg(a.args, "nothing_before")) nothing_before_close = true;
      if (find_arg(a.args, "reset")) reset_close = true;
      if (find_arg(a.args, "unjudged")) unjudged_close = true;
    }
    else if (a.unit == "silence") has_silence = true;
    else has_unit = true;
  }
  const Duration bound = s.scaled(st.within.value_or(has_unit || has_close ? Duration(2000) : Duration(300)));
  const auto deadline = Clock::now() + bound;
  std::string first_mismatch;
  for (;;) {
    auto ev = s.next_event(deadline);
    if (ev.kind == Session::EventKind::kClosed) {
      if (!has_close)
        if (std::string why = closed_on_lower_revision(s); !why.empty()) return {StepOutcome::Kind::kUnimplemented, why};
      if (has_close && reset_close && !s.reset)
        return {StepOutcome::Kind::kMismatch, "the IUT closed the connection with a FIN; expected a reset (RST)"};
      if (has_close && unjudged_close)
        return {StepOutcome::Kind::kUnimplemented, "the IUT closed the connection, which the RFC allows here; nothing is left for this case to judge"};
      if (has_close) return {};
      return {StepOutcome::Kind::kMismatch,
              "the IUT closed the connection; expected " + alternatives_text(st) +
                  (first_mismatch.empty() ? "" : " (before: " + first_mismatch + ")")};
    }
    if (ev.kind == Session::EventKind::kTimeout) {
      if (has_silence && first_mismatch.empty()) return {};
      if (!first_mismatch.empty()) return {StepOutcome::Kind::kMismatch, first_mismatch + "; and the IUT did not close the connection within " + std::to_string(bound.count()) + " ms"};
      return {StepOutcome::Kind::kMismatch, "nothing within " + std::to_string(bound.count()) + " ms; expected " + alternatives_text(st)};
    }
    std::string why;
    std::size_t tried = 0;
    for (const Alternative& a : st.alternatives) {
      if (a.unit == "close" || a.unit == "silence") continue;
      std::string m = match(s, a, ev.unit);
      ++tried;
      if (m.empty()) {
        // An accepting Reply to the tester's Request starts full operation.
        if (ev.unit.name == "mpa.reply" && s.c.role == Role::kResponder && s.sent_frame.size() >= 20 &&
            ev.unit.problem.empty() &&
            !mpa::ReqRepHeader(wire::Bytes(ev.unit.octets).first<20>()).flag(mpa::ReqRepSpec::Field::R))
        {
          s.enter_full_operation(s.sent_frame, ev.unit.octets);
          if (s.o.reply_settle.count() > 0) s.settle_until = Clock::now() + s.o.reply_settle;
        }
        if (find_arg(a.args, "ends_case")) return {StepOutcome::Kind::kOk, {}, true};
        if (find_arg(a.args, "unjudged"))
          return {StepOutcome::Kind::kUnimplemented, "the IUT sent " + describe_unit(ev.unit) +
                                                         ", which the RFC allows here; nothing is left for this case to judge"};
        return {};
      }
      // With several alternatives every one's reason is told (the first
      // alone often names the wrong one).
      if (why.find(m) == std::string::npos) why += (why.empty() ? "" : " | ") + m;
    }
    if (tried > 1 && why.find(" | ") != std::string::npos)
      why = "none of " + std::to_string(tried) + " alternatives matched: " + why;
    if (why.empty()) why = (has_silence ? "expected silence, got " : "got ") + describe_unit(ev.unit);
    if (!has_close) return {StepOutcome::Kind::kMismatch, why};
    if (nothing_before_close)
      return {StepOutcome::Kind::kMismatch, "the IUT sent " + describe_unit(ev.unit) + " where it must only close"};
    if (first_mismatch.empty()) first_mismatch = why;
    // `close` lets frames pass on the way to the close.
  }
}

StepOutcome handshake(Session& s, const Step& st) {
  if (s.c.role != Role::kResponder) return {StepOutcome::Kind::kError, "handshake is for role responder (the tester initiates)"};
  Step req = st;
  req.unit = "mpa.request";
  const bool at_once = find_arg(st.args, "at_once") != nullptr;
  std::erase_if(req.args, [](const Arg& a) { return a.name == "at_once"; });
  auto b = build(s, req);
  if (auto* e = std::get_if<std::string>(&b)) return {StepOutcome::Kind::kError, *e};
  Built& built = std::get<Built>(b);
  s.record(true, built.headline, built.detail);
  s.sent_frame = built.octets;
  if (!s.send_octets(built.octets)) return {StepOutcome::Kind::kMismatch, "the IUT closed the connection before the Request was sent"};
  auto ev = s.next_event(Clock::now() + s.scaled(Duration(3000)));
  const bool optional_feature = s.c.needs_item("rev2") || s.c.needs_item("markers");
  if (ev.kind != Session::EventKind::kUnit || ev.unit.name != "mpa.reply" || !ev.unit.problem.empty()) {
    std::string why = ev.kind == Session::EventKind::kTimeout ? "no MPA Reply to a valid Request"
                      : ev.kind == Session::EventKind::kClosed ? "the IUT closed the connection instead of replying to a valid Request"
                      : ev.unit.problem.empty() ? "expected an MPA Reply, got " + ev.unit.name
                                                : "malformed MPA Reply: " + ev.unit.problem;
    return {StepOutcome::Kind::kMismatch, "handshake: " + why};
  }
  const mpa::ReqRepHeader rp(wire::Bytes(ev.unit.octets).first<20>());
  if (rp.flag(mpa::ReqRepSpec::Field::R))
    return {optional_feature ? StepOutcome::Kind::kUnimplemented : StepOutcome::Kind::kMismatch,
            "handshake: the IUT rejected a valid Request (Rev " + std::to_string(rp.get(mpa::ReqRepSpec::Field::Rev)) + ")"};
  s.enter_full_operation(s.sent_frame, ev.unit.octets);
  if (!at_once && s.o.reply_settle.count() > 0) s.settle_until = Clock::now() + s.o.reply_settle;
  // RFC 5044 §7.1.1: either side may ask for CRCs; an IUT that always does
  // cannot show what it does without them.
  if (s.c.needs_item("no-crc") && s.vars["crc"])
    return {StepOutcome::Kind::kUnimplemented, "the IUT asks for CRCs itself (C set in its Reply)"};
  if (s.c.needs_item("markers") && find_arg(st.args, "hint") && !s.vars["iut.markers"])
    return {StepOutcome::Kind::kUnimplemented, "the IUT does not ask for Markers"};
  return {};
}

// RFC 6581 §9, §9.2: an accepting Reply with enhanced data answers a Rev 2
// Request with S set, and the peer-to-peer model and RTR kind it chooses must
// be ones the initiator offered. When the IUT's Request did not offer what
// the case's Reply chooses, the IUT lacks an optional feature: the case is
// unimplemented (as `handshake` does for a responder that refuses Rev 2).
std::string unoffered_choice(const Session& s, wire::Bytes reply) {
  using F = mpa::ReqRepSpec::Field;
  using E = mpa::EnhancedDataSpec::Field;
  const mpa::ReqRepHeader rp(reply.first<20>());
  if (rp.flag(F::R) || rp.get(F::Rev) != 2 || !rp.flag(F::S) || reply.size() < 24) return {};
  const auto request = s.iut_request();
  if (!request) return {};
  const mpa::ReqRepHeader rq(wire::Bytes(*request).first<20>());
  if (rq.get(F::Rev) != 2 || !rq.flag(F::S) || request->size() < 24)
    return "the IUT's Request asks for no RFC 6581 enhanced setup (Rev " + std::to_string(rq.get(F::Rev)) +
           (rq.flag(F::S) ? "" : ", S clear") + ")";
  const mpa::EnhancedDataHeader theirs(wire::Bytes(*request).subspan(20).first<4>());
  const mpa::EnhancedDataHeader ours(reply.subspan(20).first<4>());
  static constexpr std::pair<E, std::string_view> kOffers[] = {{E::A, "the peer-to-peer model (flag A)"},
                                                               {E::B, "the zero-length Send RTR (flag B)"},
                                                               {E::C, "the zero-length RDMA Write RTR (flag C)"},
                                                               {E::D, "the zero-length RDMA Read RTR (flag D)"}};
  for (const auto& [flag, what] : kOffers)
    if (ours.flag(flag) && !theirs.flag(flag))
      return "the IUT's Request does not offer " + std::string(what) + ", which this case's Reply chooses";
  return {};
}

StepOutcome send_step(Session& s, const Step& st) {
  if (s.settle_until) {
    std::this_thread::sleep_until(*s.settle_until);
    s.settle_until.reset();
  }
  if (st.unit == "fin") {
    s.record(true, "--> FIN (tester half-closes)", "");
    ::shutdown(s.fd, SHUT_WR);
    return {};
  }
  if (st.unit == "reset") {
    s.record(true, "--> RST (tester resets the connection)", "");
    linger l{1, 0};
    ::setsockopt(s.fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    ::close(s.fd);
    s.fd = -1;
    return {};
  }
  auto b = build(s, st);
  if (auto* e = std::get_if<std::string>(&b)) return {StepOutcome::Kind::kError, "line " + std::to_string(st.line) + ": " + *e};
  Built& built = std::get<Built>(b);
  if (st.unit == "mpa.reply" && s.c.role == Role::kInitiator)
    if (std::string lacks = unoffered_choice(s, built.octets); !lacks.empty())
      return {StepOutcome::Kind::kUnimplemented, lacks};
  s.record(true, built.headline, built.detail);
  if (st.unit == "mpa.request" || st.unit == "mpa.reply") s.sent_frame = built.octets;
  if (!s.send_octets(built.octets)) return {StepOutcome::Kind::kMismatch, "the IUT closed the connection before the tester could send " + st.unit};
  return {};
}

}  // namespace

CaseResult run_case(const Case& c, const RunOptions& o) {
  CaseResult result;
  result.c = &c;
  const auto started = Clock::now();
  for (const std::string& need : c.needs) {
    const std::string item = need.starts_with("buffer:") ? "buffer" : need;
    if (std::find(o.iut_lacks.begin(), o.iut_lacks.end(), item) == o.iut_lacks.end() &&
        std::find(o.iut_lacks.begin(), o.iut_lacks.end(), need) == o.iut_lacks.end())
      continue;
    result.verdict = Verdict::kUnimplemented;
    result.reason = "the IUT lacks '" + need + "' (--iut-lacks)";
    return result;
  }
  Session s(c, o, result);
  if (c.protocol == "clc") s.phase = Phase::kClc;
  std::string error;
  const Connector& conn = c.role == Role::kInitiator ? o.accept_initiator
                          : (c.protocol == "clc" && o.connect_clc) ? o.connect_clc
                                                                   : o.connect_responder;
  if (!conn) {
    result.verdict = Verdict::kError;
    result.reason = "no connection for role " + std::string(to_string(c.role));
    return result;
  }
  s.fd = conn(c, error);
  if (s.fd < 0) {
    result.verdict = Verdict::kError;
    result.reason = error;
    return result;
  }
  s.start = Clock::now();
  {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    char host[INET6_ADDRSTRLEN] = {};
    auto fmt = [&](sockaddr_storage& sa) {
      if (sa.ss_family == AF_INET) {
        auto* in = reinterpret_cast<sockaddr_in*>(&sa);
        ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
        return std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
      }
      return std::string("?");
    };
    if (::getsockname(s.fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) result.exchange.tester_address = fmt(a);
    len = sizeof a;
    if (::getpeername(s.fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) result.exchange.iut_address = fmt(a);
    int one = 1;
    ::setsockopt(s.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  result.configuration = o.configuration;
  const double agent_t0 = o.agent ? o.agent->now_ms() : 0;
  const std::uint64_t agent_epoch = o.agent ? o.agent->epoch() : 0;
  if (o.agent) o.agent->begin_case(result.exchange.tester_address, result.exchange.iut_address);
  const auto case_deadline = Clock::now() + s.scaled(c.timeout);
  StepOutcome outcome;
  int line = 0;
  for (const Step& st : c.steps) {
    line = st.line;
    if (Clock::now() > case_deadline) {
      outcome = {StepOutcome::Kind::kMismatch, "the case did not finish within its timeout"};
      break;
    }
    switch (st.kind) {
      case StepKind::kHandshake: outcome = handshake(s, st); break;
      case StepKind::kSend: outcome = send_step(s, st); break;
      case StepKind::kExpect: outcome = expect(s, st); break;
      case StepKind::kWait: std::this_thread::sleep_for(s.scaled(st.duration)); break;
    }
    // Entering full operation as the responder: after an accepting Reply.
    if (outcome.kind == StepOutcome::Kind::kOk && st.kind == StepKind::kSend && st.unit == "mpa.reply" &&
        c.role == Role::kInitiator && s.sent_frame.size() >= 20 && s.phase == Phase::kMpaSetup) {
      const mpa::ReqRepHeader rp(wire::Bytes(s.sent_frame).first<20>());
      if (!rp.flag(mpa::ReqRepSpec::Field::R))
        if (auto iut = s.iut_request()) s.enter_full_operation(*iut, s.sent_frame);
    }
    if (outcome.kind != StepOutcome::Kind::kOk || outcome.ends_case) break;
  }
  if (s.fd >= 0) ::close(s.fd);
  if (o.agent) collect_agent_view(*o.agent, result, agent_t0, s.scaled(o.agent_settle));
  result.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  switch (outcome.kind) {
    case StepOutcome::Kind::kOk: result.verdict = Verdict::kPass; break;
    case StepOutcome::Kind::kUnimplemented: result.verdict = Verdict::kUnimplemented; break;
    case StepOutcome::Kind::kError: result.verdict = Verdict::kError; break;
    case StepOutcome::Kind::kMismatch:
      result.verdict = is_mandatory(c.level)    ? Verdict::kFail
                       : is_recommended(c.level) ? (o.strict ? Verdict::kFail : Verdict::kNonStrict)
                                                 : Verdict::kInformational;
      break;
  }
  if (outcome.kind != StepOutcome::Kind::kOk) {
    result.reason = outcome.reason;
    result.failed_line = line;
  }
  // The agent went away during the case: the IUT's side was torn down
  // under it, so no verdict about the IUT stands.
  if (o.agent && o.agent->epoch() != agent_epoch && result.verdict != Verdict::kUnimplemented) {
    result.reason = "lost the agent during the case (it stopped or restarted)" +
                    (result.reason.empty() ? std::string() : "; " + result.reason);
    result.verdict = Verdict::kError;
  }
  return result;
}

}  // namespace rdmaconf::conformance
