#include "engine/engine.hpp"

#include <nettle/sha2.h>

#include "engine/catalogue_location.hpp"
#include "engine/test_ulp.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string_view>
#include <thread>

#include "clc/headers.hpp"
#include "mpa/headers.hpp"
#include "engine/runner_sctp.hpp"
#include "engine/runner_smcr.hpp"
#include "engine/units.hpp"

namespace rdmaconf::conformance {

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "pass";
    case Verdict::kNonStrict: return "non-strict";
    case Verdict::kInformational: return "informational";
    case Verdict::kUnimplemented: return "unimplemented";
    case Verdict::kFail: return "fail";
    case Verdict::kError: return "error";
  }
  return "?";
}

std::optional<Verdict> parse_verdict(std::string_view s) {
  for (Verdict v : {Verdict::kPass, Verdict::kNonStrict, Verdict::kInformational, Verdict::kUnimplemented,
                    Verdict::kFail, Verdict::kError})
    if (to_string(v) == s) return v;
  return std::nullopt;
}

int severity(Verdict v) {
  switch (v) {
    case Verdict::kPass:
    case Verdict::kUnimplemented: return 0;
    case Verdict::kInformational: return 1;
    case Verdict::kNonStrict: return 2;
    case Verdict::kFail: return 3;
    case Verdict::kError: return 4;
  }
  return 0;
}

namespace {
constexpr std::pair<Failure::Kind, std::string_view> kFailureKinds[] = {
    {Failure::Kind::kField, "field"},         {Failure::Kind::kUnit, "unit"},
    {Failure::Kind::kClosed, "closed"},       {Failure::Kind::kNothing, "nothing"},
    {Failure::Kind::kFraming, "framing"},     {Failure::Kind::kMalformed, "malformed"},
    {Failure::Kind::kAgent, "agent"},         {Failure::Kind::kHandshake, "handshake"},
    {Failure::Kind::kOther, "other"},
};
}  // namespace

std::string_view to_string(Failure::Kind k) {
  for (const auto& [kind, name] : kFailureKinds)
    if (kind == k) return name;
  return "other";
}

std::optional<Failure::Kind> parse_failure_kind(std::string_view s) {
  for (const auto& [kind, name] : kFailureKinds)
    if (name == s) return kind;
  return std::nullopt;
}

namespace {
std::string markers_word(const Negotiated& n) {
  return n.markers_to_iut && n.markers_to_tester ? "both"
         : n.markers_to_iut                      ? "to-iut"
         : n.markers_to_tester                   ? "to-tester"
                                                 : "off";
}
std::string on_off(bool b) { return b ? "on" : "off"; }
}  // namespace

std::string Negotiated::to_string() const {
  return "rev" + std::to_string(revision) + " crc=" + on_off(crc) + " markers=" + markers_word(*this) +
         " p2p=" + on_off(peer_to_peer);
}

std::string Negotiated::contradicts(const MpaSettings& pass) const {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : " ") + s; };
  if (pass.revision && *pass.revision != revision) add("rev" + std::to_string(revision));
  if (pass.crc && *pass.crc != crc) add("crc=" + on_off(crc));
  // A pass's markers=on has the IUT ask for Markers and the tester too (both
  // directions); markers=off neither.
  if (pass.markers && (*pass.markers != markers_to_iut || *pass.markers != markers_to_tester))
    add("markers=" + markers_word(*this));
  if (pass.peer_to_peer && *pass.peer_to_peer != peer_to_peer) add("p2p=" + on_off(peer_to_peer));
  return out;
}

Catalogue load_catalogue(const std::string& dir) {
  namespace fs = std::filesystem;
  Catalogue cat;
  if (dir.empty()) {  // default_cases_dir() found none: say where it looked
    cat.errors.push_back({"", 0, find_catalogue().error()});
    return cat;
  }
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".case") files.push_back(it->path());
  if (ec) {
    cat.errors.push_back({dir, 0, "cannot read the catalogue folder: " + ec.message()});
    return cat;
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> seen;
  // The catalogue's version: SHA-256 over every script, in path order, each
  // as its relative path, its length and its text (NUL between), so a report
  // names exactly the scripts it ran. Nettle's: no state outside the context
  // and a small library to load (OpenSSL's libcrypto took a sixth of every
  // start on a virtual machine; docs/performance.md, "Process start").
  sha256_ctx md;
  sha256_init(&md);
  const auto hash = [&md](std::string_view s) {
    sha256_update(&md, s.size(), reinterpret_cast<const std::uint8_t*>(s.data()));
  };
  for (const fs::path& p : files) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string rel = fs::relative(p, dir).generic_string();
    const std::string body = text.str();
    hash(rel + '\0' + std::to_string(body.size()) + '\0');
    hash(body);
    hash(std::string_view("", 1));
    auto parsed = parse_script(body, rel);
    if (auto* e = std::get_if<SyntaxError>(&parsed)) {
      cat.errors.push_back(*e);
      continue;
    }
    for (Case& c : std::get<std::vector<Case>>(parsed)) {
      c.protocol = p.parent_path().filename().string();
      if (std::find(seen.begin(), seen.end(), c.id) != seen.end()) {
        cat.errors.push_back({rel, c.line, "expected a unique id, '" + c.id + "' is used twice"});
        continue;
      }
      seen.push_back(c.id);
      cat.cases.push_back(std::move(c));
    }
  }
  std::array<std::uint8_t, SHA256_DIGEST_SIZE> digest{};
  sha256_digest(&md, digest.size(), digest.data());
  static constexpr char kHex[] = "0123456789abcdef";
  for (const std::uint8_t d : digest) {
    cat.sha256 += kHex[d >> 4];
    cat.sha256 += kHex[d & 15];
  }
  auto captures = load_capture_cases(dir);
  cat.capture_cases = std::move(captures.cases);
  cat.errors.insert(cat.errors.end(), captures.errors.begin(), captures.errors.end());
  return cat;
}

namespace {

// Declarations a CLC unit's fields may come from.
const std::vector<const wire::HeaderDecl*>& clc_decls() {
  static const std::vector<const wire::HeaderDecl*> d = {
      &clc::ClcHeaderSpec::decl,        &clc::TrailerSpec::decl,          &clc::ProposalBodySpec::decl,
      &clc::ProposalSmcdSpec::decl,     &clc::IpPrefixSpec::decl,         &clc::V2ExtensionSpec::decl,
      &clc::EidSpec::decl,              &clc::SmcdV2ExtensionSpec::decl,  &clc::SmcrAcceptConfirmSpec::decl,
      &clc::SmcrV2AcceptConfirmSpec::decl, &clc::FirstContactExtSpec::decl, &clc::FirstContactExtV2xSpec::decl,
      &clc::GidListSpec::decl,          &clc::DeclineSpec::decl,          &clc::DeclineV2DiagnosisSpec::decl};
  return d;
}

bool clc_field_known(std::string_view n) {
  for (const wire::HeaderDecl* d : clc_decls())
    if (wire::find_field(*d, n)) return true;
  static constexpr std::string_view kOverlay[] = {"proposal.smcv2_type", "proposal.smcv1_type", "first_contact",
                                                  "hdr_reserved", "smc_type", "out_of_sync", "code"};
  return std::find(std::begin(kOverlay), std::end(kOverlay), n) != std::end(kOverlay);
}

bool mpa_field_known(std::string_view n) {
  return wire::find_field(mpa::ReqRepSpec::decl, n) || wire::find_field(mpa::EnhancedDataSpec::decl, n) ||
         n == "pd_len";
}

bool fpdu_field_known(std::string_view unit, std::string_view n) {
  static constexpr std::string_view kPseudo[] = {"payload_len", "ulpdu_length", "crc_ok", "markers", "code", "payload",
                                                  "crc_field", "pad_zero", "markers_res_zero"};
  if (std::find(std::begin(kPseudo), std::end(kPseudo), n) != std::end(kPseudo)) return true;
  std::uint32_t msn[4] = {1, 1, 1, 1};
  std::vector<std::string_view> units = {unit};
  if (unit == "ulp.command") {
    if (wire::find_field(UlpCommandSpec::decl, n)) return true;
    units = {"send"};
  }
  if (unit == "fpdu") units = {"write", "send", "read_request", "terminate", "atomic", "atomic_response", "immediate"};
  for (std::string_view u : units) {
    Segment s = default_segment(u, msn);
    if (find_field(s.blocks, n)) return true;
    if (u == "ddp.tagged" || u == "ddp.untagged") {
      // a bare segment may carry any opcode's RDMAP header
      for (const MessageName& m : message_names()) {
        Segment t = default_segment(m.name, msn);
        if (find_field(t.blocks, n)) return true;
      }
    }
  }
  return false;
}

bool is_fpdu_unit(std::string_view u) {
  return opcode_for(u).has_value() || u == "ddp.tagged" || u == "ddp.untagged" || u == "fpdu" || u == "ulp.command";
}

}  // namespace

namespace {

const Arg* find_send_arg(const Step& st, std::string_view name) {
  for (const Arg& a : st.args)
    if (a.name == name) return &a;
  return nullptr;
}

// The options of a `>` step that shape how its unit goes on the wire
// (is_send_option): `split=N [pause=DURATION]` and `more`, which must be
// followed by another `>` step that sends a unit.
void check_send_options(const Case& c, const Step& st, const std::function<void(const Step&, std::string)>& err) {
  const Arg* split = find_send_arg(st, "split");
  const Arg* pause = find_send_arg(st, "pause");
  const Arg* more = find_send_arg(st, "more");
  if (split && (!split->has_value || (split->value.kind != Value::Kind::kNumber && split->value.kind != Value::Kind::kVariable) ||
                (split->value.kind == Value::Kind::kNumber && split->value.number == 0)))
    err(st, "expected split=N (N > 0: the first TCP send ends after the unit's Nth octet)");
  if (pause && !split) err(st, "expected 'pause' only beside 'split'");
  if (pause && !(pause->value.kind == Value::Kind::kWord && parse_duration(pause->value.text)))
    err(st, "expected pause=DURATION such as 30ms");
  for (const char* n : {"truncate", "append"})
    if (const Arg* a = find_send_arg(st, n); a && !a->has_value) err(st, std::string("expected ") + n + "=...");
  if (!more) return;
  if (more->has_value) err(st, "expected 'more' without a value");
  if (split) err(st, "expected 'split' or 'more', not both");
  const auto at = std::find_if(c.steps.begin(), c.steps.end(), [&](const Step& x) { return &x == &st; });
  const auto next = at == c.steps.end() ? at : std::next(at);
  if (next == c.steps.end() || next->kind != StepKind::kSend || next->unit == "fin" || next->unit == "reset")
    err(st, "expected a '>' step that sends a unit after one with 'more' (they go out in one TCP send)");
}

using CheckError = std::function<void(const Step&, std::string)>;

// `handshake`: only where the tester initiates, with fields of an MPA Request.
void check_handshake(const Case& c, const Step& st, const CheckError& err) {
  if (c.role != Role::kResponder) err(st, "expected 'handshake' only in a case whose IUT is the responder");
  for (const Arg& a : st.args)
    if (!mpa_field_known(a.name) && a.name != "hint" && a.name != "pd" && a.name != "at_once")
      err(st, "expected a field of an MPA Request, got '" + a.name + "'");
}

// `> unit ...`: a unit the tester can build, with that unit's fields (and
// framing fields where it is an FPDU).
void check_send(const Case& c, const Step& st, const CheckError& err) {
  const std::string& u = st.unit;
  if (c.protocol == "sctp") {
    if (!runner::sctp_unit_known(u, true))
      err(st, "expected an SCTP unit to send (sctp.init, sctp.control, sctp.segment, sctp.ack), got '" + u + "'");
    for (const Arg& a : st.args)
      if (!runner::sctp_field_known(u, a.name, true)) err(st, "expected a field of " + u + ", got '" + a.name + "'");
    if (u == "sctp.ack" && !c.needs_item("sctp-acks"))
      err(st, "expected 'needs: sctp-acks' in a case that acknowledges by hand");
    return;
  }
  if (u == "fin" || u == "reset") return;
  if (c.protocol == "smcr" && !u.starts_with("clc.")) {
    if (!runner::smcr_unit_known(u, true)) err(st, "expected an SMC-R unit to send (llc.test_link, cdc, data.write, smcr.close, ...), got '" + u + "'");
    for (const Arg& a : st.args)
      if (!runner::smcr_field_known(u, a.name)) err(st, "expected a field of " + u + ", got '" + a.name + "'");
    if (u.starts_with("smcr.iut.") && !c.needs_item("smcr-actions"))
      err(st, "expected 'needs: smcr-actions' in a case that asks the IUT to act on its own");
    if (u == "smcr.stall_link" && !c.needs_item("smcr-fabric"))
      err(st, "expected 'needs: smcr-fabric' in a case that stalls a link");
    return;
  }
  check_send_options(c, st, err);
  if (u == "raw") return;
  if (u == "fpdu") {
    // `fpdu ulpdu=...`: the ULPDU is given whole; only the framing is the framer's.
    if (!find_send_arg(st, "ulpdu")) err(st, "expected ulpdu=hex:..., ulpdu=N or ulpdu=\"text\" after 'fpdu'");
    for (const Arg& a : st.args)
      if (a.name != "ulpdu" && (a.name == "payload" || !is_framing_arg(a.name)) && !is_send_option(a.name))
        err(st, "expected ulpdu= or a framing field (ulpdu_length, pad, pad_octet, crc, fpduptr, marker_res, "
                "omit_markers) after 'fpdu', got '" + a.name + "'");
    return;
  }
  for (const Arg& a : st.args) {
    if (is_send_option(a.name)) continue;
    if (u == "mpa.request" || u == "mpa.reply") {
      if (!mpa_field_known(a.name) && a.name != "hint" && a.name != "pd") err(st, "expected a field of " + u + ", got '" + a.name + "'");
    } else if (u.starts_with("clc.")) {
      if (u != "clc.proposal" && u != "clc.accept" && u != "clc.confirm" && u != "clc.decline") {
        err(st, "expected clc.proposal, clc.accept, clc.confirm or clc.decline, got '" + u + "'");
        break;
      }
      if (!clc_field_known(a.name) && a.name != "offer" && a.name != "smcd" && a.name != "ism_gids" && a.name != "choose" && a.name != "grow" && a.name != "shrink" && a.name != "growth") err(st, "expected a field of " + u + ", got '" + a.name + "'");
    } else if (is_fpdu_unit(u)) {
      if (!is_framing_arg(a.name) && !fpdu_field_known(u, a.name)) err(st, "expected a field of " + u + ", got '" + a.name + "'");
    } else {
      err(st, "expected a unit to send (mpa.request, send, write, clc.proposal, ...), got '" + u + "'");
      break;
    }
  }
  if (st.args.empty() && !(u == "mpa.request" || u == "mpa.reply" || u.starts_with("clc.") || is_fpdu_unit(u)))
    err(st, "expected a unit to send, got '" + u + "'");
}

// `< close ...` and `< silence`: only the words that say how the IUT closes.
void check_close(const Step& st, const Alternative& alt, const CheckError& err) {
  const std::string& u = alt.unit;
  // `close nothing_before`: the close must be the next thing the IUT does.
  // `close reset`: the close must be an RST.
  // `close fin`: the close must be a FIN (a graceful close).
  const bool close_words = u == "close" && std::all_of(alt.args.begin(), alt.args.end(), [](const Arg& a) {
    return !a.has_value && (a.name == "nothing_before" || a.name == "reset" || a.name == "fin" || a.name == "unjudged");
  });
  if (!alt.args.empty() && !close_words)
    err(st, u == "close" ? "expected nothing, 'nothing_before', 'reset', 'fin' or 'unjudged' after 'close'"
                         : "expected no matchers after 'silence'");
  const auto named = [&alt](std::string_view w) {
    return std::any_of(alt.args.begin(), alt.args.end(), [w](const Arg& a) { return a.name == w; });
  };
  if (named("reset") && named("fin")) err(st, "'close' takes 'reset' or 'fin', not both");
}

// `< agent.*`: what the IUT reports locally (agent_view.hpp): one
// alternative, matchers `=` or `!=` on its known fields.
void check_agent(const Case& c, const Step& st, const Alternative& alt, const CheckError& err) {
  const std::string& u = alt.unit;
  if (!is_agent_unit(u)) err(st, "expected agent.completion, agent.async or agent.connection, got '" + u + "'");
  if (st.alternatives.size() != 1) err(st, "expected '" + u + "' as the only alternative of its step");
  if (!c.needs_item("agent")) err(st, "expected 'needs: agent' in a case that checks what the IUT reports");
  for (const Arg& a : alt.args)
    if (!agent_field_known(a.name) || !a.has_value || a.mask || (a.op != Op::kEq && a.op != Op::kNe))
      err(st, "expected name=, opcode=, status=, byte_len= or detail= (with = or !=) after '" + u + "', got '" + a.name + "'");
}

// `< unit ...` of the wire: a unit the IUT can send, with matchers on that
// unit's fields.
void check_expected_unit(const Case& c, const Step& st, const Alternative& alt, const CheckError& err) {
  const std::string& u = alt.unit;
  if (c.protocol == "sctp") {
    if (!runner::sctp_unit_known(u, false))
      err(st, "expected an SCTP unit the IUT sends (sctp.association, sctp.control, sctp.segment), got '" + u + "'");
    if (u == "sctp.association" && st.alternatives.size() != 1)
      err(st, "expected 'sctp.association' as the only alternative of its step");
    for (const Arg& a : alt.args)
      if (!runner::sctp_field_known(u, a.name, false) || !a.has_value || a.mask)
        err(st, "expected field=value of " + u + ", got '" + a.name + "'");
    return;
  }
  if (c.protocol == "smcr" && !u.starts_with("clc")) {
    if (!runner::smcr_unit_known(u, false)) err(st, "expected an SMC-R unit the IUT sends (llc.test_link, cdc, data, smcr.link_up, ...), got '" + u + "'");
    for (const Arg& a : alt.args) {
      if (!a.has_value && a.name == "ends_case") continue;  // the smcr phase settles the case on it
      if (!runner::smcr_field_known(u, a.name)) err(st, "expected a field of " + u + ", got '" + a.name + "'");
    }
    return;
  }
  if (u == "message" && st.alternatives.size() != 1) err(st, "expected 'message' as the only alternative of its step");
  for (const Arg& a : alt.args) {
    // `message`: the first segment's fields, and the whole message's
    // payload_len and segments.
    if (u == "message" && a.name != "payload" && (a.name == "segments" || fpdu_field_known("fpdu", a.name))) continue;
    // `ends_case`: when this alternative matches, the case has passed
    // and ends (for rules that allow "either ... or fail the connection").
    // `unjudged`: when this alternative matches, the IUT took another
    // path the RFC allows, on which the case has nothing to judge.
    if (!a.has_value && (a.name == "ends_case" || a.name == "unjudged")) continue;
    if (!a.has_value) err(st, "expected field=value, 'ends_case' or 'unjudged', got '" + a.name + "'");
    if (u.starts_with("mpa.")) {
      if (!mpa_field_known(a.name)) err(st, "expected a field of " + u + ", got '" + a.name + "'");
    } else if (u.starts_with("clc")) {
      // rmb_wraps, eid_offered: computed from a received Accept/Confirm (runner_session.cpp).
      if (!clc_field_known(a.name) && a.name != "rmb_wraps" && a.name != "eid_offered") err(st, "expected a field of " + u + ", got '" + a.name + "'");
    } else if (is_fpdu_unit(u)) {
      if (!fpdu_field_known(u, a.name)) err(st, "expected a field of " + u + ", got '" + a.name + "'");
    }
  }
  if (!(u.starts_with("mpa.") || u.starts_with("clc") || is_fpdu_unit(u) || u == "message"))
    err(st, "expected close, silence or a unit, got '" + u + "'");
  if (u.starts_with("mpa.") && u != "mpa.reply" && u != "mpa.request" && u != "mpa.reject")
    err(st, "expected mpa.reply, mpa.reject or mpa.request, got '" + u + "'");
}

// Comparisons other than '=' and masks judge what the IUT sent; a capture
// (`@name`) is bound by the first expectation that names it with '=' and
// must be used again (a single use is a typo or a matcher that checks
// nothing).
// `connection N` (docs/conformance.md, "More than one connection"): in
// order, connection N after connection N-1. The tester opens each (role
// responder), or waits for the IUT to open it (role initiator: the run's
// accept_initiator, once per connection).
void check_connections(const Case& c, const CheckError& err) {
  int opened = 1;
  for (const Step& st : c.steps) {
    if (st.kind != StepKind::kConnection) continue;
    if (st.connection > opened + 1)
      err(st, "expected connection " + std::to_string(opened + 1) + " before connection " + std::to_string(st.connection));
    opened = std::max(opened, st.connection);
  }
}

void check_captures(const Case& c, const CheckError& err, std::vector<std::string>& out) {
  std::map<std::string, int, std::less<>> capture_uses;
  for (const Step& st : c.steps) {
    auto check = [&](const Arg& a, bool expecting) {
      if (!expecting && (a.mask || (a.op != Op::kEq && a.op != Op::kNone)))
        err(st, "expected '" + a.name + "=value' in a step that sends (masks and comparisons are for '<' steps)");
      if (a.value.kind != Value::Kind::kCapture) return;
      int& uses = capture_uses[a.value.text];
      if (uses == 0 && !(expecting && a.op == Op::kEq))
        err(st, "expected @" + a.value.text + " to be captured first, by an expectation '" + a.name + "=@" +
                    a.value.text + "'");
      ++uses;
    };
    if (st.kind == StepKind::kExpect) {
      for (const Alternative& alt : st.alternatives)
        for (const Arg& a : alt.args) check(a, true);
    } else {
      for (const Arg& a : st.args) check(a, false);
    }
  }
  for (const auto& [name, uses] : capture_uses)
    if (uses == 1) out.push_back(c.file + ":" + std::to_string(c.line) + ": @" + name + " is captured but never used again");
}

}  // namespace

std::vector<std::string> check_case(const Case& c) {
  std::vector<std::string> out;
  const CheckError err = [&](const Step& st, std::string m) {
    out.push_back(c.file + ":" + std::to_string(st.line) + ": " + m);
  };
  for (const Step& st : c.steps) {
    if (st.kind == StepKind::kHandshake) {
      check_handshake(c, st, err);
    } else if (st.kind == StepKind::kSend) {
      check_send(c, st, err);
    } else if (st.kind == StepKind::kExpect) {
      for (const Alternative& alt : st.alternatives) {
        if (alt.unit == "anything") {
          // `< anything`: reads whatever comes (a wire fuzzer's case), alone and without matchers.
          if (st.alternatives.size() != 1 || !alt.args.empty()) err(st, "expected 'anything' alone, without matchers");
        } else if (alt.unit == "close" || alt.unit == "silence") check_close(st, alt, err);
        else if (alt.unit.starts_with("agent.")) check_agent(c, st, alt, err);
        else check_expected_unit(c, st, alt, err);
      }
    }
  }
  if (uses_clc(c.protocol)) {
    for (const Step& st : c.steps)
      if (st.kind == StepKind::kHandshake) err(st, "expected no MPA handshake in a CLC case");
  }
  if (c.protocol == "sctp") {
    for (const Step& st : c.steps) {
      if (st.kind == StepKind::kHandshake || st.kind == StepKind::kConnection)
        err(st, "expected no MPA handshake and no second connection in an sctp case (one association)");
      if (st.kind == StepKind::kSend && st.unit == "sctp.init" && &st != &c.steps.front())
        err(st, "expected 'sctp.init' as the case's first step (it sets the association up)");
    }
  }

  check_connections(c, err);
  check_captures(c, err, out);
  // The case's timeout runs from its first step: waits that fill it leave a
  // case that cannot finish against a device, whatever the IUT does (both
  // scale alike with --time-scale, an unscaled wait's share as written; in
  // process a wait takes no time at all).
  Duration waited{0};
  for (const Step& st : c.steps)
    if (st.kind == StepKind::kWait && (waited += st.duration) >= c.timeout)
      err(st, "expected the case's waits (" + std::to_string(waited.count()) + " ms by here) to fit in its timeout (" +
                  std::to_string(c.timeout.count()) + " ms): give it a longer 'timeout:'");
  return out;
}

std::vector<CaseResult> run_cases(const std::vector<const Case*>& cases, const RunOptions& o) {
  std::vector<CaseResult> results(cases.size());
  std::vector<std::size_t> parallel, serial;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (cases[i]->role == Role::kInitiator && !o.initiator_parallel) serial.push_back(i);
    else parallel.push_back(i);
  }
  std::mutex mu;
  auto finish = [&](std::size_t i, CaseResult r) {
    std::lock_guard lock(mu);
    results[i] = std::move(r);
    if (o.on_result) o.on_result(results[i]);
  };
  std::atomic<std::size_t> next{0};
  const unsigned jobs = std::max(1u, std::min<unsigned>(o.jobs, static_cast<unsigned>(parallel.size())));
  std::vector<std::thread> workers;
  auto cancelled = [&] { return o.cancel && o.cancel->load(); };
  for (unsigned w = 0; w < jobs && !parallel.empty(); ++w)
    workers.emplace_back([&] {
      for (std::size_t k; !cancelled() && (k = next.fetch_add(1)) < parallel.size();)
        finish(parallel[k], run_case(*cases[parallel[k]], o));
    });
  // Initiator-role cases on a shared listener run one at a time: the IUT's
  // next connection belongs to the case waiting for it.
  for (std::size_t i : serial)
    if (!cancelled()) finish(i, run_case(*cases[i], o));
  for (auto& t : workers) t.join();
  if (cancelled()) std::erase_if(results, [](const CaseResult& r) { return r.c == nullptr; });
  return results;
}

bool add_case_file(Catalogue& cat, const std::string& path, std::vector<std::string>& ids, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error = path + ": cannot read it", false;
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = parse_script(text.str(), path);
  if (auto* e = std::get_if<SyntaxError>(&parsed)) return error = e->to_string(), false;
  for (Case& c : std::get<std::vector<Case>>(parsed)) {
    const std::string suite = c.id.substr(0, c.id.find('-'));
    if (suite != "mpa" && suite != "ddp" && suite != "rdmap" && suite != "clc" && suite != "smcr" && suite != "sctp")
      return error = path + ": case id '" + c.id + "' must start with its suite (mpa-, ddp-, rdmap-, clc-, smcr-, sctp-)", false;
    c.protocol = suite;
    for (const std::string& problem : check_case(c)) return error = path + ": " + problem, false;
    ids.push_back(c.id);
    std::erase_if(cat.cases, [&](const Case& old) { return old.id == c.id; });
    cat.cases.push_back(std::move(c));
  }
  return true;
}

std::vector<const Case*> select(const Catalogue& cat, const std::vector<std::string>& suites,
                                const std::vector<std::string>& ids) {
  std::vector<const Case*> out;
  for (const Case& c : cat.cases) {
    if (!suites.empty() && std::find(suites.begin(), suites.end(), c.protocol) == suites.end()) continue;
    if (!ids.empty()) {
      bool hit = false;
      for (const std::string& id : ids) {
        if (!id.empty() && id.back() == '*' ? c.id.starts_with(id.substr(0, id.size() - 1)) : c.id == id) hit = true;
      }
      if (!hit) continue;
    }
    out.push_back(&c);
  }
  return out;
}

Summary summarize(const std::vector<CaseResult>& results) {
  Summary s;
  for (const CaseResult& r : results) {
    ++s.counts[r.verdict];
    ++s.total;
  }
  return s;
}

int Summary::exit_code() const {
  auto n = [&](Verdict v) {
    auto it = counts.find(v);
    return it == counts.end() ? 0 : it->second;
  };
  if (n(Verdict::kFail) > 0) return 1;
  if (n(Verdict::kError) > 0) return 2;
  return 0;
}

// ---------------------------------------------------------------- sockets

bool split_host_port(const std::string& s, std::string& host, std::uint16_t& port) {
  const std::size_t colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  host = s.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  unsigned long p = 0;
  try {
    std::size_t used = 0;
    p = std::stoul(s.substr(colon + 1), &used);
    if (used != s.size() - colon - 1) return false;
  } catch (...) {
    return false;
  }
  if (p > 65535) return false;
  port = static_cast<std::uint16_t>(p);
  return true;
}

namespace {
bool resolve_addr(const std::string& host, std::uint16_t port, sockaddr_storage& out, socklen_t& len, std::string& error) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string ps = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), ps.c_str(), &hints, &res); rc != 0 || res == nullptr) {
    error = "cannot resolve " + host + ": " + ::gai_strerror(rc);
    return false;
  }
  std::memcpy(&out, res->ai_addr, res->ai_addrlen);
  len = res->ai_addrlen;
  ::freeaddrinfo(res);
  return true;
}
}  // namespace

Connector tcp_connector(std::string host, std::uint16_t port, std::chrono::milliseconds timeout) {
  return [host, port, timeout](const Case&, std::string& error) -> int {
    sockaddr_storage a{};
    socklen_t len = 0;
    if (!resolve_addr(host, port, a, len, error)) return -1;
    int fd = ::socket(a.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      error = std::string("socket: ") + std::strerror(errno);
      return -1;
    }
    int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), len);
    if (rc < 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
      if (rc == 0) {
        ::close(fd);
        error = "cannot connect to " + host + ":" + std::to_string(port) + ": no answer within " + std::to_string(timeout.count()) + " ms";
        return -1;
      }
      int soerr = 0;
      socklen_t sl = sizeof soerr;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
      if (soerr != 0) {
        ::close(fd);
        error = "cannot connect to " + host + ":" + std::to_string(port) + ": " + std::strerror(soerr);
        return -1;
      }
    } else if (rc < 0) {
      error = "cannot connect to " + host + ":" + std::to_string(port) + ": " + std::strerror(errno);
      ::close(fd);
      return -1;
    }
    // Connected: blocking again, as the runner reads it.
    const int fl = ::fcntl(fd, F_GETFL);
    ::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
  };
}

Listener::~Listener() {
  if (fd >= 0) ::close(fd);
}

bool listen_on(const std::string& host, std::uint16_t port, Listener& l, std::string& error) {
  sockaddr_storage a{};
  socklen_t len = 0;
  if (!resolve_addr(host, port, a, len, error)) return false;
  l.fd = ::socket(a.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(l.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(l.fd, reinterpret_cast<sockaddr*>(&a), len) < 0 || ::listen(l.fd, 64) < 0) {
    error = "cannot listen on " + host + ":" + std::to_string(port) + ": " + std::strerror(errno);
    ::close(l.fd);
    l.fd = -1;
    return false;
  }
  sockaddr_in bound{};
  socklen_t bl = sizeof bound;
  ::getsockname(l.fd, reinterpret_cast<sockaddr*>(&bound), &bl);
  l.address = host + ":" + std::to_string(ntohs(bound.sin_port));
  return true;
}

Connector accept_connector(const Listener& l, std::chrono::milliseconds timeout) {
  const int lfd = l.fd;
  return [lfd, timeout](const Case&, std::string& error) -> int {
    pollfd p{lfd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) {
      error = "the IUT did not connect within " + std::to_string(timeout.count()) + " ms";
      return -1;
    }
    int fd = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) error = std::string("accept: ") + std::strerror(errno);
    return fd;
  };
}

}  // namespace rdmaconf::conformance

#include "engine/pcap_hook.hpp"
namespace rdmaconf::conformance {
PcapWriter& pcap_writer() {
  static PcapWriter w;
  return w;
}
}  // namespace rdmaconf::conformance
