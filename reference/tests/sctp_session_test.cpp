// The DDP Stream Session machine (RFC 5043 §6) and the association around
// it (§8, §11.1): both roles through the legal sequences of §6.2-§6.4, the
// DDP-SSN rules of §5.2.1, §6 and §10, and the §6.6 hold on a Terminate.
#include "sctp/session.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_hex.hpp"

namespace rdmaconf::sctp {
namespace {

using test::hex;
using Octets = std::vector<std::uint8_t>;

SessionConfig config(Role role) {
  SessionConfig c;
  c.role = role;
  c.max_segment_size = 1024;
  c.reorder_limit = 8;
  return c;
}

// Moves everything `from` has queued into `to`, in the order given (or
// reversed, as unordered delivery may), and returns how many moved.
std::size_t deliver(Session& from, Session& to, bool reversed = false) {
  std::vector<OutgoingMessage> all;
  while (auto m = from.take_outgoing()) all.push_back(std::move(*m));
  if (reversed) std::reverse(all.begin(), all.end());
  for (const auto& m : all) to.receive(m.ppid, true, m.octets);
  return all.size();
}

AssociationConfig assoc_config(Role role) {
  AssociationConfig c;
  c.role = role;
  return c;
}

Octets segment(std::uint8_t fill, std::size_t n = 20) { return Octets(n, fill); }

Octets control(std::uint16_t ssn, FunctionCode f, std::string_view pd = {}) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(pd.data());
  return encode_session_control({.ddp_ssn = ssn, .function = f, .private_data = wire::Bytes(p, pd.size()),
                                 .raw_function_code = std::nullopt});
}
Octets seg_chunk(std::uint16_t ssn, const Octets& s) {
  Octets out;
  encode_segment_chunk({.ddp_ssn = ssn, .ddp_segment = wire::Chunks(s)}, out);
  return out;
}

TEST(SctpSession, AcceptedSessionCarriesSegmentsBothWaysInOrder) {
  Session active(config(Role::kActive)), passive(config(Role::kPassive));
  const std::string pd = "ird=4";
  ASSERT_TRUE(active.initiate(wire::Bytes(reinterpret_cast<const std::uint8_t*>(pd.data()), pd.size())).ok());
  EXPECT_EQ(active.state(), SessionState::kInitiateSent);
  EXPECT_FALSE(active.can_send());  // §6.6: nothing may overtake the Initiate
  ASSERT_EQ(deliver(active, passive), 1u);
  auto e = passive.take_event();
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, EventKind::kInitiateReceived);
  EXPECT_EQ(std::string(e->private_data.begin(), e->private_data.end()), pd);

  ASSERT_TRUE(passive.accept({}).ok());
  EXPECT_EQ(passive.state(), SessionState::kEstablished);
  // The passive side may send at once; the Accept keeps DDP-SSN 0.
  ASSERT_TRUE(passive.send_segment(wire::Chunks(segment(0xaa))).ok());
  deliver(passive, active, /*reversed=*/true);  // the segment arrives before the Accept
  EXPECT_EQ(active.state(), SessionState::kEstablished);
  EXPECT_EQ(active.take_event()->kind, EventKind::kAccepted);
  auto s = active.take_segment();
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, segment(0xaa));

  // Three segments delivered in reverse come out in DDP-SSN order.
  for (std::uint8_t i = 1; i <= 3; ++i) ASSERT_TRUE(active.send_segment(wire::Chunks(segment(i))).ok());
  deliver(active, passive, true);
  for (std::uint8_t i = 1; i <= 3; ++i) EXPECT_EQ(passive.take_segment(), segment(i));
  EXPECT_FALSE(passive.take_segment());
  EXPECT_EQ(active.next_ssn_to_send(), 4);
  EXPECT_EQ(passive.next_ssn_expected(), 4);
}

TEST(SctpSession, RejectEndsTheSessionBeforeItStarts) {
  Session active(config(Role::kActive)), passive(config(Role::kPassive));
  ASSERT_TRUE(active.initiate({}).ok());
  deliver(active, passive);
  (void)passive.take_event();
  const auto why = hex("6e 6f");  // "no"
  ASSERT_TRUE(passive.reject(why).ok());
  EXPECT_EQ(passive.state(), SessionState::kRejected);
  deliver(passive, active);
  EXPECT_EQ(active.state(), SessionState::kRejected);
  auto e = active.take_event();
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, EventKind::kRejected);
  EXPECT_EQ(e->private_data, why);
  EXPECT_FALSE(active.send_segment(wire::Chunks(segment(1))).ok());
}

TEST(SctpSession, ReplyOnlyToAReceivedInitiate) {
  Session passive(config(Role::kPassive));
  EXPECT_FALSE(passive.accept({}).ok());
  EXPECT_FALSE(passive.reject({}).ok());
  Session active(config(Role::kActive));
  EXPECT_TRUE(active.initiate({}).ok());
  EXPECT_FALSE(active.initiate({}).ok());
  Octets big(513, 0);
  Session other(config(Role::kActive));
  EXPECT_EQ(other.initiate(big).error().field, "Private Data");
}

TEST(SctpSession, NonUlpRejectionIsATerminate) {
  Session active(config(Role::kActive)), passive(config(Role::kPassive));
  ASSERT_TRUE(active.initiate({}).ok());
  deliver(active, passive);
  passive.terminate();  // §6.4: refused without asking the ULP
  EXPECT_TRUE(passive.terminate_sent());
  deliver(passive, active);
  EXPECT_EQ(active.state(), SessionState::kTerminated);
  EXPECT_EQ(active.take_event()->kind, EventKind::kTerminateReceived);
  EXPECT_FALSE(active.terminate_sent());  // the peer's Terminate ended it: none back
}

TEST(SctpSession, TerminateWaitsUntilTheAcceptIsKnownReceived) {
  Session active(config(Role::kActive)), passive(config(Role::kPassive));
  ASSERT_TRUE(active.initiate({}).ok());
  deliver(active, passive);
  ASSERT_TRUE(passive.accept({}).ok());
  passive.terminate();
  // §6.6: the Terminate could overtake the unacknowledged Accept.
  ASSERT_TRUE(passive.take_outgoing());  // the Accept
  EXPECT_FALSE(passive.take_outgoing());
  EXPECT_FALSE(passive.terminate_sent());
  passive.all_acknowledged();
  auto t = passive.take_outgoing();
  ASSERT_TRUE(t);
  EXPECT_EQ(t->octets, control(1, FunctionCode::kTerminate));
  EXPECT_TRUE(passive.terminate_sent());
}

TEST(SctpSession, ActiveTerminateWaitsForTheAnswer) {
  Session active(config(Role::kActive)), passive(config(Role::kPassive));
  ASSERT_TRUE(active.initiate({}).ok());
  deliver(active, passive);
  active.terminate();
  EXPECT_FALSE(active.terminate_sent());
  ASSERT_TRUE(passive.accept({}).ok());
  deliver(passive, active);  // the Accept confirms the Initiate
  EXPECT_TRUE(active.terminate_sent());
  deliver(active, passive);
  EXPECT_EQ(passive.state(), SessionState::kTerminated);
}

TEST(SctpSession, IllegalSequencesEndTheSessionWithATerminate) {
  struct Case {
    const char* what;
    Role role;
    std::vector<std::pair<std::uint32_t, Octets>> chunks;
    std::string_view field;
    std::string_view section;
  };
  const Case cases[] = {
      {"a segment opens the session", Role::kPassive, {{kPpidDdpSegment, seg_chunk(0, segment(1))}}, "DDP-SSN",
       "RFC 5043 §6.1"},
      {"an Accept opens it at the passive side", Role::kPassive, {{kPpidSessionControl, control(0, FunctionCode::kAccept)}},
       "Function Code", "RFC 5043 §6.2"},
      {"a second Initiate", Role::kPassive,
       {{kPpidSessionControl, control(0, FunctionCode::kInitiate)}, {kPpidSessionControl, control(1, FunctionCode::kInitiate)}},
       "Function Code", "RFC 5043 §6.2"},
      {"a DDP-SSN repeated", Role::kPassive,
       {{kPpidSessionControl, control(0, FunctionCode::kInitiate)}, {kPpidDdpSegment, seg_chunk(0, segment(1))}},
       "DDP-SSN", "RFC 5043 §6"},
      {"a DDP-SSN far ahead", Role::kPassive,
       {{kPpidSessionControl, control(0, FunctionCode::kInitiate)}, {kPpidDdpSegment, seg_chunk(100, segment(1))}},
       "DDP-SSN", "RFC 5043 §10"},
      {"a segment over the maximum size", Role::kPassive,
       {{kPpidSessionControl, control(0, FunctionCode::kInitiate)}, {kPpidDdpSegment, seg_chunk(1, segment(1, 1100))}},
       "DDP Segment", "RFC 5043 §9"},
      {"an unknown Function Code", Role::kPassive, {{kPpidSessionControl, hex("00 00 00 07")}}, "Function Code",
       "RFC 5043 §5.2.3"},
  };
  for (const Case& c : cases) {
    Session s(config(c.role));
    for (const auto& [ppid, octets] : c.chunks) s.receive(ppid, true, octets);
    EXPECT_EQ(s.state(), SessionState::kTerminated) << c.what;
    ASSERT_TRUE(s.violation()) << c.what;
    EXPECT_EQ(s.violation()->field, c.field) << c.what;
    EXPECT_EQ(s.violation()->rfc_section, c.section) << c.what;
    // Every violation is answered with a Terminate (§6.1), none held back:
    // nothing of ours was sent before it.
    EXPECT_TRUE(s.terminate_sent()) << c.what;
    std::optional<OutgoingMessage> last;
    while (auto m = s.take_outgoing()) last = std::move(m);
    ASSERT_TRUE(last) << c.what;
    auto decoded = decode_message(last->ppid, last->octets);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(decoded->function, FunctionCode::kTerminate) << c.what;
  }
}

TEST(SctpSession, SegmentsBeforeTheAcceptWaitForIt) {
  Session passive(config(Role::kPassive));
  passive.receive(kPpidDdpSegment, true, seg_chunk(1, segment(9)));  // arrives before its Initiate
  passive.receive(kPpidSessionControl, true, control(0, FunctionCode::kInitiate));
  EXPECT_EQ(passive.state(), SessionState::kInitiateReceived);
  EXPECT_FALSE(passive.take_segment());
  ASSERT_TRUE(passive.accept({}).ok());
  EXPECT_EQ(passive.take_segment(), segment(9));
}

TEST(SctpSession, OrderedChunksAreCountedAndChunksAfterTheEndDropped) {
  Session passive(config(Role::kPassive));
  passive.receive(kPpidSessionControl, false, control(0, FunctionCode::kInitiate));
  EXPECT_EQ(passive.ordered_chunks_received(), 1u);  // §10: U must be set
  ASSERT_TRUE(passive.accept({}).ok());
  passive.receive(kPpidSessionControl, true, control(1, FunctionCode::kTerminate));
  EXPECT_EQ(passive.state(), SessionState::kTerminated);
  passive.receive(kPpidDdpSegment, true, seg_chunk(2, segment(1)));
  EXPECT_EQ(passive.dropped_chunks(), 1u);
  EXPECT_FALSE(passive.violation());
}

TEST(SctpSession, InFlightLimit) {
  Session active(config(Role::kActive)), passive(config(Role::kPassive));
  ASSERT_TRUE(active.initiate({}).ok());
  deliver(active, passive);
  ASSERT_TRUE(passive.accept({}).ok());
  deliver(passive, active);
  const Octets s = segment(1);
  std::size_t sent = 1;  // the Initiate is in flight too
  while (active.can_send()) {
    ASSERT_TRUE(active.send_segment(wire::Chunks(s)).ok());
    (void)active.take_outgoing();
    ++sent;
  }
  EXPECT_EQ(sent, kMaxInFlight);  // §10: 32767 unacknowledged chunks at most
  EXPECT_EQ(active.send_segment(wire::Chunks(s)).error().rfc_section, "RFC 5043 §10");
  active.all_acknowledged();
  EXPECT_TRUE(active.can_send());
}

TEST(SctpAssociation, AdaptationIndicationDecides) {
  Association none(assoc_config(Role::kPassive));
  EXPECT_FALSE(none.association_up(std::nullopt).ok());
  EXPECT_FALSE(none.ddp_enabled());
  none.receive(0, kPpidSessionControl, true, control(0, FunctionCode::kInitiate));
  EXPECT_EQ(none.dropped_chunks(), 1u);  // §11.1: no DDP procedures here
  Association other(assoc_config(Role::kActive));
  EXPECT_EQ(other.association_up(0x1234).error().rfc_section, "RFC 5043 §11.1");
  EXPECT_FALSE(other.initiate(0, {}).ok());
  Association ddp(assoc_config(Role::kActive));
  EXPECT_TRUE(ddp.association_up(kAdaptationIndicationDdp).ok());
  EXPECT_TRUE(ddp.initiate(0, {}).ok());
}

TEST(SctpAssociation, PendingInitiatesBeyondTheLimitAreTerminated) {
  AssociationConfig c;
  c.role = Role::kPassive;
  c.streams = 4;
  c.pending_limit = 2;
  Association passive(c);
  ASSERT_TRUE(passive.association_up(kAdaptationIndicationDdp).ok());
  for (std::uint16_t stream = 0; stream < 3; ++stream)
    passive.receive(stream, kPpidSessionControl, true, control(0, FunctionCode::kInitiate));
  EXPECT_EQ(passive.pending_initiates(), 2u);
  auto third = passive.session(2);
  ASSERT_NE(third, nullptr);
  EXPECT_TRUE(third->terminate_sent());  // §6.4
  std::vector<OutgoingChunk> out;
  while (auto m = passive.take_outgoing()) out.push_back(std::move(*m));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].stream, 2);
  EXPECT_EQ(out[0].message.octets, control(0, FunctionCode::kTerminate));
  // A stream the association does not have is left alone.
  passive.receive(9, kPpidSessionControl, true, control(0, FunctionCode::kInitiate));
  EXPECT_EQ(passive.dropped_chunks(), 1u);
}

TEST(SctpAssociation, AStreamCarriesANewSessionAfterTheLastEnded) {
  Association active(assoc_config(Role::kActive)), passive(assoc_config(Role::kPassive));
  ASSERT_TRUE(active.association_up(kAdaptationIndicationDdp).ok());
  ASSERT_TRUE(passive.association_up(kAdaptationIndicationDdp).ok());
  auto pump = [](Association& from, Association& to) {
    while (auto m = from.take_outgoing()) to.receive(m->stream, m->message.ppid, true, m->message.octets);
  };
  ASSERT_TRUE(active.initiate(0, {}).ok());
  EXPECT_FALSE(active.initiate(0, {}).ok());  // one session per stream at a time
  pump(active, passive);
  ASSERT_TRUE(passive.session(0)->reject({}).ok());
  pump(passive, active);
  EXPECT_EQ(active.session(0)->state(), SessionState::kRejected);
  ASSERT_TRUE(active.initiate(0, {}).ok());
  pump(active, passive);
  EXPECT_EQ(passive.session(0)->state(), SessionState::kInitiateReceived);
}

}  // namespace
}  // namespace rdmaconf::sctp
