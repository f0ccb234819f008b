// judge_in_passing (in_passing.hpp).
#include "engine/in_passing.hpp"

#include <algorithm>
#include <map>

#include "analysis/observer.hpp"
#include "analysis/observer_sctp.hpp"

namespace rdmaconf::conformance {
namespace {

using analysis::Side;

// The observer's answers for one exchange: the IUT's violations, and where
// each message the IUT sent starts and ends in its stream (to cut out the
// offending octets once the exchange is over).
struct Sink : analysis::ObserverSink {
  explicit Sink(Side iut) : iut(iut) {}
  void on_message(const analysis::Message& m) override {
    if (m.side == iut) messages[m.stream_offset] = m.octets;
  }
  void on_violation(const analysis::Violation& v) override {
    if (v.side != iut || !v.rule) return;
    for (InPassing& p : broken)
      if (p.rule == v.rule->id && p.mistake == v.hint_mistake) {
        ++p.count;
        if (p.offsets.size() < 64) p.offsets.push_back(v.stream_offset);
        return;
      }
    InPassing p;
    p.rule = std::string(v.rule->id);
    p.level = std::string(analysis::name(v.rule->level));
    p.section = std::string(v.rule->section);
    p.summary = std::string(v.rule->summary);
    p.text = v.text;
    p.mistake = std::string(v.hint_mistake);
    p.hint = v.hint;
    p.stream_offset = v.stream_offset;
    p.offsets.push_back(v.stream_offset);
    broken.push_back(std::move(p));
  }
  Side iut;
  std::vector<InPassing> broken;
  std::map<std::uint64_t, std::size_t> messages;  // stream offset -> octets on the wire
};

constexpr std::size_t kMaxOctets = 256;

}  // namespace

std::vector<InPassing> judge_in_passing(const ExchangeRecord& exchange, Role role) {
  // The side that opened the connection is the observer's initiator: the
  // tester when the IUT is the responder.
  const Side tester = role == Role::kResponder ? Side::kInitiator : Side::kResponder;
  const Side iut = analysis::other(tester);
  Sink sink(iut);
  std::vector<std::uint8_t> iut_stream;
  {
    analysis::ObserverConfig config;
    analysis::ConnectionObserver observer(sink, config);
    // No on_syn: a socket does not see the SYNs' TCP options, so the SMC
    // option rule (RFC 7609 §3.1) is not judged; the streams start at
    // their first octet all the same, and CLC is recognised by content.
    analysis::FrameNo frame = 0;
    for (const StreamChunk& ch : exchange.chunks) {
      const Side side = ch.from_tester ? tester : iut;
      if (side == iut) iut_stream.insert(iut_stream.end(), ch.octets.begin(), ch.octets.end());
      observer.on_data(side, ++frame, ch.octets);
    }
    observer.on_end(Side::kInitiator);
    observer.on_end(Side::kResponder);
  }
  for (InPassing& p : sink.broken) {
    // The message that holds the offending offset.
    auto it = sink.messages.upper_bound(p.stream_offset);
    if (it == sink.messages.begin()) continue;
    --it;
    const std::uint64_t start = it->first, end = start + it->second;
    if (p.stream_offset >= end || start >= iut_stream.size()) continue;
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>({end, iut_stream.size(), start + kMaxOctets}) - start);
    p.octets.assign(iut_stream.begin() + static_cast<std::ptrdiff_t>(start),
                    iut_stream.begin() + static_cast<std::ptrdiff_t>(start + n));
  }
  return std::move(sink.broken);
}

std::vector<InPassing> judge_in_passing(const SctpExchange& association, Role role) {
  const Side tester = role == Role::kResponder ? Side::kInitiator : Side::kResponder;
  const Side iut = analysis::other(tester);
  Sink sink(iut);
  {
    analysis::SctpObserver observer(sink);
    analysis::FrameNo frame = 0;
    for (const SctpPacket& p : sctp_packets(association))
      observer.on_packet(p.from_tester ? tester : iut, ++frame, p.octets);
  }
  return std::move(sink.broken);
}

Verdict in_passing_verdict(const std::vector<InPassing>& broken, bool strict) {
  Verdict v = Verdict::kPass;
  for (const InPassing& p : broken) {
    if (p.level == "MUST") return Verdict::kFail;
    if (p.level == "SHOULD") v = strict ? Verdict::kFail : Verdict::kNonStrict;
    else if (v == Verdict::kPass) v = Verdict::kInformational;
  }
  return v;
}

}  // namespace rdmaconf::conformance
