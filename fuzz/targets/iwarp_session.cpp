// A whole iWARP connection end as the reference endpoint composes it, minus
// the socket: MPA negotiation (either role) -> FPDU deframer -> RDMAP stream,
// and back: RDMAP stream -> FPDU framer. The peer's octets come from the
// input, in the fuzzer's reads.
//
// Input: 8 octets of negotiation setup (common/negotiation_input.hpp),
// 3 octets of RDMAP stream configuration (common/rdmap_side.hpp), one octet
// saying which operations we post once in full operation (Send, RDMA Read,
// RDMA Write, Atomic), octet k = number of read cuts (mod 16) and k cuts, then
// the peer's octets: its Request or Reply, then FPDUs. The FPDU-stream
// mutator keeps the Request/Reply and re-frames the FPDUs with the Markers
// and CRC that the negotiation agreed on, so mutation reaches RDMAP.
// Properties:
//  - full operation uses the deframer and framer configuration the outcome
//    says; a deframing error becomes a Terminate with layer LLP;
//  - peer-to-peer (RFC 6581 §9.2), as the endpoint does it: an initiator's
//    first FPDU is the RTR the Reply chose; a responder sends nothing but a
//    Terminate before that RTR arrived, and a first FPDU that is not it ends
//    the stream with "no matching RTR" (LLP error code 0x07);
//  - every FPDU we send deframes, with the peer's view of Markers and CRC,
//    to exactly the segment the stream produced (what we send, a peer
//    accepts), and every segment passes RdmapSide's checks;
//  - no octet outside registered and posted memory is touched.
#include <cstdint>
#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "common/input.hpp"
#include "common/mutators.hpp"
#include "common/negotiation_input.hpp"
#include "common/rdmap_side.hpp"
#include "mpa/deframer.hpp"
#include "mpa/framer.hpp"
#include "mpa/negotiation.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "rdmap/rtr.hpp"
#include "wire/ring.hpp"

using namespace rdmaconf;

namespace {

struct Setup {
  fuzz::NegotiationInput negotiation;
  rdmap::StreamConfig stream;
  std::uint8_t posts = 0;
  fuzz::Bytes cuts;
  std::size_t prefix = 0;  // octets before the peer's stream
};

Setup parse(fuzz::FuzzInput& in) {
  Setup s;
  s.negotiation = fuzz::parse_negotiation(in);
  const std::uint8_t a = in.u8(), b = in.u8(), c = in.u8();
  s.stream = fuzz::stream_config(a, b, c);
  s.posts = in.u8();
  s.cuts = in.take(in.u8() % 16);
  s.prefix = in.position();
  return s;
}

// Accepts or rejects as the setup says, once the Request is in.
void decide(mpa::Negotiation& n, const fuzz::NegotiationInput& setup) {
  if (n.state() != mpa::NegotiationState::kRequestReceived) return;
  static constexpr std::uint8_t kOther[] = {'o', 'k'};
  if (setup.reject) n.reject(kOther);
  else if (setup.accept_with_data) n.accept(kOther);
  else n.accept();
}

// The RDMAP opcode of one DDP segment we produced.
rdmap::Opcode opcode_of(fuzz::Bytes segment) {
  FUZZ_CHECK(segment.size() >= ddp::kControlSize);
  const ddp::Control ctl = ddp::Control::from_octets(segment[0], segment[1]);
  return static_cast<rdmap::Opcode>(rdmap::Control::from_octet(ctl.rsvd_ulp).opcode);
}

// Whether a ULPDU that arrived in pieces holds exactly `octets`.
bool same_octets(const wire::Chunks& ulpdu, fuzz::Bytes octets) {
  if (ulpdu.size() != octets.size()) return false;
  std::size_t at = 0;
  bool same = true;
  ulpdu.for_each([&](wire::Bytes piece) {
    same = same && std::equal(piece.begin(), piece.end(), octets.begin() + static_cast<std::ptrdiff_t>(at));
    at += piece.size();
  });
  return same;
}

// Our side in full operation.
class FullOperation {
 public:
  FullOperation(const mpa::NegotiationOutcome& o, const rdmap::StreamConfig& sc)
      : side_(sc),
        deframer_(mpa::DeframerConfig{o.markers_receive, o.crc, 0xffff, 0, true}),
        framer_(mpa::FramerConfig{o.markers_send, o.crc, 0}),
        mirror_(mpa::DeframerConfig{o.markers_send, o.crc, 0xffff, 0, true}),
        rtr_to_send_(o.rtr_to_send),
        rtr_to_expect_(o.rtr_to_expect) {
    for (int i = 0; i < 4; ++i) side_.post_receive(128);
  }

  fuzz::RdmapSide& side() { return side_; }

  // Entering full operation (RFC 6581 §5): the initiator's RTR goes first; a
  // responder that awaits one holds its own work until it arrived.
  void start(std::uint8_t posts) {
    if (rtr_to_send_ != mpa::RtrKind::kNone) {
      FUZZ_CHECK(rdmap::post_rtr(side_.stream(), rtr_to_send_, side_.next_wr()).ok());
      flush();
    }
    if (!rtr_to_expect_.empty()) held_posts_ = posts;
    else post(posts);
  }

  void post(std::uint8_t posts) {
    rdmap::Stream& s = side_.stream();
    static constexpr std::uint8_t kHello[] = {'h', 'e', 'l', 'l', 'o'};
    if (posts & 1) (void)s.post_send(side_.next_wr(), wire::Chunks(wire::Bytes(kHello)));
    if (posts & 2) {
      rdmap::ReadRequest rr{side_.stag(1), side_.base_to(1), 32, ddp::Stag{static_cast<std::uint32_t>(posts) << 8}, 0};
      (void)s.post_read(side_.next_wr(), rr);
    }
    if (posts & 4)
      (void)s.post_write(side_.next_wr(), wire::Chunks(wire::Bytes(kHello)), ddp::Stag{0x100}, 0);
    if (posts & 8) {
      rdmap::AtomicRequest a;
      a.remote_stag = ddp::Stag{0x100};
      (void)s.post_atomic(side_.next_wr(), a);
    }
    flush();
  }

  // Received octets of full operation.
  void receive(fuzz::Bytes octets) {
    if (failed_) return;
    if (start_ > 0) {
      buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(start_));
      start_ = 0;
    }
    buffer_.insert(buffer_.end(), octets.begin(), octets.end());
    for (;;) {
      mpa::DeframeResult r = deframer_.next(wire::Bytes(buffer_).subspan(start_));
      if (std::holds_alternative<mpa::NeedMore>(r)) break;
      if (auto* e = std::get_if<mpa::DeframeError>(&r)) {
        // RFC 5044 §8 / RFC 5040 §4.8: the LLP's error goes out in a Terminate.
        side_.stream().report_llp_error(e->terminate_code);
        failed_ = true;
        flush();
        FUZZ_CHECK(side_.stream().state() != rdmap::StreamState::kOperational);
        return;
      }
      const mpa::Fpdu& f = std::get<mpa::Fpdu>(r);
      if (held_posts_ && !rdmap::is_rtr(rtr_to_expect_, f.ulpdu())) {
        side_.stream().report_llp_error(mpa::LlpErrorCode::kNoMatchingRtr);
        failed_ = true;
        flush();
        FUZZ_CHECK(side_.stream().terminate_sent().has_value());
        return;
      }
      side_.stream().on_segment(f.ulpdu());
      start_ += f.consumed;
      // Once the RTR is in, the responder's own work may go.
      const std::optional<std::uint8_t> released = std::exchange(held_posts_, std::nullopt);
      flush();
      if (released) post(*released);
    }
  }

  // Frames what the stream sends and deframes it as the peer would.
  void flush() {
    while (auto seg = side_.take_outgoing()) {
      if (sent_ == 0 && rtr_to_send_ != mpa::RtrKind::kNone)
        FUZZ_CHECK(rdmap::is_rtr(rtr_to_send_, wire::Chunks(*seg)));
      if (held_posts_) FUZZ_CHECK(opcode_of(*seg) == rdmap::Opcode::kTerminate);
      ++sent_;
      framer_.frame(*seg, mirror_buffer_);  // appends the FPDU
      expected_.insert(expected_.end(), seg->begin(), seg->end());
      expected_sizes_.push_back(seg->size());
      for (;;) {
        mpa::DeframeResult r = mirror_.next(mirror_buffer_);
        if (std::holds_alternative<mpa::NeedMore>(r)) break;
        FUZZ_CHECK(std::holds_alternative<mpa::Fpdu>(r));
        const mpa::Fpdu& f = std::get<mpa::Fpdu>(r);
        FUZZ_CHECK(!expected_sizes_.empty());
        const std::size_t n = expected_sizes_.take_front();
        FUZZ_CHECK(same_octets(f.ulpdu(), fuzz::Bytes(expected_).subspan(expected_start_, n)));
        expected_start_ += n;
        mirror_buffer_.erase(mirror_buffer_.begin(), mirror_buffer_.begin() + static_cast<std::ptrdiff_t>(f.consumed));
      }
      if (expected_sizes_.empty()) {
        expected_.clear();
        expected_start_ = 0;
      }
    }
    side_.drain_completions();
  }

  void finish() {
    FUZZ_CHECK(expected_sizes_.empty() && mirror_buffer_.empty());
    side_.stream().close();
    side_.drain_completions();
  }

 private:
  fuzz::RdmapSide side_;
  mpa::Deframer deframer_;
  mpa::Framer framer_;
  mpa::Deframer mirror_;
  std::vector<std::uint8_t> buffer_;  // unconsumed from start_ on
  std::size_t start_ = 0;
  std::vector<std::uint8_t> mirror_buffer_;
  // The segments framed and not yet deframed by the mirror, one after
  // another from expected_start_ on, and their sizes.
  std::vector<std::uint8_t> expected_;
  std::size_t expected_start_ = 0;
  wire::Ring<std::size_t> expected_sizes_;
  bool failed_ = false;
  mpa::RtrKind rtr_to_send_;
  mpa::RtrKinds rtr_to_expect_;
  std::optional<std::uint8_t> held_posts_;  // set while awaiting the peer's RTR
  std::size_t sent_ = 0;                     // segments sent so far
};

fuzz::FpduLayout fpdu_layout(fuzz::Bytes input) {
  fuzz::FuzzInput in(input);
  const Setup s = parse(in);
  fuzz::FpduLayout l{s.prefix, mpa::FramerConfig{false, true, 0}};
  const fuzz::Bytes peer = input.subspan(std::min(s.prefix, input.size()));
  auto need = mpa::required_frame_size(peer);
  if (!need || *need > peer.size()) return l;
  mpa::Negotiation n(s.negotiation.config);
  n.receive(peer.first(*need));
  decide(n, s.negotiation);
  l.prefix += *need;
  if (n.outcome()) l.framing = mpa::FramerConfig{n.outcome()->markers_receive, n.outcome()->crc, 0};
  return l;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const Setup setup = parse(in);
  const fuzz::Bytes peer = in.rest();

  mpa::Negotiation n(setup.negotiation.config);
  n.output_sent(n.pending_output().size());
  std::unique_ptr<FullOperation> full;
  fuzz::for_each_read(peer, setup.cuts, [&](fuzz::Bytes read) {
    if (!full && n.state() != mpa::NegotiationState::kFailed) {
      const std::size_t used = n.receive(read);
      decide(n, setup.negotiation);
      n.output_sent(n.pending_output().size());
      read = read.subspan(used);
      if (n.state() == mpa::NegotiationState::kFullOperation) {
        full = std::make_unique<FullOperation>(*n.outcome(), setup.stream);
        full->start(setup.posts);
      }
    }
    if (full) full->receive(read);
  });
  if (n.state() == mpa::NegotiationState::kFailed && n.failure()->action == mpa::FailureAction::kSendTerminateThenClose) {
    // RFC 6581 §10: the Terminate after the Reply, through a stream as the
    // endpoint does it.
    FUZZ_CHECK(!full);
    fuzz::RdmapSide side(setup.stream);
    side.stream().report_llp_error(*n.failure()->terminate_code);
    while (side.take_outgoing()) {
    }
    FUZZ_CHECK(side.stream().terminate_sent().has_value());
  }
  if (full) full->finish();
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  if (seed & 1) return LLVMFuzzerMutate(data, size, max_size);
  return fuzz::mutate_fpdu_stream(data, size, max_size, seed >> 1, fpdu_layout);
}
