// MPA connection setup (RFC 5044 §7.1.2, RFC 6581) as the sans-IO state
// machine of either role, fed the peer's octets in the fuzzer's reads.
//
// Input: 8 octets of configuration and ULP decisions (negotiation_input.hpp),
// then octet k = number of read cuts (mod 16) and k cut octets, then the
// octets the peer sends. Properties:
//  - receive() never claims more octets than it was given, and octets after
//    the peer's frame are left for full operation;
//  - every frame we send (Request, Reply, Reject) decodes with our own
//    decoder as the frame it must be, and a Reject has R set;
//  - the end state is consistent: full operation has an outcome whose Marker
//    and CRC choice follow RFC 5044 §7.1.2, a failure has a reason and an
//    action, and the timer only runs while a frame is awaited.
#include <cstdint>

#include "common/input.hpp"
#include "common/negotiation_input.hpp"
#include "mpa/negotiation.hpp"
#include "mpa/req_rep.hpp"

using namespace rdmaconf;

namespace {

// Sends what is pending (in pieces) and checks it is a frame our decoder
// accepts as the one this role sends.
void send_pending(mpa::Negotiation& n, std::size_t granularity) {
  const wire::Bytes out = n.pending_output();
  if (out.empty()) return;
  const mpa::FrameKind kind = n.role() == mpa::Role::kInitiator ? mpa::FrameKind::kRequest : mpa::FrameKind::kReply;
  auto frame = mpa::decode_req_rep(out, {kind, true});
  FUZZ_CHECK(frame.ok());
  FUZZ_CHECK(frame->frame_size == out.size());
  if (n.state() == mpa::NegotiationState::kFailed && n.failure()->action == mpa::FailureAction::kSendRejectThenClose)
    FUZZ_CHECK(frame->reject);
  if (n.state() == mpa::NegotiationState::kFullOperation) FUZZ_CHECK(!frame->reject);
  std::size_t left = out.size();
  while (left > 0) {
    const std::size_t piece = granularity == 0 ? left : std::min<std::size_t>(left, granularity);
    n.output_sent(piece);
    left -= piece;
  }
  FUZZ_CHECK(n.pending_output().empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const fuzz::NegotiationInput setup = fuzz::parse_negotiation(in);
  const fuzz::Bytes cuts = in.take(in.u8() % 16);
  const fuzz::Bytes peer = in.rest();

  mpa::Negotiation n(setup.config);
  FUZZ_CHECK(n.role() == setup.config.role);
  send_pending(n, setup.send_granularity);
  std::size_t leftover = 0;
  fuzz::for_each_read(peer, cuts, [&](fuzz::Bytes read) {
    const mpa::NegotiationState before = n.state();
    if (before == mpa::NegotiationState::kFullOperation || before == mpa::NegotiationState::kFailed) {
      leftover += read.size();  // full operation's octets (or octets after a failure)
      return;
    }
    const std::size_t used = n.receive(read);
    FUZZ_CHECK(used <= read.size());
    if (used < read.size())
      FUZZ_CHECK(n.state() != mpa::NegotiationState::kAwaitReply && n.state() != mpa::NegotiationState::kAwaitRequest);
    leftover += read.size() - used;
    if (n.state() == mpa::NegotiationState::kRequestReceived) {
      FUZZ_CHECK(n.peer_frame().has_value() && n.peer_frame()->kind == mpa::FrameKind::kRequest);
      static constexpr std::uint8_t kOther[] = {'o', 'k'};
      if (setup.reject) n.reject(kOther);
      else if (setup.accept_with_data) n.accept(kOther);
      else n.accept();
      FUZZ_CHECK(n.state() == mpa::NegotiationState::kFullOperation || n.state() == mpa::NegotiationState::kFailed);
    }
    send_pending(n, setup.send_granularity);
  });

  const bool awaiting = n.state() == mpa::NegotiationState::kAwaitReply || n.state() == mpa::NegotiationState::kAwaitRequest;
  FUZZ_CHECK(n.timer_running() == awaiting);
  if (setup.timer_expires && n.timer_running()) {
    n.timer_expired();
    FUZZ_CHECK(n.state() == mpa::NegotiationState::kFailed && n.failure()->kind == mpa::FailureKind::kTimeout);
    send_pending(n, setup.send_granularity);
  }

  switch (n.state()) {
    case mpa::NegotiationState::kFullOperation: {
      FUZZ_CHECK(n.outcome().has_value() && !n.failure().has_value());
      const mpa::NegotiationOutcome& o = *n.outcome();
      // RFC 5044 §7.1.2: M asks for Markers in what its sender receives;
      // CRCs are used when either frame set C.
      FUZZ_CHECK(o.markers_receive == setup.config.want_markers);
      if (setup.config.want_crc) FUZZ_CHECK(o.crc);
      FUZZ_CHECK(o.revision == mpa::kRevision1 || o.revision == mpa::kRevision2);
      if (o.rtr_to_send != mpa::RtrKind::kNone) FUZZ_CHECK(o.role == mpa::Role::kInitiator && o.peer_to_peer);
      if (!o.rtr_to_expect.empty()) FUZZ_CHECK(o.role == mpa::Role::kResponder && o.peer_to_peer);
      FUZZ_CHECK(!mpa::name(o.rtr_to_send).empty());
      break;
    }
    case mpa::NegotiationState::kFailed: {
      FUZZ_CHECK(n.failure().has_value() && !n.outcome().has_value());
      const mpa::NegotiationFailure& f = *n.failure();
      FUZZ_CHECK(!f.reason.empty() && !mpa::name(f.kind).empty() && !mpa::name(f.action).empty());
      if (f.action == mpa::FailureAction::kSendTerminateThenClose) {
        FUZZ_CHECK(f.terminate_code.has_value());
        FUZZ_CHECK(!mpa::name(*f.terminate_code).empty() && !mpa::defined_in(*f.terminate_code).empty());
      }
      if (f.kind == mpa::FailureKind::kMalformedFrame) FUZZ_CHECK(f.decode_error.has_value());
      break;
    }
    default:
      FUZZ_CHECK(!n.outcome().has_value() && !n.failure().has_value());
      FUZZ_CHECK(leftover == 0);
      break;
  }
  FUZZ_CHECK(!mpa::name(n.state()).empty());
  return 0;
}
