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
//
// For the ddp and rdmap suites over SCTP (SctpCaseSetup::ddp) the test ULP
// is the one of the TCP path (responder_internal.hpp, TestUlp): each session
// it accepts gets an rdmap::Stream with the test ULP's memory, the Accept
// carries the advertisement instead of the echo, the stream's segments go
// out one per DDP Segment Chunk with the DDP and RDMAP faults applied as
// over MPA, and once the stream has sent or received a Terminate the
// session ends with a Session Terminate (RFC 5043 §6.2, §11.3).
#include <algorithm>
#include <atomic>
#include <deque>
#include <map>

#include "engine/responder_internal.hpp"
#include "engine/sctp_iut.hpp"
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

// The active side's private data in its Initiate.
constexpr std::uint8_t kHello[] = {'R', 'D', 'M', 'A', 'C', 'O', 'N', 'F'};

// Each session's stream takes its own STag keys, as each TCP connection of
// the reference does (RFC 5042 §6.1.1: no STag of one stream is one of another).
std::atomic<std::uint8_t> g_next_stag_key{0};

// DDP and RDMAP with the test ULP above one accepted session.
struct DdpAbove {
  iut::Memory mem;
  std::unique_ptr<rdmap::Stream> st;
  std::unique_ptr<iut::TestUlp> ulp;
  bool ended = false;  // the session was ended because the stream was
};

}  // namespace

class SctpReferenceIut::Core {
 public:
  Core(FaultSet faults, SctpCaseSetup setup) : f_(faults), iut_active_(setup.iut_active), ddp_(setup.ddp) {}

  bool associate(const SctpInit& init, std::string& error) {
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
    if (iut_->association_up(seen) && iut_active_) (void)iut_->initiate(0, kHello);
    pump();
    return true;
  }

  const SctpPeerInit& peer_init() const { return peer_; }

  bool send(const SctpChunk& chunk, std::string& error) {
    if (!iut_) return error = "no association yet", false;
    iut_->receive(chunk.stream, chunk.ppid, chunk.unordered, chunk.octets);
    // The fault takes any chunk of the peer as SCTP's acknowledgement of
    // everything the IUT sent (RFC 5043 §6.6 asks for real evidence).
    if (f_.has(FaultId::kSctpTerminateOvertakes)) iut_->all_acknowledged();
    pump();
    return true;
  }

  std::optional<SctpChunk> take() {
    pump();
    if (to_tester_.empty()) return std::nullopt;
    SctpChunk c = std::move(to_tester_.front());
    to_tester_.pop_front();
    return c;
  }

  void acknowledge() {
    if (!iut_) return;
    iut_->all_acknowledged();
    pump();
  }

 private:
  // The test ULP's decisions on the Initiates its sessions reported.
  void run_ulp() {
    for (std::uint16_t stream = 0; stream < peer_.outbound_streams; ++stream) {
      sctp::Session* s = iut_->session(stream);
      if (!s) continue;
      while (auto e = s->take_event()) {
        // The session is over: so is the DDP stream above it.
        const bool ended = e->kind == sctp::EventKind::kTerminateReceived || e->kind == sctp::EventKind::kViolation;
        if (auto it = above_.find(stream); ended && it != above_.end()) it->second->st->close();
        if (e->kind != sctp::EventKind::kInitiateReceived || s->state() != sctp::SessionState::kInitiateReceived)
          continue;
        if (begins_with(e->private_data, kSctpUlpHold)) continue;
        if (begins_with(e->private_data, kSctpUlpReject) && !f_.has(FaultId::kSctpNeverRejects))
          (void)s->reject(e->private_data);
        else if (ddp_)
          (void)s->accept(start_ddp(stream));
        else
          (void)s->accept(e->private_data);
      }
    }
  }

  // A session accepted for DDP: its stream, the test ULP's memory
  // registered, and the advertisement the Accept carries.
  std::vector<std::uint8_t> start_ddp(std::uint16_t stream) {
    auto d = std::make_unique<DdpAbove>();
    rdmap::StreamConfig sc;
    // RFC 5043 §9: DDP learns the largest segment the adaptation layer takes.
    sc.mulpdu = kIutMaxSegmentSize;
    sc.faults = f_.stream_faults();
    sc.first_stag_key = g_next_stag_key.fetch_add(iut::kStagKeysPerConnection);
    d->st = std::make_unique<rdmap::Stream>(sc);
    std::vector<std::uint8_t> ad = make_advertisement(iut::register_all(*d->st, d->mem));
    d->ulp = std::make_unique<iut::TestUlp>(f_, *d->st, d->mem, [this, stream] { send_ddp(stream); },
                                            std::function<void(const rdmap::Completion&)>{});
    above_[stream] = std::move(d);
    return ad;
  }

  // What the test ULP's stream sends, one DDP segment per chunk (RFC 5043 §5.2.2).
  void send_ddp(std::uint16_t stream) {
    DdpAbove& d = *above_.at(stream);
    sctp::Session* s = iut_->session(stream);
    for (ddp::Segment& seg : d.ulp->take_segments()) {
      wire::Chunks segment;
      segment.append(seg.header());
      seg.payload.for_each([&](wire::Bytes b) { segment.append(b); });
      if (s) (void)s->send_segment(segment);
    }
  }

  // The peer's DDP segments into each stream, in DDP-SSN order; a stream
  // that sent or received a Terminate ends its session (RFC 5043 §6.2).
  void run_ddp() {
    for (auto& [stream, d] : above_) {
      sctp::Session* s = iut_->session(stream);
      if (!s) continue;
      while (auto seg = s->take_segment()) {
        if (d->st->state() != rdmap::StreamState::kOperational) continue;
        d->st->on_segment(wire::Chunks(wire::Bytes(*seg)));
        d->ulp->on_completions();
        send_ddp(stream);
      }
      send_ddp(stream);
      if (d->st->state() != rdmap::StreamState::kOperational && !d->ended) {
        d->ended = true;
        // Fault (RFC 5040 §6.2): the stream is over, yet its session goes on.
        if (!f_.has(FaultId::kNoCloseAfterTerminate)) s->terminate();
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
      run_ddp();
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
    // Fault (RFC 5043 §6.2): the session ends, yet neither side said so.
    if (control && function == sctp::FunctionCode::kTerminate && f_.has(FaultId::kSctpNoTerminate)) return;
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
    // Fault (RFC 5043 §5.2.1): one count for all streams, where SCTP keeps one per stream.
    if (f_.has(FaultId::kSctpSsnPerAssociation)) ssn = association_ssn_++;
    put_ssn(c.octets, ssn);
    // Faults (RFC 5043 §6.1, §6.2): an answer, or the Terminate that was to
    // be the side's last chunk, sent again.
    const bool again =
        control && (((function == sctp::FunctionCode::kAccept || function == sctp::FunctionCode::kReject) &&
                     f_.has(FaultId::kSctpAnswerTwice)) ||
                    (function == sctp::FunctionCode::kTerminate && f_.has(FaultId::kSctpTerminateTwice)));
    if (again) {
      SctpChunk copy = c;
      put_ssn(copy.octets, ssn + 1);
      ++shift;
      to_tester_.push_back(std::move(c));
      to_tester_.push_back(std::move(copy));
      return;
    }
    to_tester_.push_back(std::move(c));
    // Fault (RFC 5043 §6.6): the ULP's first message (a Send of the Initiate's
    // private data) right behind the Initiate, the next DDP-SSN.
    if (control && function == sctp::FunctionCode::kInitiate && f_.has(FaultId::kSctpSegmentBeforeInitiate)) {
      to_tester_.push_back(early_send(out.stream, ssn + 1));
      ++shift;
    }
  }

  SctpChunk early_send(std::uint16_t stream, int ssn) const {
    using F = ddp::UntaggedSpec::Field;
    ddp::UntaggedHeader h;
    h.set(F::T, 0).set(F::L, 1).set(F::DV, ddp::kDdpVersion);
    h.set(F::RsvdULP, rdmap::Control::octet(rdmap::Opcode::kSend)).set(F::QN, 0).set(F::MSN, 1).set(F::MO, 0);
    std::vector<std::uint8_t> segment(h.bytes().begin(), h.bytes().end());
    segment.insert(segment.end(), std::begin(kHello), std::end(kHello));
    std::vector<std::uint8_t> octets;
    sctp::encode_segment_chunk({.ddp_ssn = static_cast<std::uint16_t>(ssn), .ddp_segment = wire::Chunks(segment)},
                               octets);
    return SctpChunk{stream, sctp::kPpidDdpSegment, !f_.has(FaultId::kSctpOrderedChunks), std::move(octets)};
  }

  FaultSet f_;
  bool iut_active_;
  bool ddp_;
  std::map<std::uint16_t, std::unique_ptr<DdpAbove>> above_;  // by stream, with ddp_
  SctpInit init_;
  SctpPeerInit peer_;
  std::optional<sctp::Association> iut_;
  std::deque<SctpChunk> to_tester_;
  std::map<std::uint16_t, int> shift_;  // what the faults added to the DDP-SSNs of each stream
  int association_ssn_ = 0;             // sctp-ssn-per-association's one count
};

SctpReferenceIut::SctpReferenceIut(FaultSet faults, SctpCaseSetup setup)
    : core_(std::make_unique<Core>(faults, setup)) {}
SctpReferenceIut::~SctpReferenceIut() = default;
bool SctpReferenceIut::associate(const SctpInit& init, std::string& error) { return core_->associate(init, error); }
const SctpPeerInit& SctpReferenceIut::peer_init() const { return core_->peer_init(); }
bool SctpReferenceIut::receive(const SctpChunk& chunk, std::string& error) { return core_->send(chunk, error); }
std::optional<SctpChunk> SctpReferenceIut::take() { return core_->take(); }
void SctpReferenceIut::acknowledge() { core_->acknowledge(); }

namespace {

// The tester's side with the IUT in this process: the tester's SCTP is a
// function call, and quiet is a final answer.
class MemorySide final : public SctpSide {
 public:
  MemorySide(FaultSet faults, SctpCaseSetup setup) : iut_(faults, setup) {}
  bool associate(const SctpInit& init, std::string& error) override { return iut_.associate(init, error); }
  const SctpPeerInit& peer_init() const override { return iut_.peer_init(); }
  bool send(const SctpChunk& chunk, std::string& error) override { return iut_.receive(chunk, error); }
  std::optional<SctpChunk> receive(std::chrono::steady_clock::time_point) override { return iut_.take(); }
  void acknowledge() override { iut_.acknowledge(); }
  bool in_process() const override { return true; }
  bool closed() const override { return false; }

 private:
  SctpReferenceIut iut_;
};

}  // namespace

SctpFactory memory_sctp_factory(FaultSet faults) {
  return [faults](const SctpCaseSetup& setup, std::string&) -> std::unique_ptr<SctpSide> {
    return std::make_unique<MemorySide>(faults, setup);
  };
}

}  // namespace rdmaconf::conformance
