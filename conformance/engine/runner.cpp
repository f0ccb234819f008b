// The tester's side of a case's exchange, step by step: the steps (`<`
// expect, `>` send, handshake, wait) on one connection. run_case
// (runner_case.cpp) connects, runs the steps in order and grades the
// outcome. Receiving and cutting units is runner_session.cpp's, matching a
// unit against a step's alternatives runner_match.cpp's, building the
// tester's units runner_build.cpp's.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <thread>

#include "ddp/errors.hpp"
#include "ddp/headers.hpp"
#include "engine/engine.hpp"
#include "engine/needs.hpp"
#include "engine/runner_sctp.hpp"
#include "engine/runner_smcr.hpp"
#include "engine/in_passing.hpp"
#include "mpa/req_rep.hpp"
#include "engine/runner_match.hpp"
#include "engine/runner_session.hpp"

namespace rdmaconf::conformance {
namespace runner {
namespace {

// The closing event of the connection as findings name it.
std::string closed_as(const Session& s) { return s.reset ? "reset" : "close"; }

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
      return mismatch(Failure::Kind::kClosed,
                      first ? "the IUT closed the connection inside a message (no segment with L set)"
                            : "the IUT closed the connection; expected a message",
                      closed_as(s));
    if (ev.kind == Session::EventKind::kTimeout)
      return mismatch(Failure::Kind::kNothing,
                      (first ? "the message's last segment (L set) did not arrive within " : "no message within ") +
                          std::to_string(bound.count()) + " ms",
                      "nothing");
    Received& u = ev.unit;
    if (u.kind != Received::Kind::kFpdu)
      return mismatch(u.kind == Received::Kind::kMalformed ? Failure::Kind::kMalformed : Failure::Kind::kUnit, u,
                      "expected a message's segment, got " + describe_unit(u));
    if (!u.crc_ok || !u.markers_ok) return mismatch(framing_miss(u), u, u.problem);
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
      if (!same) {
        Miss m = miss(Failure::Kind::kField, {});
        m.field = "segments", m.want = "=one message", m.have = "interleaved";
        return mismatch(m, u, "interleaved: a " + describe_unit(u) + " segment (" + which(u, t) +
                                  ") arrived before the last segment (L set) of the message of " + which(*first, tagged) +
                                  " (RFC 5041 §5.2)");
      }
      if (offset != next_offset) {
        Miss m = miss(Failure::Kind::kField, {});
        m.field = t ? "to" : "mo", m.want = "=" + std::to_string(next_offset), m.have = std::to_string(offset);
        return mismatch(m, u, std::string(t ? "TO" : "MO") + " " + std::to_string(offset) +
                                  " where the message's previous segment ended at " + std::to_string(next_offset) +
                                  " (RFC 5041 §5.2)");
      }
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
  if (Miss m = match(s, a, *first); !m.matched()) return mismatch(m, *first, "message: " + m.why);
  return {};
}

// What an IUT's Proposal does not offer of what the case `needs` (role
// initiator): `smcr-v1` (SMC-R version 1, RFC 7609: Linux offers it only
// with a RoCE v1 GID), `smcr-v2` and `smcv2.1` (release 1 of SMC v2). A
// client offers the paths it has (SMC v2: the Proposal header's SMCv1 and
// SMCv2 Types, the v2 extension's Release) and the server picks among them,
// so offering less is no fault: the case is unimplemented. Empty when the
// Proposal offers what the case needs.
std::string clc_offer_lacks(const Session& s, const Received& u) {
  if (s.c.role != Role::kInitiator || u.name != "clc.proposal") return {};
  const auto* p = u.clc ? std::get_if<clc::Proposal>(&*u.clc) : nullptr;
  if (!p) return {};
  // A run over SMC-R version 2 (RunOptions::smcr_version) runs the smcr
  // suite's version-1 scripts over version 2: that is what the Proposal must offer.
  const bool run_v2 = s.c.protocol == "smcr" && s.o.smcr_version == 2;
  if (run_v2 && s.c.needs_item("smcr-v1") && (p->version() < clc::kVersion2 || !clc::offers_r(p->smcv2_type())))
    return "the IUT's Proposal offers no SMC-R version 2, which this run (--smcr-version 2) needs";
  if (!run_v2 && s.c.needs_item("smcr-v1") && !p->v1_smcr_identity())
    return "the IUT's Proposal offers no SMC-R version 1 (SMCv1 Type " +
           std::to_string(static_cast<int>(p->smcv1_type())) + "), which this case needs";
  if (s.c.needs_item("smcr-v2") && (p->version() < clc::kVersion2 || !clc::offers_r(p->smcv2_type())))
    return "the IUT's Proposal offers no SMC-R version 2, which this case needs";
  if (s.c.needs_item("smcv2.1") &&
      (!p->v2_ext || p->v2_ext->get(clc::V2ExtensionSpec::Field::Release) < clc::kRelease1))
    return "the IUT's Proposal offers no SMC v2.1 (v2 extension Release " +
           (p->v2_ext ? std::to_string(p->v2_ext->get(clc::V2ExtensionSpec::Field::Release)) : std::string("absent")) +
           "), which this case needs";
  return {};
}

// RFC 5044 §7.1.1 (Rev), RFC 6581 §6: an initiator that cannot work with the
// revision of the Reply closes the connection. When the tester's accepting
// Reply named a lower revision than the IUT's Request (a Rev 1 Reply to a
// Rev 2 Request) and the IUT then closed, or sent the LLP Terminate that
// ends such a connection (RFC 6581 §8), the case cannot show what it was
// written for: the IUT lacks Rev 1 as initiator. Empty otherwise.
std::string closed_on_lower_revision(const Session& s) {
  using F = mpa::ReqRepSpec::Field;
  if (s.c.role != Role::kInitiator || s.sent_frame.size() < 20) return {};
  const auto request = s.iut_request();
  if (!request) return {};
  const mpa::ReqRepHeader rq(wire::Bytes(*request).first<20>());
  const mpa::ReqRepHeader rp(wire::Bytes(s.sent_frame).first<20>());
  if (rp.flag(F::R) || rp.get(F::Rev) >= rq.get(F::Rev)) return {};
  return "the IUT ended the connection after the tester's Rev " + std::to_string(rp.get(F::Rev)) + " Reply to its Rev " +
         std::to_string(rq.get(F::Rev)) + " Request, as an initiator that cannot work with that revision must " +
         "(RFC 5044 §7.1.1, RFC 6581 §6)";
}

// The settings this pass set the IUT to ask for, for reasons: " (this
// pass: crc=on markers=off)", or nothing outside --agent passes.
std::string pass_note(const Session& s) {
  const MpaSettings& p = s.o.pass;
  std::string out;
  auto add = [&](const std::string& x) { out += (out.empty() ? "" : " ") + x; };
  if (p.revision) add("rev" + std::to_string(*p.revision));
  if (p.crc) add(std::string("crc=") + (*p.crc ? "on" : "off"));
  if (p.markers) add(std::string("markers=") + (*p.markers ? "on" : "off"));
  if (p.peer_to_peer) add(std::string("p2p=") + (*p.peer_to_peer ? "on" : "off"));
  return out.empty() ? out : " (this pass: " + out + ")";
}

// What the pass set the IUT to do (RunOptions::pass), held against a case
// that checks something else: a Reject of the tester's Request of the other
// revision, or a matcher on the M, C or Rev of the IUT's Request or Reply
// that fails only because the pass set that value (RFC 5044 §7.1.1: each
// side sets M for what it receives and may set C). The IUT's frame shows the
// pass's setting, not what the case checks. Empty when that is not so.
std::string set_by_pass(Session& s, const Alternative& alt, Received& u) {
  if (u.kind != Received::Kind::kMpa || u.octets.size() < 20) return {};
  using F = mpa::ReqRepSpec::Field;
  const mpa::ReqRepHeader h(wire::Bytes(u.octets).first<20>());
  // A responder set to one revision refuses a Request of another (RFC 5044
  // §7.1.2): the Reject answers the pass, not the case.
  if (s.o.pass.revision && u.name == "mpa.reply" && h.flag(F::R) && s.c.role == Role::kResponder &&
      s.sent_frame.size() >= 20) {
    const auto asked = mpa::ReqRepHeader(wire::Bytes(s.sent_frame).first<20>()).get(F::Rev);
    // Only the revisions there are (1, RFC 5044; 2, RFC 6581): refusing
    // any other is what a case that sends one checks.
    if ((asked == 1 || asked == 2) && static_cast<int>(asked) != *s.o.pass.revision)
      return "Revision: the pass set the IUT to Rev " + std::to_string(*s.o.pass.revision) + pass_note(s) +
             ", and it refuses this case's Rev " + std::to_string(asked) + " Request";
  }
  Alternative rest{alt.unit, {}};
  std::string bits;
  for (const Arg& a : alt.args) {
    // The bits the pass sets on the IUT's side: M (Markers), C (CRC), Rev.
    std::optional<std::uint64_t> setting;
    if (a.name == "m" && s.o.pass.markers) setting = *s.o.pass.markers;
    if (a.name == "c" && s.o.pass.crc) setting = *s.o.pass.crc;
    if (a.name == "rev" && s.o.pass.revision) setting = static_cast<std::uint64_t>(*s.o.pass.revision);
    if (setting) {
      const auto blocks = u.all_blocks();
      const auto hit = find_field(blocks, a.name);
      const Alternative one{alt.unit, {a}};
      if (hit && hit->block->get(*hit->field) == *setting && !match(s, one, u).matched()) {
        bits += std::string(bits.empty() ? "" : " and ") + (a.name == "m" ? "M" : a.name == "c" ? "C" : "Rev");
        continue;
      }
    }
    rest.args.push_back(a);
  }
  if (bits.empty() || !match(s, rest, u).matched()) return {};
  return "the pass set the IUT's " + bits + pass_note(s) + ", so its " + u.name +
         " shows that setting, not what this case checks";
}

// What an `expect` step accepts besides units: `close` (with how: an RST,
// a FIN, nothing before it, or a close that leaves nothing to judge) and
// `silence`.
struct Accepts {
  bool close = false, silence = false, unit = false;
  bool nothing_before_close = false;  // `close nothing_before`: no unit may come first
  bool reset_close = false;           // `close reset`: an RST, not a FIN
  bool fin_close = false;             // `close fin`: a FIN, not an RST
  bool unjudged_close = false;        // `close unjudged`: a close leaves the case nothing to judge

  explicit Accepts(const Step& st) {
    for (const Alternative& a : st.alternatives) {
      if (a.unit == "close") {
        close = true;
        if (find_arg(a.args, "nothing_before")) nothing_before_close = true;
        if (find_arg(a.args, "reset")) reset_close = true;
        if (find_arg(a.args, "fin")) fin_close = true;
        if (find_arg(a.args, "unjudged")) unjudged_close = true;
      }
      else if (a.unit == "silence") silence = true;
      else unit = true;
    }
  }
};

// The IUT closed the connection while the step waited. `first_mismatch`:
// a unit that matched nothing on the way, when `close` let it pass.
StepOutcome expect_closed(Session& s, const Step& st, const Accepts& acc, const std::string& first_mismatch) {
  if (!acc.close) {
    if (std::string why = closed_on_lower_revision(s); !why.empty()) return {StepOutcome::Kind::kUnimplemented, why};
    return mismatch(Failure::Kind::kClosed, "the IUT closed the connection; expected " + alternatives_text(st) +
                                                (first_mismatch.empty() ? "" : " (before: " + first_mismatch + ")"),
                    closed_as(s));
  }
  if (acc.reset_close && !s.reset)
    return mismatch(Failure::Kind::kClosed, "the IUT closed the connection with a FIN; expected a reset (RST)", "close");
  if (acc.fin_close && s.reset)
    return mismatch(Failure::Kind::kClosed, "the IUT reset the connection (RST); expected a FIN", "reset");
  if (acc.unjudged_close)
    return {StepOutcome::Kind::kUnimplemented, "the IUT closed the connection, which the RFC allows here; nothing is left for this case to judge"};
  return {};
}

// A unit matched alternative `a`: an accepting Reply to the tester's Request
// starts full operation (RFC 5044 §7.1.2); the alternative may end the case
// or leave it nothing to judge.
StepOutcome expect_matched(Session& s, const Alternative& a, const Received& u) {
  if (u.name == "mpa.reply" && s.c.role == Role::kResponder && s.sent_frame.size() >= 20 && u.problem.empty() &&
      !mpa::ReqRepHeader(wire::Bytes(u.octets).first<20>()).flag(mpa::ReqRepSpec::Field::R))
  {
    s.enter_full_operation(s.sent_frame, u.octets);
    if (s.o.reply_settle.count() > 0) s.settle_until = Clock::now() + s.o.reply_settle;
  }
  if (find_arg(a.args, "ends_case")) return {StepOutcome::Kind::kOk, {}, true};
  if (find_arg(a.args, "unjudged"))
    return {StepOutcome::Kind::kUnimplemented, "the IUT sent " + describe_unit(u) +
                                                   ", which the RFC allows here; nothing is left for this case to judge"};
  return {};
}

// A unit came that matched none of the step's alternatives: `why` says how
// each missed, `closest` the one findings judge it by. Nothing when `close`
// lets it pass on the way to the close (the first such is kept).
std::optional<StepOutcome> expect_missed(Session& s, const Step& st, const Accepts& acc, Received& u, std::string why,
                                         const std::optional<Miss>& closest, std::string& first_mismatch,
                                         StepOutcome& first_outcome) {
  for (const Alternative& a : st.alternatives)
    if (std::string set = set_by_pass(s, a, u); !set.empty()) return StepOutcome{StepOutcome::Kind::kUnimplemented, set};
  if (!acc.close && u.name == "terminate") {
    const auto blocks = u.all_blocks();
    const auto layer = find_field(blocks, "layer");
    if (layer && layer->block->get(*layer->field) == static_cast<std::uint64_t>(ddp::Layer::kLlp))
      if (std::string lower = closed_on_lower_revision(s); !lower.empty())
        return StepOutcome{StepOutcome::Kind::kUnimplemented, lower};
  }
  const Miss unit_miss =
      closest ? *closest
              : miss(u.kind == Received::Kind::kMalformed ? Failure::Kind::kMalformed : Failure::Kind::kUnit, why);
  if (!acc.close) return mismatch(unit_miss, u, why);
  if (acc.nothing_before_close)
    return mismatch(miss(Failure::Kind::kUnit, {}), u, "the IUT sent " + describe_unit(u) + " where it must only close");
  if (first_mismatch.empty()) {
    first_mismatch = why;
    first_outcome = mismatch(unit_miss, u, why);
  }
  return std::nullopt;
}

// `< anything within D`: reads and records whatever the IUT sends until the
// bound passes or it closes, matching nothing (a wire fuzzer's case judges
// what came only in passing). An accepting Reply among it starts full
// operation as in any expectation.
StepOutcome expect_anything(Session& s, const Step& st) {
  const auto deadline = Clock::now() + s.scaled(st.within.value_or(Duration(300)));
  for (;;) {
    auto ev = s.next_event(deadline);
    if (ev.kind == Session::EventKind::kTimeout) return {};
    if (ev.kind == Session::EventKind::kClosed) {
      s.skipping = s.skips_after_close();
      return {};
    }
    if (ev.unit.kind == Received::Kind::kMalformed) return {};  // nothing more can be cut from the stream
    (void)expect_matched(s, st.alternatives.front(), ev.unit);
  }
}

StepOutcome expect(Session& s, const Step& st) {
  if (st.alternatives.size() == 1 && st.alternatives.front().unit == "message") return expect_message(s, st);
  if (st.alternatives.size() == 1 && st.alternatives.front().unit == "anything") return expect_anything(s, st);
  if (st.alternatives.size() == 1 && is_agent_unit(st.alternatives.front().unit)) {
    if (!s.o.agent) return {StepOutcome::Kind::kUnimplemented, "no view of the IUT's own side in this run (rdmaconf run --agent)"};
    const std::string why = expect_agent(*s.o.agent, s.result.exchange, st, s.scaled(st.within.value_or(Duration(2000))));
    if (!why.empty()) return mismatch(Failure::Kind::kAgent, why, "agent");
    return {};
  }
  const Accepts acc(st);
  const Duration bound = s.scaled(st.within.value_or(acc.unit || acc.close ? Duration(2000) : Duration(300)));
  const auto deadline = Clock::now() + bound;
  std::string first_mismatch;
  StepOutcome first_outcome;  // the first unit that matched nothing, when `close` let it pass
  for (;;) {
    auto ev = s.next_event(deadline);
    if (ev.kind == Session::EventKind::kClosed) return expect_closed(s, st, acc, first_mismatch);
    if (ev.kind == Session::EventKind::kTimeout) {
      if (acc.silence && first_mismatch.empty()) return {};
      if (!first_mismatch.empty()) {
        first_outcome.reason = first_mismatch + "; and the IUT did not close the connection within " + std::to_string(bound.count()) + " ms";
        return first_outcome;
      }
      return mismatch(Failure::Kind::kNothing, "nothing within " + std::to_string(bound.count()) + " ms; expected " + alternatives_text(st),
                      "nothing");
    }
    if (std::string lacks = clc_offer_lacks(s, ev.unit); !lacks.empty()) return {StepOutcome::Kind::kUnimplemented, lacks};
    std::string why;
    std::size_t tried = 0;
    // The alternative that came closest is the one findings judge the
    // mismatch by: one a diagnosed mistake explains whole (the Terminate
    // matches it read as meant), else one whose unit came with a field that
    // differs, else the first.
    auto closeness = [](const Miss& m) { return m.explained ? 2 : m.kind == Failure::Kind::kField ? 1 : 0; };
    std::optional<Miss> closest;
    for (const Alternative& a : st.alternatives) {
      if (a.unit == "close" || a.unit == "silence") continue;
      Miss mm = match(s, a, ev.unit);
      ++tried;
      if (mm.matched()) return expect_matched(s, a, ev.unit);
      if (!closest || closeness(mm) > closeness(*closest)) closest = mm;
      // With several alternatives every one's reason is told (the first
      // alone often names the wrong one).
      if (why.find(mm.why) == std::string::npos) why += (why.empty() ? "" : " | ") + mm.why;
    }
    if (tried > 1 && why.find(" | ") != std::string::npos)
      why = "none of " + std::to_string(tried) + " alternatives matched: " + why;
    if (why.empty()) why = (acc.silence ? "expected silence, got " : "got ") + describe_unit(ev.unit);
    if (auto done = expect_missed(s, st, acc, ev.unit, why, closest, first_mismatch, first_outcome)) return *done;
    // `close` lets frames pass on the way to the close.
  }
}

StepOutcome handshake(Session& s, const Step& st) {
  if (s.ddp_over_sctp) return sctp_ddp_handshake(s, st);
  if (s.c.role != Role::kResponder) return {StepOutcome::Kind::kError, "handshake is for role responder (the tester initiates)"};
  Step req = st;
  req.unit = "mpa.request";
  const bool at_once = find_arg(st.args, "at_once") != nullptr;
  std::erase_if(req.args, [](const Arg& a) { return a.name == "at_once"; });
  auto b = build(s, req);
  if (auto* e = std::get_if<std::string>(&b)) return {StepOutcome::Kind::kError, *e};
  Built& built = std::get<Built>(b);
  s.record(true, built.headline, built.detail);
  s.sent(req, built.octets);
  s.sent_frame = built.octets;
  if (!s.send_octets(built.octets))
    return mismatch(Failure::Kind::kClosed, "the IUT closed the connection before the Request was sent", closed_as(s));
  auto ev = s.next_event(Clock::now() + s.scaled(Duration(3000)));
  const bool optional_feature = s.c.needs_item("rev2") || s.c.needs_item("markers");
  if (ev.kind != Session::EventKind::kUnit || ev.unit.name != "mpa.reply" || !ev.unit.problem.empty()) {
    std::string why = ev.kind == Session::EventKind::kTimeout ? "no MPA Reply to a valid Request"
                      : ev.kind == Session::EventKind::kClosed ? "the IUT closed the connection instead of replying to a valid Request"
                      : ev.unit.problem.empty() ? "expected an MPA Reply, got " + ev.unit.name
                                                : "malformed MPA Reply: " + ev.unit.problem;
    StepOutcome o = ev.kind == Session::EventKind::kUnit
                        ? mismatch(Failure::Kind::kHandshake, ev.unit, "handshake: " + why)
                        : mismatch(Failure::Kind::kHandshake, "handshake: " + why,
                                   ev.kind == Session::EventKind::kClosed ? closed_as(s) : "nothing");
    return o;
  }
  const mpa::ReqRepHeader rp(wire::Bytes(ev.unit.octets).first<20>());
  if (rp.flag(mpa::ReqRepSpec::Field::R)) {
    if (std::string set = set_by_pass(s, Alternative{"mpa.reply", {}}, ev.unit); !set.empty())
      return {StepOutcome::Kind::kUnimplemented, set};
    const std::string why =
        "handshake: the IUT rejected a valid Request (Rev " + std::to_string(rp.get(mpa::ReqRepSpec::Field::Rev)) + ")";
    if (optional_feature) return {StepOutcome::Kind::kUnimplemented, why};
    Miss m = miss(Failure::Kind::kHandshake, {});
    m.field = "r", m.want = "=0", m.have = "1";
    return mismatch(m, ev.unit, why);
  }
  s.enter_full_operation(s.sent_frame, ev.unit.octets);
  if (!at_once && s.o.reply_settle.count() > 0) s.settle_until = Clock::now() + s.o.reply_settle;
  // RFC 5044 §7.1.1: either side may ask for CRCs; an IUT that always does
  // cannot show what it does without them.
  if (s.c.needs_item("no-crc") && s.vars["crc"])
    return {StepOutcome::Kind::kUnimplemented, "CRC: the IUT asks for CRCs itself (C set in its Reply)" + pass_note(s)};
  if (s.c.needs_item("markers") && find_arg(st.args, "hint") && !s.vars["iut.markers"])
    return {StepOutcome::Kind::kUnimplemented, "Markers: the IUT does not ask for Markers (M clear in its Reply)" + pass_note(s)};
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

// What a step asks of the FPDUs the tester sends that the settings
// negotiated on this connection cannot carry (RFC 5044 §7.1.2: CRC when
// either side asked, Markers towards a side that asked): the case cannot be
// run as written here, and says which setting stands in its way. Empty when
// the step can be sent.
std::string unexpressible(const Session& s, const Step& st) {
  if (s.phase != Phase::kFull || !s.framer) return {};
  const mpa::FramerConfig& fc = s.framer->config();
  const auto& n = s.result.negotiated;
  const std::string settled = n ? " (this connection: " + n->to_string() + ")" : std::string();
  if (st.unit == "raw" && fc.markers)
    return "Markers: the IUT asked for Markers (M set in its frame), and octets given as 'raw' cannot carry them at "
           "their stream positions" + settled;
  if (const Arg* c = find_arg(st.args, "crc");
      c && c->value.kind == Value::Kind::kWord && c->value.text == "bad" && !fc.crc)
    return "CRC: neither side asked for CRCs (C clear in both frames), so the receiver ignores the CRC field and a "
           "bad CRC is not one" + settled;
  for (const char* marker_field : {"fpduptr", "marker_res", "omit_markers"})
    if (find_arg(st.args, marker_field) && !fc.markers)
      return std::string("Markers: the IUT did not ask for Markers (M clear in its frame), so the tester's FPDUs carry "
                         "none for '") + marker_field + "' to shape" + settled;
  return {};
}

// Sends what `more` held back (a script checked by check_case never leaves
// any before a step that does not send).
// A step that names an STag another connection of the case advertised
// (`$1.rw.stag`, docs/conformance.md "More than one connection") to see
// whether it reaches that connection's buffer from this one: when the IUT
// advertised the same value on this connection too, the value names a
// buffer of this one as well and the step cannot show it. Empty otherwise.
// (`recv.stag` counts posted receives; it is no STag.)
std::string advertised_here_too(const Session& s, const Step& st) {
  auto numbered = [](const std::string& n) { return !n.empty() && std::isdigit(static_cast<unsigned char>(n.front())); };
  for (const Arg& a : st.args) {
    const std::string& v = a.value.text;
    if (a.value.kind != Value::Kind::kVariable || !numbered(v) || !v.ends_with(".stag")) continue;
    const auto it = s.vars.find(v);
    if (it == s.vars.end()) continue;
    const std::uint64_t stag = it->second + static_cast<std::uint64_t>(a.value.offset);
    for (const auto& [name, value] : s.vars)
      if (!numbered(name) && name.ends_with(".stag") && !name.starts_with("recv.") && value == stag) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%08llx", static_cast<unsigned long long>(stag));
        return "the IUT advertised STag " + std::string(hex) + " as $" + v + " and as this connection's $" + name +
               ": the value names a buffer of this connection too, so the step cannot show whether the other "
               "connection's is reachable from here";
      }
  }
  return {};
}

bool flush_held(Session& s) {
  if (s.held.empty()) return true;
  std::vector<std::uint8_t> out;
  out.swap(s.held);
  return s.send_octets(out);
}

StepOutcome send_step(Session& s, const Step& st) {
  if (s.settle_until) {
    std::this_thread::sleep_until(*s.settle_until);
    s.settle_until.reset();
  }
  if (s.ddp_over_sctp && st.unit == "fin") return sctp_ddp_fin(s, st);
  if (st.unit == "fin" || st.unit == "reset") {
    s.sent(st, {});
    if (!flush_held(s))
      return mismatch(Failure::Kind::kClosed, "the IUT closed the connection before the tester could send", closed_as(s));
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
    if (s.smcr && s.o.tcp_reset_sent) s.o.tcp_reset_sent({s.result.exchange.tester_address, s.result.exchange.iut_address});
    return {};
  }
  if (std::string why = unexpressible(s, st); !why.empty()) return {StepOutcome::Kind::kUnimplemented, why};
  if (std::string why = advertised_here_too(s, st); !why.empty()) return {StepOutcome::Kind::kUnimplemented, why};
  auto b = build(s, st);
  if (auto* e = std::get_if<std::string>(&b)) return {StepOutcome::Kind::kError, "line " + std::to_string(st.line) + ": " + *e};
  Built& built = std::get<Built>(b);
  if (st.unit == "mpa.reply" && s.c.role == Role::kInitiator)
    if (std::string lacks = unoffered_choice(s, built.octets); !lacks.empty())
      return {StepOutcome::Kind::kUnimplemented, lacks};
  // Over SCTP the unit is one DDP segment, carried in one chunk (RFC 5043 §5.2.2).
  if (s.ddp_over_sctp) return sctp_ddp_send(s, st, built.octets, std::move(built.headline), std::move(built.detail));
  s.record(true, built.headline, built.detail);
  s.sent(st, built.octets);
  if (st.unit == "mpa.request" || st.unit == "mpa.reply") s.sent_frame = built.octets;
  // What `more` held goes first, in the same TCP send.
  std::vector<std::uint8_t> out;
  out.swap(s.held);
  const std::size_t first = out.size() + built.split_at.value_or(built.octets.size());
  out.insert(out.end(), built.octets.begin(), built.octets.end());
  if (built.more) {
    s.held = std::move(out);
    return {};
  }
  const wire::Bytes all(out);
  bool sent = s.send_octets(all.first(first));
  if (sent && first < all.size()) {
    // The IUT reads the first part on its own before the rest arrives.
    std::this_thread::sleep_for(s.scaled(built.pause));
    sent = s.send_octets(all.subspan(first));
  }
  if (!sent)
    return mismatch(Failure::Kind::kClosed, "the IUT closed the connection before the tester could send " + st.unit,
                    closed_as(s));
  return {};
}

StepOutcome run_step_as_written(Session& s, const Step& st) {
  if (s.sctp && !s.ddp_over_sctp) return run_sctp_step(s, st);
  if (is_smcr_step(s, st)) return run_smcr_step(s, st);
  if (st.kind != StepKind::kSend && !flush_held(s))
    return mismatch(Failure::Kind::kClosed, "the IUT closed the connection before the tester could send", closed_as(s));
  StepOutcome outcome;
  switch (st.kind) {
    case StepKind::kHandshake: outcome = handshake(s, st); break;
    case StepKind::kSend: outcome = send_step(s, st); break;
    case StepKind::kExpect: outcome = expect(s, st); break;
    case StepKind::kWait: std::this_thread::sleep_for(s.waited(st)); break;
    case StepKind::kConnection: break;  // which connection steps run on is run_case's (runner_case.cpp)
  }
  // Entering full operation as the responder: after an accepting Reply
  // (RFC 5044 §7.1.2).
  if (outcome.kind == StepOutcome::Kind::kOk && st.kind == StepKind::kSend && st.unit == "mpa.reply" &&
      s.c.role == Role::kInitiator && s.sent_frame.size() >= 20 && s.phase == Phase::kMpaSetup) {
    const mpa::ReqRepHeader rp(wire::Bytes(s.sent_frame).first<20>());
    if (!rp.flag(mpa::ReqRepSpec::Field::R))
      if (auto iut = s.iut_request()) s.enter_full_operation(*iut, s.sent_frame);
  }
  return outcome;
}

}  // namespace

StepOutcome run_step(Session& s, const Step& st) {
  if (s.skipping) return {};
  StepOutcome outcome = run_step_as_written(s, st);
  // `after_close: skip`: the IUT closing after the handshake ends this
  // connection's steps, not the case (a handshake it closes still fails,
  // and so does any step of the case's last connection: Session).
  if (s.skips_after_close() && st.kind != StepKind::kHandshake && outcome.kind == StepOutcome::Kind::kMismatch &&
      outcome.failure.kind == Failure::Kind::kClosed) {
    s.skipping = true;
    return {};
  }
  return outcome;
}


}  // namespace runner

}  // namespace rdmaconf::conformance
