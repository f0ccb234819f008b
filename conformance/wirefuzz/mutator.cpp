// Fuzz cases and their mutations (mutator.hpp).
#include "wirefuzz/mutator.hpp"

#include <algorithm>

#include "clc/headers.hpp"
#include "engine/units.hpp"
#include "mpa/headers.hpp"
#include "wirefuzz/case_text.hpp"

namespace rdmaconf::conformance::wirefuzz {

std::uint64_t Rng::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Rng iteration_rng(std::uint64_t seed, std::uint64_t n) {
  Rng mix(seed ^ (n * 0xd1b54a32d192ed03ULL));
  return Rng(mix.next());
}

std::string_view to_string(FuzzTarget t) {
  switch (t) {
    case FuzzTarget::kMpaResponder: return "mpa-responder";
    case FuzzTarget::kMpaInitiator: return "mpa-initiator";
    case FuzzTarget::kClcServer: return "clc-server";
  }
  return "mpa-responder";
}

namespace {

bool is_iwarp_suite(const std::string& p) { return p == "mpa" || p == "ddp" || p == "rdmap"; }

bool is_fpdu(std::string_view u) {
  return opcode_for(u).has_value() || u == "ddp.tagged" || u == "ddp.untagged" || u == "fpdu" || u == "ulp.command";
}

Step anything_step(Duration settle) {
  Step st;
  st.kind = StepKind::kExpect;
  st.alternatives.push_back({"anything", {}});
  st.within = settle;
  return st;
}

Arg number_arg(std::string name, std::uint64_t v) {
  Arg a;
  a.name = std::move(name);
  a.op = Op::kEq;
  a.has_value = true;
  a.value.kind = Value::Kind::kNumber;
  a.value.number = v;
  return a;
}

Arg word_arg(std::string name, std::string word) {
  Arg a = number_arg(std::move(name), 0);
  a.value.kind = Value::Kind::kWord;
  a.value.text = std::move(word);
  return a;
}

// Sets (or replaces) one argument of a step.
void set_arg(Step& st, Arg a) {
  auto same = std::find_if(st.args.begin(), st.args.end(), [&](const Arg& b) { return b.name == a.name; });
  if (same != st.args.end()) *same = std::move(a);
  else st.args.push_back(std::move(a));
}

// A declared field a mutation may set: its name as a script writes it and
// its width. Octet strings (MPA's Key) are left to `append`/`truncate`.
struct FieldChoice {
  std::string name;
  std::uint32_t bits = 0;
};

// The fields of the CLC messages the tester sends to a CLC server (RFC 7609
// §3.5.1, App. A): the header with its type-specific bits, the message's
// body, the trailer. Their names are unique across one message's blocks.
std::vector<FieldChoice> clc_fields_of(const std::string& unit) {
  namespace clc = rdmaconf::clc;
  std::vector<std::span<const wire::FieldDecl>> parts{clc::ClcHeaderSpec::decl.fields};
  if (unit == "clc.proposal") {
    parts.insert(parts.end(), {clc::kProposalTypeBits, clc::ProposalBodySpec::decl.fields, clc::IpPrefixSpec::decl.fields});
  } else if (unit == "clc.accept" || unit == "clc.confirm") {
    parts.insert(parts.end(), {clc::kAcceptConfirmTypeBits, clc::SmcrAcceptConfirmSpec::decl.fields});
  } else if (unit == "clc.decline") {
    parts.insert(parts.end(), {clc::kDeclineTypeBits, clc::DeclineSpec::decl.fields});
  } else {
    return {};
  }
  parts.push_back(clc::TrailerSpec::decl.fields);
  std::vector<FieldChoice> out;
  for (const auto& fields : parts)
    for (const wire::FieldDecl& f : fields)
      // The header's type_bits are set through their per-message overlay.
      if (!f.is_octet_string() && f.abbrev != "type_bits") out.push_back({std::string(f.abbrev), f.bit_width});
  return out;
}

std::vector<FieldChoice> fields_of(const std::string& unit) {
  std::vector<FieldChoice> out;
  if (unit.starts_with("clc.")) return clc_fields_of(unit);
  if (unit == "mpa.request" || unit == "mpa.reply") {
    for (const wire::FieldDecl& f : mpa::ReqRepSpec::decl.fields)
      if (!f.is_octet_string()) out.push_back({std::string(f.abbrev), f.bit_width});
    return out;
  }
  if (!is_fpdu(unit) || unit == "fpdu") return out;
  std::uint32_t msn[4] = {1, 1, 1, 1};
  const Segment s = default_segment(unit == "ulp.command" ? "send" : unit, msn);
  for (const Block& b : s.blocks)
    for (const wire::FieldDecl& f : b.fields) {
      if (f.is_octet_string()) continue;
      // The plain name when it reaches this field, else "block.field" (ddp.rsvd, rdmap.rsvd).
      std::string name(f.abbrev);
      const auto hit = find_field(s.blocks, name);
      if (!hit || hit->field != &f) name = std::string(b.decl->abbrev) + "." + std::string(f.abbrev);
      if (std::none_of(out.begin(), out.end(), [&](const FieldChoice& c) { return c.name == name; }))
        out.push_back({name, f.bit_width});
    }
  return out;
}

// A value at or across the edges of a field of `bits` bits: 0, 1, the
// largest, one below it, the top bit alone, the values around a power of
// two; or, for a field the step already sets, that value one off.
std::uint64_t edge_value(Rng& rng, std::uint32_t bits) {
  const std::uint64_t max = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  switch (rng.below(7)) {
    case 0: return 0;
    case 1: return 1 & max;
    case 2: return max;
    case 3: return max - 1;
    case 4: return (std::uint64_t{1} << (bits - 1)) & max;
    case 5: {
      const std::uint64_t p = std::uint64_t{1} << rng.below(bits);
      return (p + rng.below(3) - 1) & max;
    }
    default: return rng.next() & max;
  }
}

// Lengths that lie about the octets that follow: small values, the edges
// of a DDP header, an MULPDU, the 16-bit range.
constexpr std::uint64_t kLengths[] = {0, 1, 2, 13, 14, 17, 18, 27, 28, 29, 100, 1000, 4096, 8192, 65535};

struct Mutator {
  Case& c;
  Rng& rng;

  std::string where(std::size_t i) const { return "step " + std::to_string(i + 1) + " (" + step_text(c.steps[i]) + ")"; }

  // The step that sets up MPA on the case's first connection: its
  // handshake, or in the initiator role the tester's first Reply; nullptr
  // when neither is there.
  Step* mpa_setup() {
    for (Step& st : c.steps)
      if (st.kind == StepKind::kHandshake || (st.kind == StepKind::kSend && st.unit == "mpa.reply")) return &st;
    return nullptr;
  }

  // The case's MPA setup asks for CRCs (c=1), so that a CRC made wrong on
  // purpose means something to the receiver (RFC 5044 §7.1.2: CRCs are used
  // when either side asks, so the Reply's C does it as well as the Request's).
  void ask_crc() {
    Step* st = mpa_setup();
    if (st && std::none_of(st->args.begin(), st->args.end(), [](const Arg& a) { return a.name == "c"; }))
      st->args.push_back(number_arg("c", 1));
  }

  Mutation field(std::size_t i) {
    Step& st = c.steps[i];
    const auto fields = fields_of(st.unit);
    if (fields.empty()) return framing(i);
    const FieldChoice& f = fields[rng.below(fields.size())];
    // A field the seed sets to an advertised value ($rw.stag) stays near
    // it: the neighbouring STag, an offset at the buffer's edges.
    auto seeded = std::find_if(st.args.begin(), st.args.end(), [&](const Arg& a) { return a.name == f.name; });
    Arg a;
    if (seeded != st.args.end() && seeded->value.kind == Value::Kind::kVariable && rng.chance(60)) {
      a = *seeded;
      static constexpr std::int64_t kNear[] = {-1, 1, -4096, 4096, 256, -256, 65536};
      a.value.offset += kNear[rng.below(std::size(kNear))];
    } else if (seeded != st.args.end() && seeded->value.kind == Value::Kind::kNumber && rng.chance(40)) {
      a = *seeded;
      a.value.number += rng.chance(50) ? 1 : ~std::uint64_t{0};
      if (f.bits < 64) a.value.number &= (std::uint64_t{1} << f.bits) - 1;
    } else {
      a = number_arg(f.name, edge_value(rng, f.bits));
    }
    const std::string text = arg_text(a);
    set_arg(st, std::move(a));
    return {"set " + text + " on " + where(i)};
  }

  // Markers both ways (RFC 5044 §7.1.2: towards each side that asked): the
  // tester's Request sets M, and hints the test ULP to ask for them too.
  // In the initiator role the Reply's M asks the IUT to send them.
  void ask_markers() {
    Step* st = mpa_setup();
    if (!st) return;
    set_arg(*st, number_arg("m", 1));
    if (st->kind == StepKind::kHandshake) set_arg(*st, word_arg("hint", "markers"));
  }

  Mutation framing(std::size_t i) {
    Step& st = c.steps[i];
    const bool fpdu = is_fpdu(st.unit);
    Arg a;
    switch (fpdu ? rng.below(7) : 3 + rng.below(2)) {
      case 0: a = number_arg("ulpdu_length", kLengths[rng.below(std::size(kLengths))]); break;
      case 1:
        ask_crc();
        a = word_arg("crc", "bad");
        break;
      case 2: a = number_arg("pad", rng.below(4)); break;
      case 3: a = number_arg("truncate", 1 + rng.below(fpdu ? 30 : 24)); break;
      case 4:
        a = number_arg("append", 0);
        a.value.kind = Value::Kind::kBytes;
        a.value.bytes.resize(1 + rng.below(8));
        for (auto& o : a.value.bytes) o = static_cast<std::uint8_t>(rng.below(256));
        break;
      case 5:
        ask_markers();
        a = rng.chance(50) ? number_arg("fpduptr", edge_value(rng, 16)) : number_arg("marker_res", edge_value(rng, 16));
        break;
      default: a = number_arg("payload", kLengths[rng.below(std::size(kLengths))]); break;
    }
    const std::string text = arg_text(a);
    set_arg(st, std::move(a));
    return {"set " + text + " on " + where(i)};
  }

  Mutation apply(const std::vector<std::size_t>& sends) {
    const std::size_t pick = sends[rng.below(sends.size())];
    switch (rng.below(10)) {
      case 0: {
        const std::string w = where(pick);
        c.steps.erase(c.steps.begin() + static_cast<std::ptrdiff_t>(pick));
        return {"drop " + w};
      }
      case 1: {
        const std::string w = where(pick);
        c.steps.insert(c.steps.begin() + static_cast<std::ptrdiff_t>(pick), c.steps[pick]);
        return {"duplicate " + w};
      }
      case 2: {
        auto next = std::find_if(sends.begin(), sends.end(), [&](std::size_t j) { return j > pick; });
        if (next == sends.end()) return field(pick);
        const std::string w = where(pick) + " and " + where(*next);
        std::swap(c.steps[pick], c.steps[*next]);
        return {"swap " + w};
      }
      case 3: {
        // An FPDU's own octets start with a 2-octet ULPDU_Length and a DDP
        // header of at least 14: a split at 1 to 16 is inside every one.
        Step& st = c.steps[pick];
        set_arg(st, number_arg("split", 1 + rng.below(16)));
        set_arg(st, number_arg("pause", rng.below(3) * 10));
        return {"split " + where(pick)};
      }
      case 4: case 5: case 6: return framing(pick);
      default: return field(pick);
    }
  }
};

}  // namespace

std::vector<std::size_t> send_steps(const Case& c) {
  std::vector<std::size_t> out;
  const std::size_t end = liveness_step(c);
  for (std::size_t i = 0; i < end; ++i) {
    const Step& st = c.steps[i];
    if (st.kind == StepKind::kSend && st.unit != "fin" && st.unit != "reset" && st.unit != "raw") out.push_back(i);
  }
  return out;
}

std::size_t liveness_step(const Case& c) {
  for (std::size_t i = c.steps.size(); i-- > 0;)
    if (c.steps[i].kind == StepKind::kConnection) return c.skip_after_close ? i : c.steps.size();
  return c.steps.size();
}

namespace {

bool seed_of(const Case& seed, FuzzTarget t) {
  switch (t) {
    case FuzzTarget::kMpaResponder: return seed.role == Role::kResponder && is_iwarp_suite(seed.protocol);
    case FuzzTarget::kMpaInitiator: return seed.role == Role::kInitiator && is_iwarp_suite(seed.protocol);
    case FuzzTarget::kClcServer: return seed.role == Role::kResponder && seed.protocol == "clc";
  }
  return false;
}

Step expect_step(std::vector<Alternative> alternatives) {
  Step st;
  st.kind = StepKind::kExpect;
  st.alternatives = std::move(alternatives);
  return st;
}

// The last connection of a fuzz case: does the IUT still answer?
void add_liveness(Case& c, const std::vector<Step>& seed_steps, int connection, FuzzTarget t) {
  Step next;
  next.kind = StepKind::kConnection;
  next.connection = connection;
  c.steps.push_back(next);
  switch (t) {
    case FuzzTarget::kMpaResponder: {
      Step hs;
      hs.kind = StepKind::kHandshake;
      c.steps.push_back(hs);
      break;
    }
    case FuzzTarget::kMpaInitiator:
      // It connects again and opens with an MPA Request (RFC 5044 §7.1.2).
      c.steps.push_back(expect_step({{"mpa.request", {}}}));
      break;
    case FuzzTarget::kClcServer: {
      // A Proposal offering what the seed's first one offered (its
      // unmutated `offer=` and `smcd=`), answered at all: an Accept or a Decline
      // (RFC 7609 §3.5.1: the server answers every Proposal).
      Step p;
      p.kind = StepKind::kSend;
      p.unit = "clc.proposal";
      auto first = std::find_if(seed_steps.begin(), seed_steps.end(),
                                [](const Step& st) { return st.kind == StepKind::kSend && st.unit == "clc.proposal"; });
      if (first != seed_steps.end())
        for (const Arg& a : first->args)
          if (a.name == "offer" || a.name == "smcd") p.args.push_back(a);
      c.steps.push_back(p);
      c.steps.push_back(expect_step({{"clc.accept", {}}, {"clc.decline", {}}}));
      break;
    }
  }
}

}  // namespace

std::optional<Case> fuzz_case(const Case& seed, const FuzzShape& shape) {
  if (!seed_of(seed, shape.target) || seed.needs_item("agent")) return std::nullopt;
  Case c;
  c.file = seed.file;
  c.protocol = seed.protocol;
  c.id = seed.id + "-fuzz";
  c.title = "Wire fuzzing from " + seed.id;
  c.requirements = seed.requirements;
  c.rfc = seed.rfc;
  c.level = seed.level;
  c.role = seed.role;
  c.needs = seed.needs;
  c.timeout = seed.timeout;
  c.skip_after_close = true;
  int connections = 1;
  // A saved fuzz case (a finding's script) starts again without its liveness check.
  const std::vector<Step> steps(seed.steps.begin(), seed.steps.begin() + static_cast<std::ptrdiff_t>(liveness_step(seed)));
  for (const Step& st : steps) {
    if (st.kind == StepKind::kConnection) connections = std::max(connections, st.connection);
    if (st.kind != StepKind::kExpect) {
      c.steps.push_back(st);
      continue;
    }
    // The IUT as initiator opens each connection with its Request: read as
    // one (whatever the seed checks in it), so that the tester's Reply
    // answers a Request and an IUT that never connected shows at once.
    if (shape.target == FuzzTarget::kMpaInitiator && std::any_of(st.alternatives.begin(), st.alternatives.end(),
                                                                 [](const Alternative& a) { return a.unit == "mpa.request"; })) {
      c.steps.push_back(expect_step({{"mpa.request", {}}}));
      continue;
    }
    // Expectations read what comes; one read after each run of sends.
    if (c.steps.empty() || c.steps.back().kind != StepKind::kExpect) c.steps.push_back(anything_step(shape.settle));
  }
  if (connections >= kMaxConnections) return std::nullopt;
  if (c.steps.empty() || c.steps.back().kind != StepKind::kExpect) c.steps.push_back(anything_step(shape.settle));
  // Does the IUT still answer? A fresh connection and a valid setup.
  add_liveness(c, steps, connections + 1, shape.target);
  // Without a message to mutate there is nothing to fuzz; a value the IUT
  // sent earlier (`@name`) is captured by an expectation, which a fuzz case
  // no longer has.
  if (send_steps(c).empty()) return std::nullopt;
  for (const Step& st : c.steps)
    for (const Arg& a : st.args)
      if (a.value.kind == Value::Kind::kCapture) return std::nullopt;
  return c;
}

std::vector<Mutation> mutate(Case& c, Rng& rng, int count) {
  std::vector<Mutation> out;
  Mutator m{c, rng};
  for (int k = 0; k < count; ++k) {
    const auto sends = send_steps(c);
    if (sends.empty()) break;
    out.push_back(m.apply(sends));
  }
  return out;
}

}  // namespace rdmaconf::conformance::wirefuzz
