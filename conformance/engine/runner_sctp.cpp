// The sctp suite's steps (runner_sctp.hpp): the tester's units over an SCTP
// association, built by reference/sctp/'s encoders with every field
// forcible, and the IUT's chunks matched field by field. What a chunk says
// comes from reference/sctp/'s decoder (RFC 5043 §5.2): its DDP-SSN,
// Function Code and private data, or its DDP segment, beside what SCTP
// carried with it (stream, PPID, U flag).
#include "engine/runner_sctp.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <span>
#include <thread>
#include <tuple>

#include "engine/sctp_packets.hpp"
#include "engine/sctp_transport.hpp"
#include "engine/test_ulp.hpp"
#include "engine/units.hpp"
#include "sctp/messages.hpp"

namespace rdmaconf::conformance::runner {

// The tester's side of one sctp case.
struct SctpPhase {
  std::unique_ptr<SctpSide> side;
  bool associated = false;
  std::map<std::uint16_t, std::uint16_t> next_ssn;  // the tester's next DDP-SSN per stream
  // DDP over SCTP (Session::ddp_over_sctp): the IUT's next DDP-SSN on the
  // session's stream, the chunks that came ahead of it, and whether the
  // session has ended (either side's Session Terminate).
  std::uint16_t expected_ssn = 0;
  std::map<std::uint16_t, SctpChunk> early;
  bool ended = false;
  // Everything the association carried, for the rules checked in passing.
  SctpExchange record;
};

namespace {

constexpr std::string_view kSendUnits[] = {"sctp.init", "sctp.ack", "sctp.control", "sctp.segment"};
constexpr std::string_view kExpectUnits[] = {"sctp.association", "sctp.control", "sctp.segment"};
// What every chunk the tester sends may set, and what every chunk it reads offers.
constexpr std::string_view kChunkFields[] = {"stream", "ppid", "unordered", "ddp_ssn"};

struct FunctionName {
  std::string_view word;
  sctp::FunctionCode code;
};
constexpr FunctionName kFunctions[] = {{"initiate", sctp::FunctionCode::kInitiate},
                                       {"accept", sctp::FunctionCode::kAccept},
                                       {"reject", sctp::FunctionCode::kReject},
                                       {"terminate", sctp::FunctionCode::kTerminate}};

std::optional<std::uint64_t> function_value(const Value& v) {
  if (v.kind == Value::Kind::kNumber) return v.number;
  if (v.kind != Value::Kind::kWord) return std::nullopt;
  for (const FunctionName& f : kFunctions)
    if (f.word == v.text) return static_cast<std::uint64_t>(f.code);
  return std::nullopt;
}

std::string function_word(std::uint64_t code) {
  for (const FunctionName& f : kFunctions)
    if (static_cast<std::uint64_t>(f.code) == code) return std::string(f.word);
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out = "0x";
  for (int shift = 12; shift >= 0; shift -= 4) out += kDigits[(code >> shift) & 0xf];
  return out;
}

// `pd=N` (N octets counting from 0), `pd="text"`, `pd=hex:...`.
std::optional<std::vector<std::uint8_t>> octets_value(const Value& v) {
  if (v.kind == Value::Kind::kString || v.kind == Value::Kind::kBytes) return v.bytes;
  if (v.kind != Value::Kind::kNumber || v.number > 1u << 20) return std::nullopt;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(v.number));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(i);
  return out;
}

StepOutcome error(const Step& st, std::string why) {
  return {StepOutcome::Kind::kError, "line " + std::to_string(st.line) + ": " + why};
}

// A number argument, or `fallback` when the step does not name it.
std::variant<std::uint64_t, std::string> number_or(const Step& st, std::string_view name, std::uint64_t fallback,
                                                    std::uint64_t max) {
  const Arg* a = find_arg(st.args, name);
  if (!a) return fallback;
  if (!a->has_value || a->value.kind != Value::Kind::kNumber || a->value.number > max)
    return std::string(name) + ": expected a number up to " + std::to_string(max);
  return a->value.number;
}

// ---- the association's record (SctpPhase::record): every chunk both ways
// passes here, for the rules checked in passing.

bool send_chunk_recorded(Session& s, const SctpChunk& chunk, std::string& why) {
  s.sctp->record.messages.push_back({true, s.now_ms(), chunk});
  return s.sctp->side->send(chunk, why);
}

std::optional<SctpChunk> receive_recorded(Session& s, Clock::time_point deadline) {
  auto c = s.sctp->side->receive(deadline);
  if (c) s.sctp->record.messages.push_back({false, s.now_ms(), *c});
  return c;
}

// ---- sending

bool associate(Session& s, const SctpInit& init, std::string& why) {
  SctpPhase& p = *s.sctp;
  if (!p.side->associate(init, why)) return false;
  p.associated = true;
  const SctpPeerInit& peer = p.side->peer_init();
  p.record.tester_init = init;
  p.record.iut_init = peer;
  std::tie(p.record.tester_port, p.record.iut_port) = p.side->ports();
  s.record(true, "--> SCTP INIT, " + std::to_string(init.streams) + " streams, Adaptation Indication " +
                     (init.indication ? std::to_string(*init.indication) : std::string("none")),
           init.hold_acks ? "acknowledgements held until sctp.ack" : "");
  s.record(false, "<-- SCTP INIT-ACK, " + std::to_string(peer.outbound_streams) + " outbound and " +
                      std::to_string(peer.inbound_streams) + " inbound streams, Adaptation Indication " +
                      (peer.indication ? std::to_string(*peer.indication) : std::string("none")),
           "");
  return true;
}

StepOutcome send_init(Session& s, const Step& st) {
  if (s.sctp->associated) return error(st, "sctp.init comes before every other step: the association is up");
  SctpInit init;
  if (const Arg* a = find_arg(st.args, "indication")) {
    if (a->value.kind == Value::Kind::kWord && a->value.text == "none") init.indication.reset();
    else if (a->value.kind == Value::Kind::kNumber && a->value.number <= 0xffffffffu)
      init.indication = static_cast<std::uint32_t>(a->value.number);
    else return error(st, "indication: expected a number or none");
  }
  auto streams = number_or(st, "streams", init.streams, 65535);
  if (auto* e = std::get_if<std::string>(&streams)) return error(st, *e);
  init.streams = static_cast<std::uint16_t>(std::get<std::uint64_t>(streams));
  if (const Arg* a = find_arg(st.args, "acks")) {
    if (a->value.kind != Value::Kind::kWord || (a->value.text != "held" && a->value.text != "auto"))
      return error(st, "acks: expected held or auto");
    init.hold_acks = a->value.text == "held";
  }
  std::string why;
  if (!associate(s, init, why)) return error(st, "the association could not be set up: " + why);
  return {};
}

StepOutcome send_chunk(Session& s, const Step& st) {
  SctpPhase& p = *s.sctp;
  const bool control = st.unit == "sctp.control";
  auto stream = number_or(st, "stream", 0, 65535);
  auto unordered = number_or(st, "unordered", 1, 1);
  auto ppid = number_or(st, "ppid", control ? sctp::kPpidSessionControl : sctp::kPpidDdpSegment, 0xffffffffu);
  for (auto* v : {&stream, &unordered, &ppid})
    if (auto* e = std::get_if<std::string>(v)) return error(st, *e);
  SctpChunk chunk;
  chunk.stream = static_cast<std::uint16_t>(std::get<std::uint64_t>(stream));
  chunk.unordered = std::get<std::uint64_t>(unordered) != 0;
  chunk.ppid = static_cast<std::uint32_t>(std::get<std::uint64_t>(ppid));
  std::uint16_t& next = p.next_ssn[chunk.stream];
  std::string headline;
  if (control) {
    const Arg* f = find_arg(st.args, "function");
    const auto code = f ? function_value(f->value) : std::nullopt;
    if (!code || *code > 0xffff) return error(st, "function: expected initiate, accept, reject, terminate or a number");
    // RFC 5043 §6.1: an Initiate opens a session, numbered from zero.
    auto ssn = number_or(st, "ddp_ssn", *code == 1 ? 0 : next, 65535);
    if (auto* e = std::get_if<std::string>(&ssn)) return error(st, *e);
    std::vector<std::uint8_t> pd;
    if (const Arg* a = find_arg(st.args, "pd")) {
      auto o = octets_value(a->value);
      if (!o) return error(st, "pd: expected N, \"text\" or hex:...");
      pd = std::move(*o);
    }
    sctp::SessionControlFields fields;
    fields.ddp_ssn = static_cast<std::uint16_t>(std::get<std::uint64_t>(ssn));
    fields.private_data = pd;
    fields.raw_function_code = static_cast<std::uint16_t>(*code);
    sctp::encode_session_control(fields, chunk.octets);
    next = static_cast<std::uint16_t>(fields.ddp_ssn + 1);
    headline = "--> Session " + function_word(*code) + ", DDP-SSN " + std::to_string(fields.ddp_ssn) + ", " +
               std::to_string(pd.size()) + " octets of private data";
  } else {
    auto ssn = number_or(st, "ddp_ssn", next, 65535);
    if (auto* e = std::get_if<std::string>(&ssn)) return error(st, *e);
    const Arg* a = find_arg(st.args, "segment");
    auto segment = a ? octets_value(a->value) : std::nullopt;
    if (!segment) return error(st, "segment: expected N, \"text\" or hex:... (the DDP segment whole)");
    sctp::SegmentChunkFields fields;
    fields.ddp_ssn = static_cast<std::uint16_t>(std::get<std::uint64_t>(ssn));
    fields.ddp_segment = wire::Chunks(wire::Bytes(*segment));
    sctp::encode_segment_chunk(fields, chunk.octets);
    next = static_cast<std::uint16_t>(fields.ddp_ssn + 1);
    headline = "--> DDP Segment Chunk, DDP-SSN " + std::to_string(fields.ddp_ssn) + ", a DDP segment of " +
               std::to_string(segment->size()) + " octets";
  }
  headline += ", stream " + std::to_string(chunk.stream) + ", PPID " + std::to_string(chunk.ppid) +
              (chunk.unordered ? ", U" : ", ordered");
  std::string why;
  if (!send_chunk_recorded(s, chunk, why))
    return mismatch(Failure::Kind::kClosed, "the tester could not send: " + why, "close");
  s.record(true, std::move(headline), hex(chunk.octets, 64));
  s.sent(st, chunk.octets);
  return {};
}

// ---- expecting

// What a chunk of the IUT offers to matchers.
struct Seen {
  std::string unit;  // sctp.control, sctp.segment, or "malformed"
  std::string problem;
  std::map<std::string, std::uint64_t, std::less<>> numbers;
  std::vector<std::uint8_t> private_data;
};

Seen read_chunk(const SctpChunk& c) {
  Seen out;
  out.numbers = {{"stream", c.stream}, {"ppid", c.ppid}, {"unordered", c.unordered ? 1u : 0u}};
  auto m = sctp::decode_message(c.ppid, c.octets);
  if (!m) {
    out.unit = "malformed";
    out.problem = m.error().to_string();
    return out;
  }
  out.numbers["ddp_ssn"] = m->ddp_ssn;
  if (m->kind == sctp::MessageKind::kControl) {
    out.unit = "sctp.control";
    out.numbers["function"] = static_cast<std::uint64_t>(m->function);
    out.numbers["pd_len"] = m->private_data.size();
    out.private_data.assign(m->private_data.begin(), m->private_data.end());
  } else {
    out.unit = "sctp.segment";
    out.numbers["length"] = m->ddp_segment.size();
  }
  return out;
}

Seen read_association(const SctpPeerInit& peer) {
  Seen out;
  out.unit = "sctp.association";
  out.numbers = {{"outbound_streams", peer.outbound_streams},
                 {"inbound_streams", peer.inbound_streams},
                 {"equal_streams", peer.outbound_streams == peer.inbound_streams ? 1u : 0u},
                 {"indication_present", peer.indication ? 1u : 0u}};
  if (peer.indication) out.numbers["indication"] = *peer.indication;
  return out;
}

// Empty when `seen` matches `alt`, else the field that differs: name, want, have.
std::optional<std::array<std::string, 3>> differs(const Alternative& alt, const Seen& seen) {
  for (const Arg& a : alt.args) {
    if (a.name == "private_data") {
      auto want = octets_value(a.value);
      const bool same = want && *want == seen.private_data;
      if (same == (a.op != Op::kNe)) continue;
      return std::array{a.name, want ? hex(*want) : std::string("?"), hex(seen.private_data)};
    }
    const auto it = seen.numbers.find(a.name);
    // `indication=none`: the INIT-ACK carried no Adaptation Layer Indication.
    if (a.name == "indication" && a.value.kind == Value::Kind::kWord && a.value.text == "none") {
      if ((it == seen.numbers.end()) == (a.op != Op::kNe)) continue;
      return std::array{a.name, std::string(a.op == Op::kNe ? "!=" : "=") + "none",
                        it == seen.numbers.end() ? std::string("none") : std::to_string(it->second)};
    }
    const auto want = a.name == "function" ? function_value(a.value)
                      : a.value.kind == Value::Kind::kNumber ? std::optional(a.value.number)
                                                             : std::nullopt;
    const std::string want_text = a.name == "function" && want ? function_word(*want)
                                  : want                      ? std::to_string(*want)
                                                              : a.value.text;
    if (it == seen.numbers.end())
      return std::array{a.name, want_text, std::string(a.name == "indication" ? "none" : "absent")};
    if (want && conformance::compare(it->second, a.op, *want)) continue;
    return std::array{a.name, std::string(to_string(a.op == Op::kNone ? Op::kEq : a.op)) + want_text,
                      a.name == "function" ? function_word(it->second) : std::to_string(it->second)};
  }
  return std::nullopt;
}

StepOutcome expect(Session& s, const Step& st) {
  SctpPhase& p = *s.sctp;
  const auto has = [&](std::string_view unit) {
    return std::any_of(st.alternatives.begin(), st.alternatives.end(),
                       [&](const Alternative& a) { return a.unit == unit; });
  };
  // What the IUT's INIT-ACK said: no reading.
  if (has("sctp.association")) {
    const Seen seen = read_association(p.side->peer_init());
    const auto d = differs(st.alternatives.front(), seen);
    if (!d) return {};
    StepOutcome o = mismatch(Failure::Kind::kField,
                             "the IUT's INIT-ACK has " + (*d)[0] + " " + (*d)[2] + ", expected " + (*d)[1],
                             "sctp.association");
    o.failure.field = (*d)[0], o.failure.want = (*d)[1], o.failure.have = (*d)[2];
    return o;
  }
  const auto deadline = Clock::now() + s.scaled(st.within.value_or(Duration(2000)));
  const auto chunk = receive_recorded(s, deadline);
  if (!chunk) {
    if (p.side->closed()) {
      if (has("close")) return {};
      return mismatch(Failure::Kind::kClosed, "the IUT ended the association", "close");
    }
    if (has("silence")) return {};
    return mismatch(Failure::Kind::kNothing, "nothing came from the IUT", "nothing");
  }
  const Seen seen = read_chunk(*chunk);
  std::string detail = hex(chunk->octets, 64);
  std::string head = "<-- " + (seen.unit == "malformed" ? "malformed chunk: " + seen.problem : seen.unit);
  if (seen.unit == "sctp.control")
    head = "<-- Session " + function_word(seen.numbers.at("function")) + ", DDP-SSN " +
           std::to_string(seen.numbers.at("ddp_ssn")) + ", " + std::to_string(seen.private_data.size()) +
           " octets of private data";
  else if (seen.unit == "sctp.segment")
    head = "<-- DDP Segment Chunk, DDP-SSN " + std::to_string(seen.numbers.at("ddp_ssn")) + ", " +
           std::to_string(seen.numbers.at("length")) + " octets";
  head += ", stream " + std::to_string(chunk->stream) + ", PPID " + std::to_string(chunk->ppid) +
          (chunk->unordered ? ", U" : ", ordered");
  s.record(false, std::move(head), std::move(detail));
  std::optional<std::array<std::string, 3>> first_miss;
  for (const Alternative& alt : st.alternatives) {
    if (alt.unit != seen.unit) continue;
    const auto d = differs(alt, seen);
    if (!d) return {};
    if (!first_miss) first_miss = d;
  }
  StepOutcome o;
  if (first_miss) {
    o = mismatch(Failure::Kind::kField,
                 seen.unit + " came with " + (*first_miss)[0] + " " + (*first_miss)[2] + ", expected " +
                     (*first_miss)[1],
                 seen.unit);
    o.failure.field = (*first_miss)[0], o.failure.want = (*first_miss)[1], o.failure.have = (*first_miss)[2];
  } else {
    o = mismatch(seen.unit == "malformed" ? Failure::Kind::kMalformed : Failure::Kind::kUnit,
                 (seen.unit == "malformed" ? "a malformed chunk came: " + seen.problem : seen.unit + " came"),
                 seen.unit);
  }
  o.failure.received.assign(chunk->octets.begin(),
                            chunk->octets.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(chunk->octets.size(), 256)));
  o.failure.received_length = chunk->octets.size();
  return o;
}

// The case's association from the run's SCTP side: `ddp` when DDP runs
// above its sessions (--transport sctp), not for the sctp suite's own cases.
bool open_association(Session& s, bool ddp, std::string_view no_side, std::string& error) {
  if (!s.o.sctp) return error = no_side, false;
  auto side = s.o.sctp(SctpCaseSetup{.iut_active = s.c.role == Role::kInitiator, .ddp = ddp}, error);
  if (!side) return false;
  s.sctp = std::make_shared<SctpPhase>();
  s.sctp->side = std::move(side);
  s.ddp_over_sctp = ddp;
  s.start = Clock::now();
  return true;
}

}  // namespace

void keep_sctp_record(Session& s) {
  if (s.sctp) s.result.exchange.sctp = std::move(s.sctp->record);
}

bool sctp_open(Session& s, std::string& error) {
  return open_association(s, false, "no SCTP side for the sctp suite (run it against --reference)", error);
}

StepOutcome run_sctp_step(Session& s, const Step& st) {
  SctpPhase& p = *s.sctp;
  // The association comes up with the tester's defaults unless the case's
  // first step sets it up itself.
  if (!p.associated && !(st.kind == StepKind::kSend && st.unit == "sctp.init")) {
    std::string why;
    if (!associate(s, SctpInit{}, why)) return error(st, "the association could not be set up: " + why);
  }
  switch (st.kind) {
    case StepKind::kWait:
      // In process the IUT moves only when the tester does: nothing to wait for.
      if (!p.side->in_process()) std::this_thread::sleep_for(s.waited(st));
      return {};
    case StepKind::kExpect: return expect(s, st);
    case StepKind::kSend:
      if (st.unit == "sctp.init") return send_init(s, st);
      if (st.unit == "sctp.ack") {
        p.side->acknowledge();
        s.record(true, "--> SCTP SACK: every chunk of the IUT acknowledged", "");
        return {};
      }
      return send_chunk(s, st);
    case StepKind::kHandshake:
    case StepKind::kConnection: break;
  }
  return error(st, "no such step in an sctp case");
}

// ---- the ddp and rdmap suites over SCTP

namespace {

// The DDP stream a ddp or rdmap case runs on (RFC 5043 §8: any stream pair
// carries one; the tester takes the first).
constexpr std::uint16_t kDdpStream = 0;
// Chunks of the IUT held while an earlier DDP-SSN is missing, at most: an
// in-order IUT needs none (RFC 5043 §10 lets the receiver bound the gap).
constexpr std::size_t kEarlyLimit = 64;

std::string chunk_note(const SctpChunk& c) {
  return ", stream " + std::to_string(c.stream) + ", PPID " + std::to_string(c.ppid) + (c.unordered ? ", U" : ", ordered");
}

bool send_control(Session& s, sctp::FunctionCode function, wire::Bytes pd, std::string& why) {
  SctpPhase& p = *s.sctp;
  SctpChunk chunk;
  chunk.stream = kDdpStream;
  chunk.ppid = sctp::kPpidSessionControl;
  std::uint16_t& next = p.next_ssn[kDdpStream];
  sctp::SessionControlFields fields;
  fields.ddp_ssn = next;
  fields.function = function;
  fields.private_data = pd;
  sctp::encode_session_control(fields, chunk.octets);
  next = static_cast<std::uint16_t>(next + 1);
  s.record(true,
           "--> Session " + function_word(static_cast<std::uint64_t>(function)) + ", DDP-SSN " +
               std::to_string(fields.ddp_ssn) + ", " + std::to_string(pd.size()) + " octets of private data" +
               chunk_note(chunk),
           hex(chunk.octets, 64));
  return send_chunk_recorded(s, chunk, why);
}

// The IUT's next chunk on the session's stream in DDP-SSN order; nullopt
// when none came before `deadline` (or none is left, in process).
std::optional<SctpChunk> next_in_order(Session& s, Clock::time_point deadline) {
  SctpPhase& p = *s.sctp;
  for (;;) {
    if (auto it = p.early.find(p.expected_ssn); it != p.early.end()) {
      SctpChunk c = std::move(it->second);
      p.early.erase(it);
      ++p.expected_ssn;
      return c;
    }
    auto c = receive_recorded(s, deadline);
    if (!c) return std::nullopt;
    auto m = sctp::decode_message(c->ppid, c->octets);
    // What does not decode, or comes on another stream, is taken as it comes.
    if (!m || c->stream != kDdpStream || m->ddp_ssn == p.expected_ssn) {
      if (m && c->stream == kDdpStream) ++p.expected_ssn;
      return c;
    }
    // RFC 5043 §10: unordered delivery; the DDP-SSN restores the order.
    const auto ahead = static_cast<std::uint16_t>(m->ddp_ssn - p.expected_ssn);
    if (ahead < 0x8000 && p.early.size() < kEarlyLimit) p.early.emplace(m->ddp_ssn, std::move(*c));
    else return c;  // behind, or too far ahead: the matchers see it as it is
  }
}

}  // namespace

bool sctp_ddp_open(Session& s, std::string& error) {
  return open_association(s, true, "no SCTP side for the tester (--transport sctp runs against --reference)", error);
}

StepOutcome sctp_ddp_handshake(Session& s, const Step& st) {
  SctpPhase& p = *s.sctp;
  if (s.c.role != Role::kResponder) return {StepOutcome::Kind::kError, "handshake is for role responder (the tester initiates)"};
  std::string why;
  if (!p.associated && !associate(s, SctpInit{}, why)) return error(st, "the association could not be set up: " + why);
  // RFC 5043 §6.2: the active side's Initiate opens the session.
  if (!send_control(s, sctp::FunctionCode::kInitiate, {}, why))
    return mismatch(Failure::Kind::kClosed, "the tester could not send its Initiate: " + why, "close");
  s.sent(st, {});
  const auto c = next_in_order(s, Clock::now() + s.scaled(Duration(3000)));
  if (!c) {
    const bool closed = p.side->closed();
    return mismatch(Failure::Kind::kHandshake,
                    closed ? "handshake: the IUT ended the association instead of answering the Initiate"
                           : "handshake: no Session Accept to a valid Initiate",
                    closed ? "close" : "nothing");
  }
  const Seen seen = read_chunk(*c);
  s.record(false,
           "<-- " + (seen.unit == "sctp.control" ? "Session " + function_word(seen.numbers.at("function"))
                                                 : seen.unit) +
               chunk_note(*c),
           hex(c->octets, 64));
  const bool accepted = seen.unit == "sctp.control" &&
                        seen.numbers.at("function") == static_cast<std::uint64_t>(sctp::FunctionCode::kAccept);
  if (!accepted) {
    StepOutcome o = mismatch(Failure::Kind::kHandshake,
                             "handshake: expected a Session Accept to a valid Initiate, got " +
                                 (seen.unit == "sctp.control" ? "Session " + function_word(seen.numbers.at("function"))
                                  : seen.unit == "malformed"  ? "a malformed chunk: " + seen.problem
                                                              : seen.unit),
                             seen.unit);
    o.failure.received.assign(c->octets.begin(), c->octets.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(c->octets.size(), 256)));
    o.failure.received_length = c->octets.size();
    return o;
  }
  // The IUT's advertisement (the test ULP profile) in the Accept's private data (§5.2.3).
  for (const auto& [name, v] : parse_advertisement(seen.private_data)) s.vars[name] = v;
  s.phase = Phase::kFull;
  return {};
}

StepOutcome sctp_ddp_send(Session& s, const Step& st, const std::vector<std::uint8_t>& segment, std::string headline,
                          std::string detail) {
  SctpPhase& p = *s.sctp;
  SctpChunk chunk;
  chunk.stream = kDdpStream;
  chunk.ppid = sctp::kPpidDdpSegment;
  std::uint16_t& next = p.next_ssn[kDdpStream];
  sctp::SegmentChunkFields fields;
  fields.ddp_ssn = next;
  fields.ddp_segment = wire::Chunks(wire::Bytes(segment));
  sctp::encode_segment_chunk(fields, chunk.octets);
  next = static_cast<std::uint16_t>(next + 1);
  s.record(true, std::move(headline) + ", DDP-SSN " + std::to_string(fields.ddp_ssn) + chunk_note(chunk), std::move(detail));
  s.sent(st, segment);
  std::string why;
  if (p.ended || !send_chunk_recorded(s, chunk, why))
    return mismatch(Failure::Kind::kClosed,
                    "the IUT ended the session before the tester could send " + st.unit + (why.empty() ? "" : ": " + why),
                    "close");
  return {};
}

StepOutcome sctp_ddp_fin(Session& s, const Step& st) {
  SctpPhase& p = *s.sctp;
  s.sent(st, {});
  std::string why;
  // The DDP stream's orderly end over SCTP (RFC 5043 §6.2): the tester's
  // Session Terminate, which needs none back.
  if (!p.ended && !send_control(s, sctp::FunctionCode::kTerminate, {}, why))
    return mismatch(Failure::Kind::kClosed, "the tester could not send its Session Terminate: " + why, "close");
  p.ended = true;
  return {};
}

Session::Event sctp_next_event(Session& s, Clock::time_point deadline) {
  SctpPhase& p = *s.sctp;
  using Event = Session::Event;
  using EventKind = Session::EventKind;
  if (s.eof) return Event{EventKind::kClosed, {}};
  const auto c = next_in_order(s, deadline);
  if (!c) {
    // The session ended, and nothing of it is left to read: the stream is closed.
    if (p.side->closed() || p.ended) {
      s.eof = true;
      return Event{EventKind::kClosed, {}};
    }
    return Event{EventKind::kTimeout, {}};
  }
  auto m = sctp::decode_message(c->ppid, c->octets);
  if (m && m->kind == sctp::MessageKind::kSegment && c->stream == kDdpStream) {
    Received u = ddp_unit(std::vector<std::uint8_t>(m->ddp_segment.begin(), m->ddp_segment.end()));
    s.record(false,
             "<-- " + u.name + ", DDP Segment Chunk, DDP-SSN " + std::to_string(m->ddp_ssn) + ", " +
                 std::to_string(m->ddp_segment.size()) + " octets" + chunk_note(*c),
             describe_blocks(u.segment.blocks, u.segment.octets, u.payload_at));
    return Event{EventKind::kUnit, std::move(u)};
  }
  if (m && m->kind == sctp::MessageKind::kControl && m->function == sctp::FunctionCode::kTerminate &&
      c->stream == kDdpStream) {
    // RFC 5043 §6.2, §11.3: the IUT ended the DDP Stream Session.
    s.record(false, "<-- Session Terminate, DDP-SSN " + std::to_string(m->ddp_ssn) + chunk_note(*c), hex(c->octets, 64));
    p.ended = true;
    s.eof = true;
    return Event{EventKind::kClosed, {}};
  }
  Received u;
  u.kind = Received::Kind::kMalformed;
  u.name = "malformed";
  u.octets = c->octets;
  u.problem = !m ? "a malformed chunk: " + m.error().to_string()
              : c->stream != kDdpStream
                  ? "a chunk on stream " + std::to_string(c->stream) + ", not the session's stream " + std::to_string(kDdpStream)
                  : "Session " + function_word(static_cast<std::uint64_t>(m->function)) +
                        " on an established session (RFC 5043 §6.2)";
  s.record(false, "<-- " + u.problem + chunk_note(*c), hex(c->octets, 64));
  return Event{EventKind::kUnit, std::move(u)};
}

bool sctp_unit_known(std::string_view unit, bool sending) {
  const auto& units = sending ? std::span<const std::string_view>(kSendUnits) : std::span<const std::string_view>(kExpectUnits);
  return std::find(units.begin(), units.end(), unit) != units.end();
}

bool sctp_field_known(std::string_view unit, std::string_view field, bool sending) {
  if (unit == "sctp.init") return field == "indication" || field == "streams" || field == "acks";
  if (unit == "sctp.ack") return false;
  if (unit == "sctp.association")
    return field == "indication" || field == "indication_present" || field == "outbound_streams" ||
           field == "inbound_streams" || field == "equal_streams";
  if (std::find(std::begin(kChunkFields), std::end(kChunkFields), field) != std::end(kChunkFields)) return true;
  if (unit == "sctp.control")
    return field == "function" || (sending ? field == "pd" : (field == "pd_len" || field == "private_data"));
  if (unit == "sctp.segment") return sending ? field == "segment" : field == "length";
  return false;
}

}  // namespace rdmaconf::conformance::runner
