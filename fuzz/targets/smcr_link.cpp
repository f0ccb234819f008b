// SMC-R's link layer over RoCEv2 (reference/smcr, RFC 7609 App. A.3/A.4 and
// the SMC v2 LLC types Linux sends) and the RoCEv2 observer that follows it
// in captures (pcap/analysis/observer_roce.hpp).
//
// Input: one mode octet, then
//  - mode 0: one RoCEv2 UDP payload (BTH, extended headers, payload, ICRC);
//  - mode 1: the payload of one RC Send (an LLC or CDC message);
//  - mode 2: packets for the observer, each a side octet, a 2-octet length
//    and that many octets, until the input ends;
//  - mode 3: the link group's CLC ties, then packets as in mode 2: one octet
//    n (0-3), n connections of two ends each (token, QP, rkey, RMB address,
//    RMBE index, size code: small ranges, so that packets meet them), then
//    packets whose side octet's bit 1 asks for a retransmitted copy.
// Properties:
//  - decode_roce: the payload lies inside the input, after the BTH and the
//    extended headers the opcode's row names, and ends PadCnt + 4 octets
//    before the input does;
//  - decode_send: an LLC message has Length octets, its body and entries lie
//    inside them (entries count x entry size), its version is 2 exactly when
//    its type's high nibble is 2, Length is 44 in version 1 and 44..8192 in
//    version 2; a CDC message is 0xFE, 44; describe and summarize print;
//  - the observer says one Message per packet, counts every packet once,
//    counts no more new LLC/CDC messages, retransmissions and violations
//    than packets, names at most one added link per packet (the analyzer
//    routes a further link's address pair by it; this input has no
//    addresses, so an aliased link is to the observer a link on the same
//    pair), and gives the same counts when fed the same packets again;
//  - the link-group observer (mode 3) reports only rules of check/smcr.hpp,
//    at most eight per packet (a CDC message can break every CDC rule and
//    flow on a link not up), and the same violations, at the same packets,
//    with the same new-message counts, when request packets are followed by
//    retransmitted copies: RC retransmission is to RoCE what a different
//    segmentation is to the TCP observer, and must not change a verdict.
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/observer_roce.hpp"
#include "common/input.hpp"
#include "smcr/messages.hpp"
#include "smcr/roce.hpp"

using namespace rdmaconf;

namespace {

bool inside(fuzz::Bytes part, fuzz::Bytes whole) {
  return part.empty() || (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

void check_roce(fuzz::Bytes octets) {
  auto p = smcr::decode_roce(octets);
  if (!p) {
    FUZZ_CHECK(p.error().offset <= octets.size());
    return;
  }
  FUZZ_CHECK(octets.size() >= smcr::Bth::kSize + smcr::kIcrcSize);
  FUZZ_CHECK(inside(p->payload, octets));
  std::size_t headers = smcr::Bth::kSize;
  if (p->info) headers += (p->reth ? smcr::Reth::kSize : 0) + (p->aeth ? smcr::Aeth::kSize : 0) + p->info->other_octets;
  FUZZ_CHECK(p->info == nullptr || p->reth.has_value() == p->info->reth);
  FUZZ_CHECK(p->info == nullptr || p->aeth.has_value() == p->info->aeth);
  const std::size_t pad = p->bth.get(smcr::BthSpec::Field::PadCnt);
  FUZZ_CHECK(headers + p->payload.size() + pad + smcr::kIcrcSize == octets.size());
  if (!p->payload.empty()) FUZZ_CHECK(p->payload.data() == octets.data() + headers);
}

void check_send(fuzz::Bytes octets) {
  auto m = smcr::decode_send(octets);
  if (!m) {
    FUZZ_CHECK(!m.error().field.empty() && !m.error().rule.empty());
    return;
  }
  (void)smcr::describe(*m);
  (void)smcr::summarize(*m);
  if (const auto* c = std::get_if<smcr::CdcMessage>(&*m)) {
    FUZZ_CHECK(octets.size() >= smcr::kCdcMessageSize && octets[0] == smcr::kCdcType && octets[1] == 44);
    FUZZ_CHECK(c->surplus == octets.size() - smcr::kCdcMessageSize);
    return;
  }
  const smcr::LlcMessage& l = std::get<smcr::LlcMessage>(*m);
  FUZZ_CHECK(l.info != nullptr && l.info->type == octets[0]);
  FUZZ_CHECK(l.octets.size() == l.length && l.length + l.surplus == octets.size());
  FUZZ_CHECK(inside(l.octets, octets) && inside(l.body, l.octets) && inside(l.entry_octets, l.octets));
  FUZZ_CHECK(l.body.size() == l.info->body->size_octets);
  FUZZ_CHECK((l.version == 2) == ((octets[0] & 0xF0) == 0x20));
  if (l.version == 1) FUZZ_CHECK(l.length == smcr::kLlcMessageSize);
  else FUZZ_CHECK(l.length >= smcr::kLlcMessageSize && l.length <= 8192);
  const std::size_t entry = l.info->entries == smcr::LlcEntries::kDeleteRkeyV2Rkeys ? 4 : 16;
  FUZZ_CHECK(l.entry_octets.size() == l.entry_count * entry);
  FUZZ_CHECK(l.base_type() >= 1 && l.base_type() <= 9);
}

struct CountingSink : analysis::ObserverSink {
  void on_message(const analysis::Message& m) override {
    ++messages;
    FUZZ_CHECK(m.kind == analysis::MessageKind::kRoce && m.roce != nullptr);
    FUZZ_CHECK(m.roce->packet != nullptr || m.roce->error != nullptr);
  }
  void on_violation(const analysis::Violation&) override { ++violations; }
  std::uint64_t messages = 0, violations = 0;
};

analysis::RoceStats observe(fuzz::Bytes octets, std::uint64_t& packets, CountingSink& sink) {
  analysis::RoceObserver obs(sink);
  fuzz::FuzzInput in(octets);
  packets = 0;
  while (!in.empty()) {
    const auto side = (in.u8() & 1) ? analysis::Side::kResponder : analysis::Side::kInitiator;
    const fuzz::Bytes packet = in.take(in.u16());
    obs.on_packet(side, packets + 1, packet);
    // The links an accepted ADD LINK completed (the analyzer routes their
    // addresses to this observer): one reply completes at most one.
    FUZZ_CHECK(obs.added_links().size() <= 1);
    ++packets;
  }
  return obs.stats();
}

void check_observer(fuzz::Bytes octets) {
  CountingSink a, b;
  std::uint64_t packets = 0, again = 0;
  const analysis::RoceStats s = observe(octets, packets, a);
  const analysis::RoceStats t = observe(octets, again, b);
  // Without CLC no connection is known: only the LLC pairing rule can fire,
  // at most once per packet, and the same way on both runs.
  FUZZ_CHECK(s.packets == packets && a.messages == packets && a.violations <= packets);
  FUZZ_CHECK(b.violations == a.violations);
  std::uint64_t llc = 0;
  for (const auto& [name, n] : s.llc_messages) llc += n;
  FUZZ_CHECK(llc + s.cdc_messages + s.undecoded <= packets);
  FUZZ_CHECK(s.retransmissions <= packets && s.rdma_writes <= packets);
  FUZZ_CHECK(t.packets == s.packets && t.retransmissions == s.retransmissions && t.cdc_messages == s.cdc_messages &&
             t.llc_messages == s.llc_messages && t.rdma_writes == s.rdma_writes && t.opcodes == s.opcodes);
}

struct RecordingSink : analysis::ObserverSink {
  void on_message(const analysis::Message&) override {}
  void on_violation(const analysis::Violation& v) override { seen.emplace_back(v.rule->id, v.frame); }
  std::vector<std::pair<std::string_view, std::uint64_t>> seen;
};

analysis::ClcRmbe end_from(fuzz::FuzzInput& in) {
  analysis::ClcRmbe e;
  e.alert_token = in.u8();
  e.qp_number = in.u8();
  e.rmb_rkey = in.u8();
  e.rmb_virtual_address = static_cast<std::uint64_t>(in.u16()) << 12;
  e.rmbe_index = in.u8() % 4;
  e.rmbe_size = std::uint64_t{16384} << (in.u8() % 3);
  return e;
}

void check_link_group(fuzz::Bytes octets) {
  fuzz::FuzzInput in(octets);
  std::vector<std::pair<analysis::ClcRmbe, analysis::ClcRmbe>> ties;
  for (int n = in.u8() % 4; n > 0; --n) {
    analysis::ClcRmbe a = end_from(in);
    ties.emplace_back(a, end_from(in));
  }
  struct Packet {
    analysis::Side side;
    bool copy;
    fuzz::Bytes octets;
  };
  std::vector<Packet> packets;
  while (!in.empty()) {
    const std::uint8_t flags = in.u8();
    const auto side = (flags & 1) ? analysis::Side::kResponder : analysis::Side::kInitiator;
    packets.push_back({side, (flags & 2) != 0, in.take(in.u16())});
  }
  RecordingSink plain_sink, copies_sink;
  analysis::RoceObserver plain(plain_sink), copies(copies_sink);
  for (const auto& [a, b] : ties) {
    plain.add_connection(a, b);
    copies.add_connection(a, b);
  }
  // What adding the CLC ties reported: an RMBE named again while its
  // connection is open (the ties carry no frame, so neither do these).
  const std::size_t from_clc = plain_sink.seen.size();
  // Frame numbers name the packet, so that a copy's frame is its original's.
  for (std::size_t i = 0; i < packets.size(); ++i) {
    plain.on_packet(packets[i].side, i + 1, packets[i].octets);
    copies.on_packet(packets[i].side, i + 1, packets[i].octets);
    if (packets[i].copy) copies.on_packet(packets[i].side, i + 1, packets[i].octets);
  }
  const auto rules = check::smcr_rules();
  for (std::size_t i = 0; i < plain_sink.seen.size(); ++i) {
    const auto& [id, frame] = plain_sink.seen[i];
    if (i < from_clc) {
      FUZZ_CHECK(id == check::kRmbeReuseAfterClose.id && frame == 0);
      continue;
    }
    bool known = false;
    for (const check::Rule* r : rules) known = known || r->id == id;
    FUZZ_CHECK(known && frame >= 1 && frame <= packets.size());
  }
  FUZZ_CHECK(from_clc <= 2 * ties.size() && plain_sink.seen.size() <= from_clc + 8 * packets.size());
  FUZZ_CHECK(copies_sink.seen == plain_sink.seen);
  const analysis::RoceStats& s = plain.stats();
  const analysis::RoceStats& t = copies.stats();
  FUZZ_CHECK(t.cdc_messages == s.cdc_messages && t.rdma_writes == s.rdma_writes && t.llc_messages == s.llc_messages);
  FUZZ_CHECK(t.psn_gaps == s.psn_gaps);
  // The link lifecycle follows new messages only: copies change none of it.
  FUZZ_CHECK(t.links_confirmed == s.links_confirmed && t.links_added == s.links_added &&
             t.links_rejected == s.links_rejected && t.links_deleted == s.links_deleted &&
             t.rkeys_announced == s.rkeys_announced && t.rkeys_confirmed == s.rkeys_confirmed &&
             t.rkeys_deleted == s.rkeys_deleted && t.llc_pairs == s.llc_pairs);
  // Each pair answers one request; each link is confirmed, added or deleted by an exchange.
  FUZZ_CHECK(s.llc_pairs <= packets.size() && s.links_confirmed + s.links_added + s.links_rejected <= s.llc_pairs);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const std::uint8_t mode = in.u8() % 4;
  const fuzz::Bytes octets = in.rest();
  if (mode == 0) check_roce(octets);
  else if (mode == 1) check_send(octets);
  else if (mode == 2) check_observer(octets);
  else check_link_group(octets);
  return 0;
}
