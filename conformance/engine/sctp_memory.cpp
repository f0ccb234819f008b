// The reference IUT over SCTP, in this process (sctp_transport.hpp): one
// association per case whose IUT end is reference/sctp/'s Association, with
// the test ULP's decisions above it, and the SCTP faults of the reference
// acting at its seams: its INIT-ACK, its configuration, and the chunks it
// hands to SCTP.
//
// The test ULP (docs/conformance.md, "The sctp suite"): as passive side it
// accepts every Initiate with the Initiate's private data echoed in its
// Accept, rejects one whose private data begins with RDMACONF-REJECT (the
// Reject echoing it too) and leaves one beginning RDMACONF-HOLD waiting for
// a decision; as active side it opens a session on stream 0 once the
// association is up, with private data RDMACONF.
#include <algorithm>
#include <deque>
#include <map>

#include "engine/sctp_transport.hpp"
#include "sctp/session.hpp"

namespace rdmaconf::conformance {
namespace {

// The IUT's streams: at most this many each way, fewer when the tester asks so.
constexpr std::uint16_t kIutStreams = 16;
constexpr std::size_t kIutPendingLimit = 4;
// The largest DDP segment the reference IUT takes (RFC 5043 §9: at least 516).
constexpr std::size_t kIutMaxSegmentSize = 1024;

bool begins_with(const std::vector<std::uint8_t>& pd, std::string_view prefix) {
  return pd.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), pd.begin());
}

void put_ssn(std::vector<std::uint8_t>& octets, int ssn) {
  if (octets.size() < 2) return;
  octets[0] = static_cast<std::uint8_t>((ssn >> 8) & 0xff);
  octets[1] = static_cast<std::uint8_t>(ssn & 0xff);
}

class MemorySide final : public SctpSide {
 public:
  MemorySide(FaultSet faults, bool iut_active) : f_(faults), iut_active_(iut_active) {}

  bool associate(const SctpInit& init, std::string& error) override {
    if (iut_) return error = "the association is already up", false;
    init_ = init;
    const auto streams = std::min<std::uint16_t>(std::max<std::uint16_t>(init.streams, 1), kIutStreams);
    peer_.outbound_streams = streams;
    // RFC 5043 §8: as many inbound streams as outbound ones.
    peer_.inbound_streams = static_cast<std::uint16_t>(streams + (f_.has(FaultId::kSctpUnequalStreams) ? 1 : 0));
    // RFC 5043 §5.1: the IUT's INIT-ACK (or INIT) announces DDP.
    if (!f_.has(FaultId::kSctpNoIndication)) peer_.indication = sctp::kAdaptationIndicationDdp;
    sctp::AssociationConfig config;
    config.role = iut_active_ ? sctp::Role::kActive : sctp::Role::kPassive;
    config.streams = streams;
    config.pending_limit = f_.has(FaultId::kSctpNoPendingLimit) ? 65535 : kIutPendingLimit;
    config.session.max_segment_size = f_.has(FaultId::kSctpOversizedAccepted) ? (1u << 20) : kIutMaxSegmentSize;
    if (f_.has(FaultId::kSctpSkipSsnValidityCheck)) config.session.reorder_limit = 65536;
    iut_.emplace(config);
    // RFC 5043 §11.1: without the tester's DDP indication the IUT runs no
    // DDP here (the Association drops every chunk); the fault runs it anyway.
    const auto seen = f_.has(FaultId::kSctpSkipIndicationCheck) ? std::optional(sctp::kAdaptationIndicationDdp)
                                                                 : init.indication;
    if (iut_->association_up(seen) && iut_active_) {
      static constexpr std::uint8_t kHello[] = {'R', 'D', 'M', 'A', 'C', 'O', 'N', 'F'};
      (void)iut_->initiate(0, kHello);
    }
    pump();
    return true;
  }

  const SctpPeerInit& peer_init() const override { return peer_; }

  bool send(const SctpChunk& chunk, std::string& error) override {
    if (!iut_) return error = "no association yet", false;
    iut_->receive(chunk.stream, chunk.ppid, chunk.unordered, chunk.octets);
    // The fault takes any chunk of the peer as SCTP's acknowledgement of
    // everything the IUT sent (RFC 5043 §6.6 asks for real evidence).
    if (f_.has(FaultId::kSctpTerminateOvertakes)) iut_->all_acknowledged();
    pump();
    return true;
  }

  std::optional<SctpChunk> receive(std::chrono::steady_clock::time_point) override {
    pump();
    if (to_tester_.empty()) return std::nullopt;  // in process: quiet is final
    SctpChunk c = std::move(to_tester_.front());
    to_tester_.pop_front();
    return c;
  }

  void acknowledge() override {
    if (!iut_) return;
    iut_->all_acknowledged();
    pump();
  }

  bool in_process() const override { return true; }
  bool closed() const override { return false; }

 private:
  // The test ULP's decisions on the Initiates its sessions reported.
  void run_ulp() {
    for (std::uint16_t stream = 0; stream < peer_.outbound_streams; ++stream) {
      sctp::Session* s = iut_->session(stream);
      if (!s) continue;
      while (auto e = s->take_event()) {
        if (e->kind != sctp::EventKind::kInitiateReceived || s->state() != sctp::SessionState::kInitiateReceived)
          continue;
        if (begins_with(e->private_data, kSctpUlpHold)) continue;
        if (begins_with(e->private_data, kSctpUlpReject) && !f_.has(FaultId::kSctpNeverRejects))
          (void)s->reject(e->private_data);
        else
          (void)s->accept(e->private_data);
      }
    }
  }

  // What the IUT hands to SCTP, through the outgoing faults; with the
  // tester's SCTP acknowledging at once unless the case holds its acks.
  void pump() {
    if (!iut_) return;
    for (bool moved = true; moved;) {
      moved = false;
      run_ulp();
      while (auto out = iut_->take_outgoing()) {
        moved = true;
        emit(std::move(*out));
      }
      if (moved && !init_.hold_acks) iut_->all_acknowledged();
    }
  }

  void emit(sctp::OutgoingChunk out) {
    SctpChunk c{out.stream, out.message.ppid, !f_.has(FaultId::kSctpOrderedChunks), std::move(out.message.octets)};
    auto m = sctp::decode_message(c.ppid, c.octets);
    if (!m) {
      to_tester_.push_back(std::move(c));
      return;
    }
    const bool control = m->kind == sctp::MessageKind::kControl;
    const auto function = m->function;
    const sctp::Session* s = iut_->session(out.stream);
    if (control && function == sctp::FunctionCode::kTerminate && s && s->violation() &&
        f_.has(FaultId::kSctpIllegalIgnored))
      return;  // RFC 5043 §6.1 asks for this Terminate
    if (control && function == sctp::FunctionCode::kAccept && f_.has(FaultId::kSctpAcceptNoPrivateData))
      c.octets.resize(sctp::kSessionControlHeaderSize);
    if (control && m->private_data.size() == sctp::kMaxPrivateDataLength && f_.has(FaultId::kSctpPrivateDataOver512))
      c.octets.push_back(0);
    if (control && function == sctp::FunctionCode::kTerminate && f_.has(FaultId::kSctpTerminatePrivateData))
      c.octets.insert(c.octets.end(), {0, 0, 0, 0});
    int& shift = shift_[out.stream];
    if (m->ddp_ssn == 0) shift = 0;  // a new session: its numbering starts again (§6.1)
    int ssn = m->ddp_ssn + shift;
    if (f_.has(FaultId::kSctpSsnGap) && m->ddp_ssn == 1 && shift == 0) ssn = 2, shift = 1;
    put_ssn(c.octets, ssn);
    const bool again = control && (function == sctp::FunctionCode::kAccept || function == sctp::FunctionCode::kReject) &&
                       f_.has(FaultId::kSctpAnswerTwice);
    if (again) {
      SctpChunk copy = c;
      put_ssn(copy.octets, ssn + 1);
      ++shift;
      to_tester_.push_back(std::move(c));
      to_tester_.push_back(std::move(copy));
      return;
    }
    to_tester_.push_back(std::move(c));
  }

  FaultSet f_;
  bool iut_active_;
  SctpInit init_;
  SctpPeerInit peer_;
  std::optional<sctp::Association> iut_;
  std::deque<SctpChunk> to_tester_;
  std::map<std::uint16_t, int> shift_;  // what the faults added to the DDP-SSNs of each stream
};

}  // namespace

SctpFactory memory_sctp_factory(FaultSet faults) {
  return [faults](bool iut_active, std::string&) -> std::unique_ptr<SctpSide> {
    return std::make_unique<MemorySide>(faults, iut_active);
  };
}

}  // namespace rdmaconf::conformance
