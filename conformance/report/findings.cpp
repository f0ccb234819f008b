// Grouping a run's failures into findings (findings.hpp).
#include "report/findings.hpp"

#include <algorithm>
#include <set>

#include "ddp/headers.hpp"
#include "rdmap/diagnosis.hpp"
#include "rdmap/error_codes.hpp"
#include "rdmap/terminate.hpp"
#include "wire/hint.hpp"
#include "requirement.hpp"
#include "report/text.hpp"

namespace rdmaconf::findings {
namespace {

using report_text::join;

// "MUST", "SHOULD" or "MAY": the strength a level has for a finding (MUST
// NOT is a MUST, RFC 7609's lower-case must too).
std::string strength(std::string_view level) {
  if (level.starts_with("MUST") || level == "must") return "MUST";
  if (level.starts_with("SHOULD")) return "SHOULD";
  return "MAY";
}
int rank(std::string_view strength) { return strength == "MUST" ? 2 : strength == "SHOULD" ? 1 : 0; }

RuleRef rule_ref(const std::string& id, std::string_view fallback_level, std::string_view fallback_rfc) {
  if (const requirements::Requirement* r = requirements::find(id))
    return {std::string(r->id), strength(requirements::name(r->level)), std::string(requirements::citation(*r).view()),
            std::string(r->summary)};
  return {id, strength(fallback_level), std::string(fallback_rfc), {}};
}

// A Terminate the IUT sent, as findings name it: what its control field says
// (RFC 5040 §4.8), or what it means read the way a known mistake writes it.
std::string terminate_said(const std::vector<std::uint8_t>& ulpdu) {
  if (ulpdu.size() < ddp::kUntaggedHeaderSize + rdmap::kTerminateControlSize) return "a short Terminate";
  const wire::Bytes body = wire::Bytes(ulpdu).subspan(ddp::kUntaggedHeaderSize);
  const auto meant = rdmap::read_as_le_bitfield(body);
  if (auto t = rdmap::decode_terminate(body)) {
    // A code no RFC registers that reads as a registered one the other way
    // round (siw's LLP CRC error `02 02 00 00`) is that one.
    if (!rdmap::find_error(t->code) && meant) return rdmap::describe_code(meant->code) + " (as meant)";
    return rdmap::describe_code(t->code);
  }
  if (meant) return rdmap::describe_code(meant->code) + " (as meant)";
  return "a malformed Terminate";
}

// Short values are part of what came (a flag, a code); long ones (payloads,
// offsets that differ per case) are not.
bool short_value(const std::string& field, const std::string& v) {
  static const std::set<std::string_view> kSizesAndPlaces = {"payload", "payload_len", "ulpdu_length", "ddp_seg_len",
                                                             "msn", "mo", "to", "stag", "sink_stag", "sink_to",
                                                             "source_stag", "source_to", "read_size", "pd_len"};
  return v.size() <= 6 && !kSizesAndPlaces.contains(field);
}

// What came, as a class: the same behaviour of the IUT gives the same words.
std::string got_class(const cf::Failure& f) {
  using K = cf::Failure::Kind;
  switch (f.kind) {
    case K::kField:
      if (!f.meant.empty()) return f.got + " meaning " + f.meant;
      return f.got + " with " + f.field + (short_value(f.field, f.have) ? "=" + f.have : " differing");
    case K::kUnit:
      return f.got == "terminate" ? "terminate " + terminate_said(f.received) : f.got;
    case K::kFraming: return f.got + " with a wrong " + (f.field.empty() ? std::string("framing") : f.field);
    case K::kHandshake: return "handshake " + (f.field == "r" ? std::string("rejected") : f.got);
    case K::kClosed:
    case K::kNothing:
    case K::kMalformed:
    case K::kAgent:
    case K::kOther: return f.got.empty() ? std::string(cf::to_string(f.kind)) : f.got;
  }
  return f.got;
}

// "terminate | close" from "terminate layer=ddp code=2 | close": the kinds
// of unit an expectation names.
std::string unit_names(const std::string& expected) {
  std::string out;
  std::size_t at = 0;
  while (at <= expected.size()) {
    const auto bar = expected.find(" | ", at);
    const std::string alt = expected.substr(at, bar == std::string::npos ? std::string::npos : bar - at);
    const std::string name = alt.substr(0, alt.find(' '));
    // Two alternatives of one kind ("terminate ... | terminate ...") name it once.
    if (("| " + out + " |").find("| " + name + " |") == std::string::npos) out += (out.empty() ? "" : " | ") + name;
    if (bar == std::string::npos) break;
    at = bar + 3;
  }
  return out;
}

// What an expectation asks that tells one error from another: per
// alternative the unit and its Terminate code (RFC 5040 §4.8: layer, etype,
// code), nothing else ("terminate layer=ddp etype=2 code=5 | close").
std::string essential(const std::string& expected) {
  std::string out;
  std::size_t at = 0;
  while (at <= expected.size()) {
    const auto bar = expected.find(" | ", at);
    const std::string alt = expected.substr(at, bar == std::string::npos ? std::string::npos : bar - at);
    std::string kept;
    std::size_t w = 0;
    for (bool first = true; w <= alt.size(); first = false) {
      const auto sp = alt.find(' ', w);
      const std::string word = alt.substr(w, sp == std::string::npos ? std::string::npos : sp - w);
      const std::string name = word.substr(0, word.find_first_of("=!<>&"));
      if (first || name == "layer" || name == "etype" || name == "code") kept += (kept.empty() ? "" : " ") + word;
      if (sp == std::string::npos) break;
      w = sp + 1;
    }
    // Alternatives that differ only in what is left out ask for one error.
    if (("| " + out + " |").find("| " + kept + " |") == std::string::npos) out += (out.empty() ? "" : " | ") + kept;
    if (bar == std::string::npos) break;
    at = bar + 3;
  }
  return out;
}

// A rule broken only through a diagnosed mistake (read as the mistake says,
// the octets keep it: the Terminate carries the right code in the wrong
// layout) is that mistake's finding.
std::string rule_key(const std::string& rule, const std::string& mistake) {
  // The rule the mistake breaks by itself (wire/hint.hpp), as the diagnosis
  // layer names it.
  if (const std::string_view own = rdmap::rule_broken_by(mistake); !own.empty() && own != rule)
    return "rule " + std::string(own) + " " + mistake;
  return "rule " + rule + (mistake.empty() ? "" : " " + mistake);
}

// The rule the IUT broke in passing on the very unit its failed step was
// judged on (at MUST strength): that rule is why the unit did not match.
// Not when a diagnosed mistake already says what explains the unit (a
// Terminate siw meant otherwise than the case asks is a cause of its own,
// though every Terminate of siw's breaks RFC 5040 §4.8's layout).
// Nor when a unit of another kind came than the step asks for (a Terminate
// where the echo was due): the rule its octets break says nothing of why it
// came at all.
const cf::InPassing* broken_on_unit(const cf::CaseResult& r) {
  const cf::Failure& f = *r.failure;
  if (f.received_length == 0 || !f.mistake.empty()) return nullptr;
  if (f.kind == cf::Failure::Kind::kUnit && f.got != "fpdu") return nullptr;
  for (const cf::InPassing& p : r.in_passing) {
    if (strength(p.level) != "MUST") continue;
    for (std::uint64_t at : p.offsets)
      if (at >= f.received_offset && at < f.received_offset + f.received_length) return &p;
  }
  return nullptr;
}

// "payload_len differs", "code=6 got 3", "stag=$rw.stag got another value":
// the field, and the values where they tell a cause (codes and flags), not
// where they are sizes, places or values learnt during the run.
std::string field_difference(const cf::Failure& f) {
  const bool learnt = f.want.find_first_of("$@") != std::string::npos;
  if (!short_value(f.field, f.want.size() > 1 ? f.want.substr(1) : f.want)) return f.field + " differs";
  return f.field + f.want + " got " + (!learnt && short_value(f.field, f.have) ? f.have : std::string("another value"));
}

// The key of a case's failed step. What the key holds decides what groups:
//  - a known mistake that explains the step, a framing error, or a rule the
//    IUT broke on the unit the step judged, is that rule (the same key as the
//    rule broken in passing: one finding);
//  - when the IUT did not answer (it closed, reset, sent nothing), all the
//    run knows is what was missing: cases group by the kind of unit the step
//    expected and how the IUT did not send it ("a Terminate is due, the IUT
//    closes"), whatever provoked it;
//  - when the expected unit came with a field that differs, by the unit, the
//    field, the value expected and the value that came (codes and flags);
//  - when another unit came, the answer shows what the IUT made of the
//    stimulus: by the kind of unit the tester sent, the kind expected and
//    what came (a Terminate by the code it carries).
std::string step_key(const cf::CaseResult& r) {
  using K = cf::Failure::Kind;
  const cf::Failure& f = *r.failure;
  if (f.explained && !f.mistake_rule.empty()) return rule_key(f.mistake_rule, f.mistake);
  if (const cf::InPassing* p = broken_on_unit(r)) return rule_key(p->rule, p->mistake);
  const std::string expected = f.expected_class.empty() ? f.expected : f.expected_class;
  switch (f.kind) {
    case K::kClosed:
    case K::kNothing: return "missing " + unit_names(expected) + " got " + got_class(f);
    case K::kAgent: return "agent " + expected;
    case K::kHandshake: return "handshake got " + got_class(f);
    case K::kField:
      if (!f.meant.empty() &&
          (f.field == "layer" || f.field == "etype" || f.field == "code" || f.field == "errcode"))
        // Read as the mistake says, it meant another error than the step expects.
        return "field " + f.got + " meaning " + f.meant + " where " + essential(expected);
      // Read as the mistake says (` as meant`) or as it is, a field differs.
      return "field " + f.got + (f.meant.empty() ? "" : " as meant") + " " + field_difference(f);
    case K::kOther: return "case " + r.c->id + " " + r.reason;  // nothing to compare it with: its own
    case K::kUnit:
    case K::kFraming:
    case K::kMalformed: break;
  }
  // Another unit came: by the kind of unit the tester sent, the kind due
  // and what came. The fields the script set are left out: cases set them
  // for their own reasons (one Read Request names the Sink's offset,
  // another does not), and what the IUT answered is what tells the cause.
  return "step after " + f.stimulus + " expected " + unit_names(expected) + " got " + got_class(f);
}

bool failing(const cf::CaseResult& r) {
  return r.verdict == cf::Verdict::kFail || r.verdict == cf::Verdict::kNonStrict ||
         r.verdict == cf::Verdict::kInformational || (r.verdict == cf::Verdict::kUnimplemented && !r.in_passing.empty());
}

}  // namespace

std::string current_key(std::string_view key) {
  constexpr std::string_view kRule = "rule ";
  if (!key.starts_with(kRule)) return std::string(key);
  const std::string_view rest = key.substr(kRule.size());
  const std::string_view id = rest.substr(0, rest.find(' '));
  const requirements::Requirement* row = requirements::find(id);
  if (!row || row->id == id) return std::string(key);
  return std::string(kRule) + std::string(row->id) + std::string(rest.substr(id.size()));
}

std::vector<std::string> keys_of(const cf::CaseResult& r) {
  std::vector<std::string> keys;
  if (!failing(r)) return keys;
  if (r.failure && severity(r.script_verdict) > 0) keys.push_back(step_key(r));
  for (const cf::InPassing& p : r.in_passing) {
    std::string k = rule_key(p.rule, p.mistake);
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(std::move(k));
  }
  // A failure with no record (a report of an older rdmaconf): its own.
  if (keys.empty()) keys.push_back("case " + r.c->id + " " + r.reason);
  return keys;
}

namespace {

// The findings of one run as they are built: one per key, in the order their
// first case came.
class Grouping {
 public:
  // A case's failed step (findings.hpp): the finding of its key, with what
  // the step expected and what came; a step that failed on a rule (a known
  // mistake, a framing error, a rule broken on the unit it judged) names
  // that rule, any other the requirements of the cases in it.
  void add_step(const cf::CaseResult& r) {
    const cf::Failure& fl = *r.failure;
    const std::string key = step_key(r);
    auto [f, fresh] = finding_for(key);
    if (fresh) {
      f.source = key.starts_with("rule ") ? Finding::Source::kRule : Finding::Source::kStep;
      f.expected = fl.expected;
      f.got = fl.field.empty() || fl.kind != cf::Failure::Kind::kField
                  ? got_class(fl)
                  : fl.got + ": " + fl.field + " " + fl.have + " where the case expects " + fl.field + fl.want;
      f.mistake = fl.mistake, f.hint = fl.hint, f.meant = fl.meant;
      f.example = &r;
      f.sent = fl.stimulus_octets, f.received = fl.received;
      if (f.source == Finding::Source::kRule) {
        const cf::InPassing* p = fl.explained ? nullptr : broken_on_unit(r);
        f.rules.push_back(p ? RuleRef{p->rule, strength(p->level), p->section, p->summary}
                            : rule_ref(fl.mistake_rule, "MUST", ""));
        if (p) f.mistake = p->mistake, f.hint = p->hint;
      }
    }
    add_case(f, r);
    if (f.source == Finding::Source::kStep)
      for (const std::string& req : r.c->requirements) {
        if (std::none_of(f.rules.begin(), f.rules.end(), [&](const RuleRef& x) { return x.id == req; }))
          f.rules.push_back(rule_ref(req, cf::to_string(r.c->level), r.c->rfc));
      }
  }

  // A failure the run recorded nothing of (a report of an older rdmaconf):
  // its own finding, under the case's requirements.
  void add_unrecorded(const cf::CaseResult& r) {
    auto [f, fresh] = finding_for(keys_of(r).front());
    if (fresh) {
      f.got = r.reason;
      f.example = &r;
      for (const std::string& req : r.c->requirements) f.rules.push_back(rule_ref(req, cf::to_string(r.c->level), r.c->rfc));
    }
    add_case(f, r);
  }

  // A rule broken in passing: one finding per rule and mistake, showing the
  // message that broke it as it came on the wire.
  void add_in_passing(const cf::CaseResult& r, const cf::InPassing& p) {
    auto [f, fresh] = finding_for(rule_key(p.rule, p.mistake));
    if (f.rules.empty()) f.rules.push_back({p.rule, strength(p.level), p.section, p.summary});
    if (fresh || !f.example) {
      f.source = Finding::Source::kRule;
      f.expected = p.summary;
      f.got = p.text;
      f.mistake = p.mistake, f.hint = p.hint;
      f.example = &r;
      f.received = p.octets;
      f.received_whole = true;
    }
    if (f.got.empty()) f.got = p.text;
    if (f.received.empty()) {
      f.received = p.octets;
      f.received_whole = true;
    }
    add_case(f, r);
  }

  std::vector<Finding> take() { return std::move(out_); }

 private:
  std::pair<Finding&, bool> finding_for(const std::string& key) {
    auto [it, fresh] = by_key_.try_emplace(key, out_.size());
    if (fresh) {
      out_.emplace_back();
      out_.back().key = key;
    }
    return {out_[it->second], fresh};
  }
  static void add_case(Finding& f, const cf::CaseResult& r) {
    if (std::find(f.cases.begin(), f.cases.end(), &r) == f.cases.end()) f.cases.push_back(&r);
    if (severity(r.verdict) > severity(f.verdict) || f.cases.size() == 1) f.verdict = r.verdict;
  }

  std::vector<Finding> out_;
  std::map<std::string, std::size_t> by_key_;
};

// A finding's level (the strongest of its rules, and of its cases for a
// step's finding) and the sections it cites.
void settle_level(Finding& f) {
  std::set<std::string> sections;
  std::string level = "MAY";
  for (const RuleRef& x : f.rules) {
    if (!x.section.empty()) sections.insert(x.section);
    if (rank(x.level) > rank(level)) level = x.level;
  }
  if (f.source == Finding::Source::kStep)
    for (const cf::CaseResult* r : f.cases) {
      const std::string l = strength(cf::to_string(r->c->level));
      if (rank(l) > rank(level)) level = l;
      if (!r->c->rfc.empty() && f.rules.empty()) sections.insert(r->c->rfc);
    }
  f.level = level;
  f.sections.assign(sections.begin(), sections.end());
}

// A finding's title, one line of what the IUT does: the rule it breaks, or
// what its step's key says (step_key) in words.
std::string title_of(const Finding& f) {
  if (f.source == Finding::Source::kRule) {
    const RuleRef& rule = f.rules.front();
    return rule.id + " broken" + (rule.summary.empty() ? std::string() : ": " + rule.summary) +
           (f.mistake.empty() ? "" : " (" + std::string(wire::mistake_words(f.mistake)) + ")");
  }
  if (!f.example || !f.example->failure) return f.got;
  const cf::Failure& fl = *f.example->failure;
  const std::string expected = fl.expected_class.empty() ? fl.expected : fl.expected_class;
  if (f.key.starts_with("missing ")) {
    // What was missing, whatever provoked it (step_key).
    const std::string did = fl.got == "close" ? "closes the connection" : fl.got == "reset" ? "resets the connection"
                                                                                             : "sends nothing";
    return "where a " + unit_names(expected) + " is due, the IUT " + did;
  }
  if (f.key.find(" meaning ") != std::string::npos)
    return fl.got + " meant as " + f.meant + " (read as the mistake says) where the case expects " + essential(expected);
  if (f.key.find(" as meant ") != std::string::npos)
    return fl.got + " " + f.meant + " as meant (read as the mistake says), but its " + fl.field + " is " + fl.have +
           " where the case expects " + fl.field + fl.want;
  if (f.key.starts_with("field "))
    return fl.got + ": " + fl.field + " is " + fl.have + " where the case expects " + fl.field + fl.want;
  return "the IUT answers a " + (fl.stimulus.empty() ? std::string("connection") : fl.stimulus) + " with " +
         got_class(fl) + " where a " + unit_names(expected) + " is due";
}

}  // namespace

std::vector<Finding> group(const std::vector<cf::CaseResult>& results) {
  // In case order (id, then configuration), whatever order the results came
  // in (a run's parallel cases, a dashboard's stored ones): the same results
  // give the same findings, examples and titles.
  std::vector<const cf::CaseResult*> ordered;
  for (const cf::CaseResult& r : results) ordered.push_back(&r);
  std::stable_sort(ordered.begin(), ordered.end(), [](const cf::CaseResult* a, const cf::CaseResult* b) {
    return a->c->id != b->c->id ? a->c->id < b->c->id : a->configuration < b->configuration;
  });
  Grouping grouping;
  for (const cf::CaseResult* r : ordered) {
    if (!failing(*r)) continue;
    if (r->failure && severity(r->script_verdict) > 0) grouping.add_step(*r);
    else if (!r->failure && r->in_passing.empty()) grouping.add_unrecorded(*r);
    for (const cf::InPassing& p : r->in_passing) grouping.add_in_passing(*r, p);
  }
  std::vector<Finding> out = grouping.take();
  for (Finding& f : out) {
    settle_level(f);
    f.title = title_of(f);
  }
  // Worst first: verdict, level, then the most cases.
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    if (severity(a.verdict) != severity(b.verdict)) return severity(a.verdict) > severity(b.verdict);
    if (rank(a.level) != rank(b.level)) return rank(a.level) > rank(b.level);
    if (a.cases.size() != b.cases.size()) return a.cases.size() > b.cases.size();
    return a.key < b.key;
  });
  for (std::size_t i = 0; i < out.size(); ++i) out[i].id = "F" + std::to_string(i + 1);
  return out;
}

const Finding* find(const std::vector<Finding>& all, const std::string& name) {
  std::string id = name;
  if (!id.empty() && std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; })) id = "F" + id;
  for (const Finding& f : all)
    if (f.id == id || f.key == name) return &f;
  const Finding* hit = nullptr;
  for (const Finding& f : all)
    if (!name.empty() && f.key.starts_with(name)) {
      if (hit) return nullptr;  // ambiguous
      hit = &f;
    }
  return hit;
}

namespace {
// `rdmaconf run` options that take a value (conformance/cli/run.cpp), and
// those that select cases or name outputs: dropped from a reproducer.
bool takes_value(std::string_view o) {
  static const std::set<std::string_view> k = {
      "--target",     "--clc-target",      "--listen",      "--fault",         "--suite",       "--case",
      "--cases-dir",  "--iut-lacks",       "--clc-eid",     "--clc-prefix",    "--clc-gid",     "--clc-mac",
      "--agent",      "--token",           "--agent-config", "--agent-listen", "--agent-connect-to",
      "-j",           "--jobs",            "--time-scale",  "--reply-settle",  "--junit",       "--json",
      "--html",       "--pcap",            "--publish",     "--publish-token", "--baseline",    "--label",
      "--iut",        "--findings"};
  return k.contains(o);
}
bool dropped(std::string_view o) {
  static const std::set<std::string_view> k = {"--suite", "--case",    "-j",      "--jobs",          "--junit",
                                               "--json",  "--html",    "--pcap",  "--publish",       "--publish-token",
                                               "--baseline", "--label", "--iut",  "--agent-config",  "-q",
                                               "--quiet", "--findings", "--no-probe"};
  return k.contains(o);
}
}  // namespace

std::string reproducer(const std::vector<std::string>& command_line, const std::string& target,
                       const cf::CaseResult& r) {
  std::vector<std::string> words{"rdmaconf", "run"};
  bool any_target = false;
  // command_line[0] is the program, [1] the subcommand.
  for (std::size_t i = 2; i < command_line.size(); ++i) {
    std::string opt = command_line[i], value;
    bool has_value = false;
    if (const auto eq = opt.find('='); opt.starts_with("--") && eq != std::string::npos) {
      value = opt.substr(eq + 1);
      opt = opt.substr(0, eq);
      has_value = true;
    } else if (takes_value(opt) && i + 1 < command_line.size()) {
      value = command_line[++i];
      has_value = true;
    }
    if (dropped(opt)) continue;
    if (opt == "--token") value = "\"$RDMACONF_AGENT_TOKEN\"";
    if (opt == "--target" || opt == "--clc-target" || opt == "--listen" || opt == "--agent" || opt == "--reference")
      any_target = true;
    words.push_back(opt);
    if (has_value) words.push_back(opt == "--token" ? value : report_text::shell_word(value));
  }
  if (!any_target && !target.empty()) {
    words.push_back("--target");
    words.push_back(report_text::shell_word(target));
  }
  words.push_back("--case");
  words.push_back(r.c->id);
  // A pass of the agent ("crc=on markers=off") is a configuration again.
  if (!r.configuration.empty()) {
    std::string config = r.configuration;
    std::replace(config.begin(), config.end(), ' ', ',');
    words.push_back("--agent-config");
    words.push_back(report_text::shell_word(config));
  }
  return join(words, " ");
}

}  // namespace rdmaconf::findings
