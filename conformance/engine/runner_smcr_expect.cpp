// The smcr suite's expectations (runner_smcr.hpp): the IUT's LLC and CDC
// messages a script expects, matched field by field against what arrived on
// which link, the tester's link group's events, echoed data and silence.
#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "engine/runner_smcr.hpp"
#include "engine/runner_smcr_phase.hpp"

namespace rdmaconf::conformance::runner {

namespace {

// A word that says what a match means for the case, not a field to match.
bool ends_case_word(const Arg& a) { return !a.has_value && a.name == "ends_case"; }

// Whether `logged` is what the alternative names, with every matcher
// holding; `link=N`: it arrived on link N's queue pair (§3.3).
bool matches(Session& s, const Alternative& alt, SmcrPhase::Logged& logged, std::string& why) {
  std::vector<std::uint8_t>& m = logged.octets;
  if (m.empty()) return false;
  if (alt.unit == "cdc") {
    if (m[0] != 0xFE) return false;
  } else {
    const auto type = llc_type_of(alt.unit);
    if (!type || m[0] == 0xFE || (m[0] & 0x0F) != *type) return false;
  }
  std::vector<Block> blocks = message_blocks(m);
  // `field=@name` binds what the IUT sent the first time, when the whole
  // alternative matches (as the other suites' expectations do).
  Captures captures = s.captures;
  for (const Arg& a : alt.args) {
    if (ends_case_word(a)) continue;
    if (a.value.kind == Value::Kind::kCapture && !captures.contains(a.value.text) && a.name != "link") {
      auto hit = find_field(blocks, a.name);
      if (!hit) return why = "no field " + a.name + " in " + alt.unit, false;
      captures[a.value.text] = capture(*hit);
      continue;
    }
    if (a.name == "link") {
      auto n = number_arg(s, a);
      const std::uint64_t have = link_number_of(*s.smcr, logged.qp);
      if (std::holds_alternative<std::string>(n) || have != std::get<std::uint64_t>(n))
        return why = alt.unit + " came on link " + std::to_string(have), false;
      continue;
    }
    auto hit = find_field(blocks, a.name);
    if (!hit) return why = "no field " + a.name + " in " + alt.unit, false;
    auto v = resolve(a.value, hit->field, s.vars, &captures);
    if (auto* e = std::get_if<std::string>(&v)) return why = *e, false;
    const Resolved& want = std::get<Resolved>(v);
    bool ok;
    if (a.op == Op::kEq || a.op == Op::kNone || a.op == Op::kNe) {
      ok = holds(*hit, want) != a.negate();
    } else {
      const auto have = numeric_value(*hit);
      ok = have && want.number && compare(*have, a.op, *want.number);
    }
    if (!ok) return why = alt.unit + " " + a.name + " is " + show(*hit) + " (" + hex(m, 44) + ")", false;
  }
  s.captures = std::move(captures);
  return true;
}

bool event_matches(Session& s, const Alternative& alt, const smcr::Event& e) {
  using K = smcr::Event::Kind;
  const K want = alt.unit == "smcr.link_up" ? K::kLinkUp : alt.unit == "smcr.link_deleted" ? K::kLinkDeleted : K::kTerminated;
  if (e.kind != want) return false;
  for (const Arg& a : alt.args) {
    if (ends_case_word(a)) continue;
    auto n = number_arg(s, a);
    if (std::holds_alternative<std::string>(n)) return false;
    const std::uint64_t v = std::get<std::uint64_t>(n);
    if (a.name == "link" && e.link != v) return false;
    if (a.name == "reason" && e.reason != v) return false;
  }
  return true;
}

// A logged CDC message of the connection whose alert token is `token`
// (§4.4: the token names the connection's RMBE).
bool of_connection(const SmcrPhase::Logged& l, std::uint32_t token) {
  return l.octets.size() >= smcr::kCdcMessageSize &&
         wire::Header<smcr::CdcSpec>::read(l.octets, smcr::CdcSpec::Field::AlertToken) == token;
}

// `< smcr.failover link=N`, after `> smcr.break_link`: the step's
// connection went on over link N as §4.6.1 has it. One the IUT was writing
// over the broken link moves, and its first CDC message after the break is
// the failover validation (F) on link N; one it was writing over another
// link stays there and has nothing to validate (§2.3: each peer picks the
// link of its own writes, so which connections move is the IUT's to say).
// Consumes the connection's messages up to the validation.
bool take_failover(Session& s, const Alternative& alt, std::string& why) {
  SmcrPhase& p = *s.smcr;
  SmcrPhase::Conn& k = smcr_conn(s);
  const std::string name = "connection " + std::to_string(s.smcr_connection + 1);
  if (!k.on_broken_link) {
    s.record(false, "smcr.failover", name + ": the IUT wrote it over link " + std::to_string(link_number_of(p, k.iut_qp)) +
                                         ", not the broken link " + std::to_string(p.broken_link) + ": nothing to validate");
    return true;
  }
  const Arg* to = find_arg(alt.args, "link");
  std::uint64_t want = 0;
  if (to)
    if (auto n = number_arg(s, *to); std::holds_alternative<std::uint64_t>(n)) want = std::get<std::uint64_t>(n);
  const auto of_conn = [&](const SmcrPhase::Logged& l) { return of_connection(l, k.own_token); };
  const auto it = std::find_if(p.cdc.begin(), p.cdc.end(),
                               [&](const SmcrPhase::Logged& l) { return l.serial >= p.broken_at && of_conn(l); });
  if (it == p.cdc.end()) return false;
  const std::uint64_t on = link_number_of(p, it->qp);
  const bool f = wire::Header<smcr::CdcSpec>::read(it->octets, smcr::CdcSpec::Field::F) != 0;
  if (!f || (want && on != want)) {
    why = name + "'s first CDC message after link " + std::to_string(p.broken_link) + " broke (it was on that link) came on link " +
          std::to_string(on) + (f ? "" : " without F") + " (" + hex(it->octets, 44) + ")";
    return false;
  }
  s.record(false, "cdc (link " + std::to_string(on) + ")", hex(it->octets, 44));
  const auto end = it + 1;
  p.cdc.erase(std::remove_if(p.cdc.begin(), end, of_conn), end);
  return true;
}

// One alternative against what arrived; consumes what it skipped.
bool take(Session& s, const Alternative& alt, std::string& why) {
  SmcrPhase& p = *s.smcr;
  if (alt.unit == "smcr.failover") return take_failover(s, alt, why);
  // Asked only once the step is over: in process a quiet fabric is final;
  // a device had the step's whole time bound to send something.
  if (alt.unit == "silence") {
    if (p.received != p.received_mark) why = "the IUT sent " + hex(p.last_received, 44);
    return p.received == p.received_mark;
  }
  if (alt.unit == "data") {
    const Arg* n = find_arg(alt.args, "octets");
    auto v = n ? number_arg(s, *n) : std::variant<std::uint64_t, std::string>(std::uint64_t{0});
    return std::holds_alternative<std::uint64_t>(v) && smcr_conn(s).read >= std::get<std::uint64_t>(v);
  }
  if (alt.unit.starts_with("smcr.")) {
    for (auto it = p.events.begin(); it != p.events.end(); ++it)
      if (event_matches(s, alt, *it)) {
        p.events.erase(p.events.begin(), it + 1);
        return true;
      }
    return false;
  }
  auto& log = alt.unit == "cdc" ? p.cdc : p.llc;
  // With several connections in the group a CDC message is the step's
  // connection's when it carries that connection's alert token (§4.4);
  // the others' stay for their own steps.
  const std::uint32_t token = smcr_conn(s).own_token;
  const auto others = [&](const SmcrPhase::Logged& l) {
    return alt.unit == "cdc" && p.conns.size() > 1 && l.octets.size() >= smcr::kCdcMessageSize &&
           !of_connection(l, token);
  };
  for (auto it = log.begin(); it != log.end(); ++it)
    if (!others(*it) && matches(s, alt, *it, why)) {
      s.record(false, alt.unit + " (link " + std::to_string(link_number_of(p, it->qp)) + ")", hex(it->octets, 44));
      const auto end = it + 1;
      log.erase(std::remove_if(log.begin(), end, [&](const SmcrPhase::Logged& l) { return !others(l); }), end);
      return true;
    }
  return false;
}

// Whether an LLC message of `unit` in SMC-R `version` has the field (a
// script written for version 1 names llc.length, which version 2's header
// splits in two).
bool field_in_version(std::string_view unit, std::string_view field, std::uint8_t version) {
  const auto type = llc_type_of(unit);
  if (field == "link" || field == "ends_case" || !type) return true;
  std::vector<std::uint8_t> m(smcr::kLlcMessageSize);
  m[0] = static_cast<std::uint8_t>((version >= 2 ? 0x20 : 0x00) | *type);
  return find_field(message_blocks(m), field).has_value();
}

}  // namespace

std::string smcr_field_missing_in(const Case& c, std::uint8_t version) {
  auto missing = [version](const std::string& unit, const std::vector<Arg>& args) -> std::string {
    for (const Arg& a : args)
      if (!field_in_version(unit, a.name, version)) return unit + " " + a.name;
    return {};
  };
  for (const Step& st : c.steps) {
    if (st.kind == StepKind::kSend)
      if (auto m = missing(st.unit, st.args); !m.empty()) return m;
    for (const Alternative& alt : st.alternatives)
      if (auto m = missing(alt.unit, alt.args); !m.empty()) return m;
  }
  return {};
}

namespace {

// What the tester's own transport noticed on the way (a device's refused
// work or failed completions): a case that waited in vain says whether the
// tester's side was in the way, not only that nothing came.
std::string transport_notes(SmcrPhase& p) {
  const std::vector<std::string> notes = p.side->take_notes();
  if (notes.empty()) return {};
  std::string out = "; the tester's RoCE side noted: ";
  constexpr std::size_t kShown = 8;
  for (std::size_t i = 0; i < notes.size() && i < kShown; ++i) out += (i ? "; " : "") + notes[i];
  if (notes.size() > kShown) out += " (and " + std::to_string(notes.size() - kShown) + " more)";
  return out;
}

}  // namespace

StepOutcome smcr_expect(Session& s, const Step& st) {
  SmcrPhase& p = *s.smcr;
  // A matcher no message of the link's version can hold is the script's
  // trouble, not the IUT's (a run's --smcr-version other than the script's).
  const std::uint8_t version = s.clc_outcome ? s.clc_outcome->version : 1;
  for (const Alternative& alt : st.alternatives)
    for (const Arg& a : alt.args)
      if (!field_in_version(alt.unit, a.name, version))
        return error("line " + std::to_string(st.line) + ": " + alt.unit + " of SMC-R version " +
                     std::to_string(version) + " has no field " + a.name +
                     " (the script is written for another version than the run's --smcr-version)");
  for (const Alternative& alt : st.alternatives)
    if (alt.unit == "smcr.failover" && !p.broken_link)
      return error("line " + std::to_string(st.line) + ": smcr.failover follows > smcr.break_link");
  const auto deadline = Clock::now() + s.scaled(st.within.value_or(Duration(2000)));
  std::string why;
  // `ends_case`: the IUT took a path the RFC allows that settles the case.
  const auto passed = [&p](const Alternative& alt) -> StepOutcome {
    p.received_mark = p.received;
    return {StepOutcome::Kind::kOk, {}, find_arg(alt.args, "ends_case") != nullptr};
  };
  for (;;) {
    p.pump();
    if (p.problems.size() > p.problems_reported) {
      p.problems_reported = p.problems.size();
      return mismatch(Failure::Kind::kField, "the IUT broke a rule the tester's SMC-R peer checks: " + p.problems.back(),
                      p.problems.back());
    }
    for (const Alternative& alt : st.alternatives)
      if (alt.unit != "silence" && take(s, alt, why)) return passed(alt);
    const bool over = p.side->in_process() || Clock::now() > deadline;
    if (over) {
      for (const Alternative& alt : st.alternatives)
        if (alt.unit == "silence" && take(s, alt, why)) return passed(alt);
      return mismatch(why.empty() ? Failure::Kind::kNothing : Failure::Kind::kField,
                      "expected " + expected_text(st) + (why.empty() ? "; nothing such came" : "; " + why) +
                          transport_notes(p),
                      why.empty() ? "nothing" : why);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace rdmaconf::conformance::runner
