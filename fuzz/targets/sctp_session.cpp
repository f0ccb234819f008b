// The DDP Stream Session machine of RFC 5043 §6 and the association around
// it, driven by a script of peer chunks and local actions.
//
// Input: one octet choosing the role (bit 0: passive) and whether the peer
// announced DDP (bit 1 clear) or something else; then steps, each an op
// octet: 0-3 a chunk from the peer on stream (op >> 2) & 1 (a 16-bit length,
// bounded by what is left, a PPID choice and the U flag from the op), 4 accept,
// 5 reject, 6 terminate, 7 send a DDP segment, 8 SCTP's all-acknowledged,
// 9 initiate.
// Properties:
//  - every message the machine hands to SCTP decodes with our own decoder;
//    per session, its DDP-SSNs count up from 0 with no gap (§5.2.1, §6);
//  - no session sends a second Terminate, and none sends anything after it;
//  - a violation always leaves its session terminated; DDP segments handed up
//    exist only in an established session and stay within the maximum size;
//  - without the DDP indication nothing is ever sent.
#include <cstdint>
#include <map>
#include <vector>

#include "common/input.hpp"
#include "sctp/session.hpp"

using namespace rdmaconf;

namespace {

struct Sent {
  std::uint16_t next_ssn = 0;
  bool terminated = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const std::uint8_t setup = in.u8();
  sctp::AssociationConfig config;
  config.role = (setup & 1) != 0 ? sctp::Role::kPassive : sctp::Role::kActive;
  config.streams = 2;
  config.pending_limit = 1;
  config.session.max_segment_size = sctp::kSmallestMaxSegmentSize;
  config.session.reorder_limit = 8;
  sctp::Association association(config);
  const bool ddp = (setup & 2) == 0;
  FUZZ_CHECK(association.association_up(ddp ? std::optional<std::uint32_t>(sctp::kAdaptationIndicationDdp)
                                            : std::nullopt)
                 .ok() == ddp);

  std::map<std::uint16_t, Sent> sent;
  const std::vector<std::uint8_t> segment(24, 0x41);
  for (int steps = 0; steps < 256 && !in.empty(); ++steps) {
    const std::uint8_t op = in.u8();
    const std::uint16_t stream = (op >> 4) & 1;
    sctp::Session* s = association.session(stream);
    switch (op & 0x0f) {
      case 0: case 1: case 2: case 3: {
        const std::uint32_t ppid = (op & 1) != 0 ? sctp::kPpidSessionControl : sctp::kPpidDdpSegment;
        const std::size_t n = in.u16() % 700;
        association.receive(stream, ppid, (op & 2) == 0, in.take(n));
        break;
      }
      case 4: if (s) (void)s->accept({}); break;
      case 5: if (s) (void)s->reject({}); break;
      case 6: if (s) s->terminate(); break;
      case 7: if (s) (void)s->send_segment(wire::Chunks(segment)); break;
      case 8: association.all_acknowledged(); break;
      case 9:
        if (association.initiate(stream, {}).ok()) sent[stream] = Sent{};
        break;
      default: break;
    }
    while (auto out = association.take_outgoing()) {
      FUZZ_CHECK(ddp);
      auto m = sctp::decode_message(out->message.ppid, out->message.octets);
      FUZZ_CHECK(m.ok());
      // A passive session starts when its peer's Initiate came: its first
      // message is DDP-SSN 0 again.
      if (m->ddp_ssn == 0 && m->kind == sctp::MessageKind::kControl) sent[out->stream] = Sent{};
      Sent& mine = sent[out->stream];
      FUZZ_CHECK(!mine.terminated);
      FUZZ_CHECK(m->ddp_ssn == mine.next_ssn);
      ++mine.next_ssn;
      if (m->kind == sctp::MessageKind::kControl && m->function == sctp::FunctionCode::kTerminate)
        mine.terminated = true;
    }
    for (std::uint16_t id = 0; id < 2; ++id) {
      sctp::Session* session = association.session(id);
      if (!session) continue;
      if (session->violation()) FUZZ_CHECK(session->state() == sctp::SessionState::kTerminated);
      while (auto e = session->take_event())
        if (e->kind == sctp::EventKind::kViolation) FUZZ_CHECK(e->violation.has_value());
      while (auto seg = session->take_segment()) {
        FUZZ_CHECK(session->state() == sctp::SessionState::kEstablished);
        FUZZ_CHECK(!seg->empty() && seg->size() <= sctp::kSmallestMaxSegmentSize);
      }
    }
  }
  return 0;
}
