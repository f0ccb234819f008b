// Matching what the IUT sent against a step's alternatives (runner_match.hpp):
// unit names, each field the script names read through its declaration,
// captures bound only when the whole alternative matches, and a Terminate
// that missed read for a known encoding mistake. runner.cpp's steps ask it.
#include "engine/runner_match.hpp"

#include <algorithm>
#include <cstdio>

#include "analysis/rules.hpp"
#include "ddp/headers.hpp"
#include "rdmap/diagnosis.hpp"

namespace rdmaconf::conformance::runner {
namespace {

// A captured value, for messages.
std::string shown(const Captures& c, const std::string& name) {
  const auto it = c.find(name);
  if (it == c.end()) return "nothing captured";
  if (it->second.is_octets) return "hex:" + hex(it->second.octets, 64);
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(it->second.number.value_or(0)));
  return buf;
}

// A value as the script wrote it (params substituted): "5", "ddp",
// "$rw.stag+4", "@sink".
std::string written(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kNumber: return std::to_string(v.number);
    case Value::Kind::kString: return "\"" + v.text + "\"";
    case Value::Kind::kBytes: return "hex:" + hex(v.bytes, 64);
    case Value::Kind::kWord: return v.text;
    case Value::Kind::kVariable:
      return "$" + v.text + (v.offset > 0 ? "+" + std::to_string(v.offset) : v.offset < 0 ? std::to_string(v.offset) : "");
    case Value::Kind::kCapture: return "@" + v.text;
    case Value::Kind::kNone: return {};
  }
  return {};
}

// RFC 5040 §4.8: a Terminate whose control word reads cleanly as a
// little-endian C bitfield (rdmap/diagnosis.hpp). Fills the miss's mistake,
// what the IUT meant, and whether the step matches the Terminate as meant:
// then the encoding is the whole cause of the mismatch. A word that breaks
// §4.8's layout is diagnosed whatever the step expects; one that reads
// cleanly both ways (an LLP error, `02 02 00 00`) only when the step
// matches it read as the bitfield.
void diagnose_terminate_miss(Session& s, const Alternative& alt, const Received& u, Miss& m) {
  if (u.name != "terminate" || u.segment.octets.size() < ddp::kUntaggedHeaderSize + rdmap::kTerminateControlSize) return;
  const wire::Bytes body = wire::Bytes(u.segment.octets).subspan(ddp::kUntaggedHeaderSize);
  const bool malformed = !rdmap::decode_terminate(body);
  const auto h = rdmap::le_bitfield_reading(body);
  const auto meant = rdmap::read_as_le_bitfield(body);
  if (!h || !meant) return;
  Received corrected = u;
  const auto word = rdmap::encode_control(meant->code, meant->m, meant->d, meant->r);
  std::copy(word.begin(), word.end(), corrected.segment.octets.begin() + ddp::kUntaggedHeaderSize);
  corrected.segment.rebuild_blocks();
  Captures kept = s.captures;
  const Miss residual = match(s, alt, corrected, false);
  s.captures = std::move(kept);
  const bool explained = residual.matched();
  if (!malformed && !explained) return;
  m.mistake = std::string(h->mistake);
  m.hint = h->text;
  m.mistake_rule = std::string(h->rule);
  m.meant = rdmap::describe_code(meant->code);
  m.explained = explained;
  m.why += " (hint: " + h->text + ")";
  // Read as meant, what still differs is the step's real difference.
  if (!explained && residual.kind == Failure::Kind::kField && !residual.field.empty())
    m.field = residual.field, m.want = residual.want, m.have = residual.have;
}

}  // namespace

Miss miss(Failure::Kind kind, std::string why) { return Miss{std::move(why), kind, {}, {}, {}, {}, {}, {}, {}, false}; }

std::string describe_unit(const Received& u) {
  if (u.kind == Received::Kind::kMalformed) return u.problem;
  return u.name;
}

// An FPDU with a wrong CRC or Marker breaks the rule the capture observer
// names for it (RFC 5044 §4.4, §4.2): that rule is the whole cause, and the
// observer reports it in passing too, so findings join the two.
Miss framing_miss(const Received& u) {
  Miss m = miss(Failure::Kind::kFraming, u.problem);
  m.field = !u.crc_ok ? "crc" : "marker";
  m.mistake_rule = std::string(!u.crc_ok ? analysis::rules::kCrc.id : analysis::rules::kMarkerFpduPtr.id);
  m.explained = true;
  return m;
}

// Empty when `u` matches `alt`; otherwise why not.
Miss match(Session& s, const Alternative& alt, Received& u, bool diagnose) {
  using K = Failure::Kind;
  if (u.kind == Received::Kind::kMalformed) return miss(K::kMalformed, u.problem);
  const std::string& want = alt.unit;
  bool name_ok = false;
  if (want == u.name) name_ok = true;
  else if (want == "fpdu" && u.kind == Received::Kind::kFpdu) name_ok = true;
  else if (want == "clc" && u.kind == Received::Kind::kClc) name_ok = true;
  else if (want == "mpa.reject" && u.name == "mpa.reply") {
    name_ok = true;
    const auto blocks = u.all_blocks();
    auto hit = find_field(blocks, "r");
    if (hit->block->get(*hit->field) != 1) {
      Miss m = miss(K::kField, "expected an MPA Reply with R set, got one accepting the connection");
      m.field = "r", m.want = "1", m.have = "0";
      return m;
    }
  }
  if (!name_ok) return miss(K::kUnit, "expected " + want + ", got " + describe_unit(u));
  if (u.kind == Received::Kind::kFpdu && (!u.crc_ok || !u.markers_ok)) {
    const Arg* crc = find_arg(alt.args, "crc_ok");
    if (!(crc && crc->value.kind == Value::Kind::kNumber && crc->value.number == 0)) return framing_miss(u);
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
      if (auto* e = std::get_if<std::string>(&b)) return miss(K::kOther, "payload: " + *e);
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
        if (auto* e = std::get_if<std::string>(&v)) return miss(K::kOther, a.name + ": " + *e);
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
      if (!hit) return miss(K::kField, "no field '" + a.name + "' in the received " + u.name);
      have = show(*hit);
      if (binds) {
        Resolved r = capture(*hit);
        if (a.mask) {
          auto n = numeric_value(*hit);
          if (!n) return miss(K::kOther, a.name + ": a mask needs a field of at most 8 octets");
          r = Resolved::of(*n & *a.mask);
        }
        captures[a.value.text] = std::move(r);
        ok = true;
      } else {
        auto v = resolve(a.value, hit->field, s.vars, &captures);
        if (auto* e = std::get_if<std::string>(&v)) return miss(K::kOther, a.name + ": " + *e);
        const Resolved& want = std::get<Resolved>(v);
        if (!a.mask && (a.op == Op::kEq || a.op == Op::kNe || a.op == Op::kNone)) {
          ok = holds(*hit, want) == (a.op != Op::kNe);
        } else {
          // Masks and order comparisons read the field as a number.
          auto n = numeric_value(*hit);
          if (!n) return miss(K::kOther, a.name + ": '" + std::string(to_string(a.op)) + "' needs a field of at most 8 octets");
          std::optional<std::uint64_t> w = want.number;
          if (want.is_octets && want.octets.size() <= 8) w = wire::load_be(want.octets);
          if (!w) return miss(K::kOther, a.name + ": expected a number to compare with");
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
      Miss m = miss(K::kField, u.name + ": expected " + lhs + std::string(to_string(a.op)) + want_text + ", got " + have);
      m.field = lhs;
      // As written: a learnt value ($var, @capture) is a kind, not a number.
      m.want = std::string(to_string(a.op)) + written(a.value);
      m.have = have;
      // A known encoding mistake that explains the octets (rdmap/diagnosis.hpp).
      if (diagnose) diagnose_terminate_miss(s, alt, u, m);
      return m;
    }
  }
  s.captures = std::move(captures);
  return {};
}

// An expectation's alternatives as the script says them, values resolved
// only as far as the parser did (params substituted; $variables and
// @captures kept by name), so two runs write the same text.
//
// `as_class`: only what tells kinds of answers apart (engine.hpp,
// Failure::expected_class): the values of payloads and lengths, octet
// strings and values learnt during the run are left out.
std::string expected_text(const Step& st, bool as_class) {
  std::string out;
  for (const Alternative& a : st.alternatives) {
    if (!out.empty()) out += " | ";
    out += a.unit;
    for (const Arg& arg : a.args) {
      out += " " + arg.name;
      if (as_class) {
        const Value::Kind k = arg.value.kind;
        const bool size = arg.name == "payload" || arg.name == "payload_len" || arg.name == "ulpdu_length" ||
                          arg.name == "segments" || arg.name == "byte_len" || arg.name == "detail";
        if (size || k == Value::Kind::kVariable || k == Value::Kind::kCapture || k == Value::Kind::kBytes ||
            k == Value::Kind::kString)
          continue;
      }
      if (arg.mask) {
        char m[24];
        std::snprintf(m, sizeof m, "&0x%llx", static_cast<unsigned long long>(*arg.mask));
        out += m;
      }
      if (!arg.has_value) continue;
      out += std::string(to_string(arg.op)) + written(arg.value);
    }
  }
  return out;
}

std::string alternatives_text(const Step& st) {
  std::string s;
  for (const Alternative& a : st.alternatives) {
    if (!s.empty()) s += " or ";
    s += a.unit;
  }
  return s;
}

// A mismatch that no unit explains: the IUT closed, nothing came, ...
StepOutcome mismatch(Failure::Kind kind, std::string reason, std::string got) {
  StepOutcome o{StepOutcome::Kind::kMismatch, std::move(reason)};
  o.failure.kind = kind;
  o.failure.got = std::move(got);
  return o;
}

// A mismatch on a unit the IUT sent.
StepOutcome mismatch(const Miss& m, const Received& u, std::string reason) {
  StepOutcome o{StepOutcome::Kind::kMismatch, std::move(reason)};
  Failure& f = o.failure;
  f.kind = m.kind;
  f.got = u.kind == Received::Kind::kMalformed ? "malformed" : u.name;
  f.received = u.kind == Received::Kind::kFpdu ? u.segment.octets : u.octets;
  if (f.received.size() > 256) f.received.resize(256);
  f.received_offset = u.stream_offset;
  f.received_length = u.stream_length;
  f.field = m.field, f.want = m.want, f.have = m.have;
  f.mistake = m.mistake, f.hint = m.hint, f.mistake_rule = m.mistake_rule, f.meant = m.meant;
  f.explained = m.explained;
  return o;
}
StepOutcome mismatch(Failure::Kind kind, const Received& u, std::string reason) { return mismatch(miss(kind, {}), u, std::move(reason)); }

}  // namespace rdmaconf::conformance::runner
