// The CLC handshake (RFC 7609 §3, SMC v2 as Linux net/smc runs it) as the
// socket-free machine of either role, fed the peer's messages as a TCP
// stream framed by clc::MessageReader.
//
// Input: one configuration octet (common/clc_configs.hpp: role, SMC option
// seen, versions, IPv6, known link group, timer, release), octet k = number
// of read cuts (mod 16) and k cut octets, then the peer's octets. The CLC
// mutator keeps each message's Length and trailer right.
// Properties:
//  - every message we send decodes with our own decoder, is of the type the
//    role sends at that point (client: Proposal then Confirm or Decline;
//    server: Accept or Decline), and a Decline carries a diagnosis;
//  - the outcome is consistent: SMC has a version and the peer's link
//    values, a fallback names its diagnosis, a failure its reason; once done
//    the machine ignores further messages;
//  - a framing error of the stream is a protocol failure, never a fault.
#include <cstdint>
#include <memory>
#include <optional>
#include <variant>

#include "clc/handshake.hpp"
#include "clc/messages.hpp"
#include "common/clc_configs.hpp"
#include "common/input.hpp"
#include "common/mutators.hpp"

using namespace rdmaconf;

namespace {

void check_sent(const std::vector<std::uint8_t>& octets, bool server, int nth) {
  if (octets.empty()) return;
  auto m = clc::decode(octets);
  FUZZ_CHECK(m.ok());
  const clc::MessageType t = clc::message_type(*m);
  if (t == clc::MessageType::kDecline) {
    FUZZ_CHECK(std::get<clc::Decline>(*m).diagnosis() != 0);
    return;
  }
  if (server) FUZZ_CHECK(t == clc::MessageType::kAccept);
  else FUZZ_CHECK(t == (nth == 0 ? clc::MessageType::kProposal : clc::MessageType::kConfirm));
}

void check_outcome(const clc::Outcome& o) {
  switch (o.kind) {
    case clc::OutcomeKind::kSmc:
      FUZZ_CHECK(o.version == clc::kVersion1 || o.version == clc::kVersion2);
      FUZZ_CHECK(o.peer.has_value() && o.path == clc::SmcType::kR);
      break;
    case clc::OutcomeKind::kFallback:
      FUZZ_CHECK(o.decline_sent != o.decline_received || o.diagnosis != 0);
      if (o.decline_sent) FUZZ_CHECK(o.failed_rule != nullptr || o.diagnosis != 0);
      break;
    case clc::OutcomeKind::kFailed:
      FUZZ_CHECK(o.fail != clc::FailReason::kNone);
      if (o.fail == clc::FailReason::kProtocolError) FUZZ_CHECK(o.error.has_value());
      break;
  }
}

template <typename Machine>
void run(Machine& m, bool server, std::uint8_t bits, fuzz::Bytes cuts, fuzz::Bytes stream) {
  int sent = 0;
  std::optional<clc::Outcome> outcome;
  auto take = [&](clc::Step step) {
    check_sent(step.send, server, sent);
    if (!step.send.empty()) ++sent;
    if (step.outcome) {
      FUZZ_CHECK(!outcome.has_value());
      check_outcome(*step.outcome);
      outcome = step.outcome;
    }
  };
  take(m.start((bits & fuzz::kClcPeerNotCapable) == 0));
  auto reader = std::make_unique<clc::MessageReader>();
  fuzz::for_each_read(stream, cuts, [&](fuzz::Bytes read) {
    while (!read.empty() && !reader->error()) {
      read = read.subspan(reader->put(read));
      if (!reader->has_message()) continue;
      const clc::Step step = m.on_message(reader->message());
      if (outcome) FUZZ_CHECK(step.send.empty() && !step.outcome);  // done: ignored
      take(step);
      reader->next();
    }
  });
  if ((bits & fuzz::kClcTimeoutAtEnd) && !outcome) {
    const clc::Step step = m.on_timeout();
    take(step);
    FUZZ_CHECK(outcome && outcome->kind == clc::OutcomeKind::kFailed && outcome->fail == clc::FailReason::kTimeout);
  }
  if (outcome) FUZZ_CHECK(m.state() == Machine::State::kDone);
}

std::size_t layout(fuzz::Bytes input) {
  fuzz::FuzzInput in(input);
  in.u8();
  in.take(in.u8() % 16);
  return in.position();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const std::uint8_t bits = in.u8();
  const fuzz::Bytes cuts = in.take(in.u8() % 16);
  const fuzz::Bytes stream = in.rest();
  if (bits & fuzz::kClcServerRole) {
    clc::ServerHandshake server(fuzz::clc_server_config(bits));
    run(server, true, bits, cuts, stream);
  } else {
    clc::ClientHandshake client(fuzz::clc_client_config(bits));
    run(client, false, bits, cuts, stream);
  }
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  if (seed & 1) return LLVMFuzzerMutate(data, size, max_size);
  return fuzz::mutate_clc_stream(data, size, max_size, seed >> 1, layout);
}
