// The SMC-R link group (RFC 7609 §3.3, §3.5, §4.6), both roles, as one
// machine over queue pairs (transport.hpp): the first link's CONFIRM LINK
// (§3.5.1.5), ADD LINK and its continuation (§3.5.1.6, §3.5.5.1.1-2),
// DELETE LINK orderly and for failover (§3.5.5.1.3-4, §4.6), CONFIRM RKEY
// and DELETE RKEY (§3.5.5.2), TEST LINK (§3.5.3's liveness, A.3.8), and the
// routing of each connection's CDC messages and Writes to a link. SMC v2
// is the variant Linux net/smc runs (smc_llc.c): the v2 LLC types, ADD LINK
// carrying every RToken (no continuation), REQUEST ADD LINK, DELETE RKEY's
// list.
//
//   server                                         client
//   CONFIRM LINK (first link) ------------------>  (waits 2 s for it)
//   (waits 2 s)  <----------------- CONFIRM LINK reply
//   ADD LINK (new QP, link 2) ------------------>  accept or reject (Z)
//                <------------------ ADD LINK reply
//   v1: ADD LINK CONTINUATION pairs <---------->  its pairs
//   CONFIRM LINK on link 2 --------------------->
//                <------------------ CONFIRM LINK reply on link 2
//
// LLC exchanges are serialised as §3.5.5.3 says and Linux does (one flow
// that changes the link group at a time; TEST LINK and the peer's rkey
// requests answered at once): a request of ours waits in a bounded queue
// while a flow runs; a peer's ADD LINK or DELETE LINK request that collides
// is kept for later (one, Linux's delayed_event); the peer's CONFIRM RKEY
// while links change gets a negative reply with C (retry), as §3.5.5.3.1
// says. Every reply must answer an open request of ours of its type on its
// link (§3.3, check::llc_reply_answers_request); CONFIRM LINK must name the
// sender's MAC, GID and QP as it announced them (check::
// confirm_link_roce_info), a TEST LINK reply must echo (check::
// test_link_echo), an ADD LINK reply the offered link number (check::
// add_link_link_number), and CDC messages flow on confirmed links only
// (check::data_on_confirmed_link): the rules the capture observer judges
// with, and a broken one is an Event with its Violation and the reaction
// named there.
//
// Timers are Linux's (smc_llc.h) and time is an input: on_time(now) fires
// what is due, next_deadline() says when that is.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "check/smcr.hpp"
#include "smcr/encode.hpp"
#include "smcr/transport.hpp"
#include "wire/fault_set.hpp"

namespace rdmaconf::smcr {

using Time = std::chrono::milliseconds;  // since an arbitrary origin

// Linux smc_llc.h.
inline constexpr Time kLlcWaitTime{2000};       // SMC_LLC_WAIT_TIME: a reply, an ADD LINK step, the first link
inline constexpr Time kLlcWaitFirstTime{5000};  // SMC_LLC_WAIT_FIRST_TIME: CONFIRM LINK of an added link
inline constexpr Time kTestLinkTime{30000};     // SMC_LLC_TESTLINK_DEFAULT_TIME: a link's quiet time
// Linux smc_core.c: how long a link group without connections is kept for
// the next connection (SMC_LGR_FREE_DELAY_SERV, _CLNT). RFC 7609 §2 and
// §3.5.4 leave the time to the implementation; the client's is the longer,
// so that the server, whose part it is, ends the group.
inline constexpr Time kIdleTimeServer{600000};
inline constexpr Time kIdleTimeClient{610000};

// Linux: SMC_LINKS_PER_LGR_MAX (links a group holds, one asymmetric among
// them), SMC_LINKS_ADD_LNK_MAX (what CONFIRM LINK offers), SMC_RMBS_PER_LGR_MAX.
inline constexpr std::size_t kMaxLinks = 3;
inline constexpr std::uint8_t kMaxLinksOffered = 2;
inline constexpr std::size_t kMaxRmbs = 255;

enum class Role : std::uint8_t { kServer, kClient };  // RFC 7609's SMC server and SMC client

// A RoCE port this side can use for a link.
struct LinkAddress {
  Mac mac = 0;
  Gid gid{};
  friend bool operator==(const LinkAddress&, const LinkAddress&) = default;
};

// Deviations a conformance case may switch on, to prove it can fail
// (mutation), as Connection's Faults are.
enum class GroupFault : std::uint8_t {
  kOverlapExchanges,   // against §3.5.5.3: a request of ours starts while another exchange runs
  kFreeLinkOnDelete,   // against §3.5.5.1.3: the server frees a link as it sends DELETE LINK for it
  kRkeyOneLink,        // against §3.5.5.2.1: a new RMB's CONFIRM RKEY names its own link's RToken only
  kRkeyNoRetry,        // against A.3.5: a negative CONFIRM RKEY reply with C is not retried
  kRkeyRetryUnasked,   // against A.3.5: a negative reply without C is retried at once
  kSingleLinkEnds,     // against §2.2.1: the server ends the group when its second link is rejected
  kAsymmetricRefused,  // against §2.2.1: the server gives up a second link on the peer's first RNIC
  kClientAddWaits,     // against §3.5.5.1.2: a v1 client ends the group when its ADD LINK gets no answer
  kEyecatcherIgnored,  // against §4.4.1/A.4: RMBEs without eyecatcher though the peer's CONFIRM LINK kept them
  kNoReplay,           // against §4.6.2: the Writes and CDC messages a failed link flushed are not sent again
  kMtuUnchecked,       // against A.3.2, C.7.1: the client takes an ADD LINK whatever MTU value it names
  kUnknownLinkIgnored, // against A.3.4, C.7.1: the client leaves a DELETE LINK of a link it lacks unanswered
  kMoveFirstOnly,      // against §2.3, §4.6: a failed link's first connection moves, the others stay on it
  kEndsWithAnyConnection,  // against §2, §3.5.4: the group ends as one of its connections leaves, others still on it
  kCount
};
using GroupFaults = wire::FaultSet<GroupFault>;

// A.3.5: how often one RMB's CONFIRM RKEY is run anew after negative
// replies with C, so that a peer that always says "retry" cannot keep the
// group busy.
inline constexpr std::size_t kMaxRkeyRetries = 3;

struct LinkGroupConfig {
  Role role = Role::kServer;
  std::uint8_t version = 1;  // the SMC-R version CLC agreed: 1, or 2 (Linux's v2 LLC)
  std::uint8_t max_links = kMaxLinksOffered;
  std::uint32_t link_user_id = 0x00010000;  // a link's is this plus its number (Linux smc_llc_link_set_uid)
  std::uint8_t mtu = 3;                     // an added link's path MTU, enumerated as in App. A.2.3
  // Another RoCE port for added links (§3.5.1.6: symmetric links); none:
  // the first link's, an asymmetric link.
  std::optional<LinkAddress> alternate;
  // §3.5.1.6: the server tries a second link once the first is up (Linux
  // always does; a client without an alternate port rejects it).
  bool add_second_link = true;
  Time test_link_time = kTestLinkTime;  // 0: no TEST LINK
  // §2, §3.5.4: once its last connection left (remove_connection), the
  // group is kept this long for the next one, then ended: by the server
  // (DELETE LINK with A), by a client asking the server to
  // (request_termination). 0: kept until told.
  Time idle_time{0};
  // §4.4.1, A.4: every RMBE begins with an eyecatcher, and A.3.1 keeps
  // CONFIRM LINK's flag bits reserved (0); Linux sets two of them
  // (SMC_LLC_FLAG_NO_RMBE_EYEC) to announce RMBEs without one. True: this
  // side's CONFIRM LINK leaves them 0, as RFC 7609 has it.
  bool rmbe_eyecatcher = false;
  GroupFaults faults;
};

// The first link as CLC set it up (App. A.2.3/A.2.4: each side's QP, MAC,
// GID and first RMB's RToken).
struct FirstLink {
  QueuePair* qp = nullptr;
  LinkAddress local;
  check::LinkEnd peer;        // the peer's MAC, GID and QP from its Accept or Confirm
  std::uint32_t rmb = 0;      // our first RMB (Host handle), registered on qp: its RToken went in CLC
  RToken peer_rmb;            // the peer's first RMB on this link, from CLC
};

// A connection of the link group (§4.4): CDC messages to `token` come to
// it; its Writes go into the peer's RMB that `peer_rmb` names on the link
// the connection was set up on, at `rmbe_offset` plus the connection's
// offset (the RMBE, A.2.3's index).
struct ConnectionRoute {
  std::uint32_t token = 0;  // our RMBE's alert token: what the peer's CDC messages carry
  RToken peer_rmb;          // as the peer announced it (CLC, or CONFIRM RKEY) on some link of the group
  std::uint64_t rmbe_offset = 0;
};

// What the machine reports. One kind per outcome, the typed errors among
// them; `violation` is set when a rule of check/smcr.hpp judged it.
struct Event {
  enum class Kind : std::uint8_t {
    kLinkUp,            // link `link` confirmed: data may flow on it
    kLinkDeleted,       // link `link` is gone (`reason`: the DELETE LINK reason code)
    kLinkAddRejected,   // our ADD LINK was rejected, or failed (`reason`: RsnCode, or 0 for none)
    kRmbConfirmed,      // our RMB `rmb` has RTokens at the peer on every link
    kRmbRejected,       // refused (`reason` 1: C, and the group runs it anew itself), or kNoReply, or the link was lost
    kRmbDeleted,        // our RMB `rmb` is freed (`reason`: the peer's error mask or count, or kNoReply)
    kPeerRmbAdded,      // the peer added an RMB: `rtoken` on link `link`
    kPeerRmbDeleted,    // the peer deleted the RMB with `rtoken.rkey` on link `link`
    kTestLinkAnswered,  // TEST LINK on `link` was answered
    kCdc,               // a CDC message for connection `token`: `octets`
    kConnectionMoved,   // §4.6: connection `token` now uses link `link`
    kWorkCompleted,     // work `work` of connection `token` completed with `status`
    kTerminated,        // the link group ended (`reason`); every connection is abnormally closed
    kDropped,           // a received message was not taken: `drop` says why
  };
  enum class Drop : std::uint8_t {
    kNone,
    kUndecodable,          // decode_send refused it (`error`): Linux drops it unread
    kUnknownType,          // A.3: an unknown type with high bits 00: a protocol error, the group ends
    kOptionalType,         // A.3: an unknown type with high bits 10 is silently discarded
    kReplyWithoutRequest,  // §3.3: no open request of ours answers it
    kNoEcho,               // the TEST LINK reply did not echo
    kCollision,            // §3.5.5.3: another exchange runs and one is already kept
    kUnknownLink,          // it names a link the group does not have
    kUnknownToken,         // a CDC message for no connection of the group
    kLinkNotUp,            // a CDC message on a link not confirmed (yet)
    kUnsupported,          // CONFIRM RKEY CONTINUATION: Linux neither sends nor takes it
    kNotExpected,          // a request this role never receives, or out of its flow
    kWrongLinkEnd,         // CONFIRM LINK or ADD LINK names another link end than announced
  };
  Kind kind = Kind::kDropped;
  std::uint8_t link = 0;  // link number
  std::uint32_t token = 0;
  std::uint32_t rmb = 0;
  std::uint32_t reason = 0;
  RToken rtoken;
  WorkId work = 0;
  WorkStatus status = WorkStatus::kSuccess;
  Drop drop = Drop::kNone;
  std::uint8_t llc_type = 0;  // the dropped message's type octet
  std::optional<check::Violation> violation;
  std::optional<wire::DecodeError> error;
  std::vector<std::uint8_t> octets;
};
// Event::reason when an exchange's wait ran out.
inline constexpr std::uint32_t kNoReply = 0xFFFFFFFF;
std::string_view name(Event::Kind k);
std::string_view name(Event::Drop d);

class LinkGroup {
 public:
  enum class State : std::uint8_t { kIdle, kConfirmingFirstLink, kActive, kTerminated };
  // A link's life: kActivating once its QPs exist until its CONFIRM LINK
  // exchange ends (§3.5.1.5, §3.5.1.6.2), kActive, kDeleting while its
  // DELETE LINK exchange runs (§3.5.5.1.3), then the slot is free again.
  enum class LinkState : std::uint8_t { kUnused, kActivating, kActive, kDeleting };
  struct Link {
    LinkState state = LinkState::kUnused;
    std::uint8_t number = 0;
    QueuePair* qp = nullptr;
    LinkAddress local;
    check::LinkEnd peer;           // as the peer announced it (CLC or ADD LINK)
    std::uint32_t peer_user_id = 0;
    std::uint32_t peer_psn = 0;
    Time last_received{0};         // for TEST LINK
    std::optional<Time> test_deadline;  // a TEST LINK of ours awaits its reply
    std::array<std::uint8_t, 16> test_user_data{};
  };

  LinkGroup(LinkGroupConfig config, Host& host);

  // §3.5.1.5: the server sends CONFIRM LINK on the first link; the client
  // waits for it.
  void start(const FirstLink& first, Time now);
  // Takes every queue pair's events (Sends, completions, errors) and
  // handles them in order. False when nothing happened.
  bool poll(Time now);
  // Fires the timers that are due.
  void on_time(Time now);
  std::optional<Time> next_deadline() const;
  // One received Send on the link with `slot` (what poll() does with each).
  void on_receive(std::size_t slot, wire::Bytes octets, Time now);

  // Local requests (queued while an exchange runs; false when the queue is full).
  bool add_link(Time now);                      // server: ADD LINK; client: ask for one (§3.5.5.1.2)
  bool delete_link(std::uint8_t number, bool orderly, Time now);
  bool add_rmb(std::uint32_t rmb, Time now);    // CONFIRM RKEY (§3.5.5.2.1)
  bool delete_rmb(std::uint32_t rmb, Time now); // DELETE RKEY (§3.5.5.2.2)
  void terminate(std::uint32_t reason, Time now);  // DELETE LINK with A (§3.5.4)
  // §3.5.4: a client asks the server to end the group (DELETE LINK, all
  // links) and keeps its end until the server's own DELETE LINK comes and
  // ends it (terminate()), so that the server's last Sends find a queue
  // pair to acknowledge them. A server, whose word ends the group, and a
  // client without a usable link terminate at once. True while the client
  // waits for the server.
  bool request_termination(std::uint32_t reason, Time now);
  // A link's queue pair failed (as poll() learns it): §4.6 failover.
  void link_down(std::size_t slot, Time now);

  // Connections (§4.4): CDC messages and Writes on the connection's link.
  bool add_connection(const ConnectionRoute& route);
  // The connection ended (its RMBE is free again, §4.4.2): the group and
  // its links stay for the others; the last one's leaving starts the idle
  // timer (LinkGroupConfig::idle_time).
  void remove_connection(std::uint32_t token, Time now);
  std::size_t connections() const { return routes_.size(); }
  std::optional<WorkId> send_cdc(std::uint32_t token, wire::Bytes message);
  std::optional<WorkId> write(std::uint32_t token, std::uint64_t offset, wire::Bytes octets);
  // The link a connection uses now, by number.
  std::optional<std::uint8_t> link_of(std::uint32_t token) const;
  // §4.6.1: the sequence number of the connection's last CDC message whose
  // Send completed (SS; 0 when none did), for its failover validation.
  std::uint16_t sequence_sent(std::uint32_t token) const;
  // §4.6.2: after its failover validation, the connection's Writes and CDC
  // messages that failed or were flushed on the old link are posted again
  // on its new one, as they were and in their order, before anything new.
  // False when some could not be (too much was in flight to keep, or the
  // new link has no RToken for the peer's RMB): the stream has a gap.
  bool replay(std::uint32_t token);

  std::optional<Event> next_event();

  State state() const { return state_; }
  Role role() const { return cfg_.role; }
  const std::array<Link, kMaxLinks>& links() const { return links_; }
  std::optional<std::size_t> slot_of(std::uint8_t number) const;
  std::size_t active_links() const;
  // The peer's RToken on link `number` for its RMB known as `any` on some link.
  std::optional<RToken> peer_rtoken(RToken any, std::uint8_t number) const;
  // Our RMB's RToken on link `number`, once registered there.
  std::optional<RToken> local_rtoken(std::uint32_t rmb, std::uint8_t number) const;
  bool flow_running() const { return flow_.kind != FlowKind::kNone; }
  // Whether the group's RMBEs begin with the eyecatcher (§4.4.1, A.4): they
  // do unless both sides' first CONFIRM LINK said otherwise. Known once the
  // first link is up; a connection's RmbeGeometry follows it.
  bool rmbe_eyecatcher() const { return rmbe_eyecatcher_; }
  // §3.5.1.6.2: while the DELETE LINK of a new link whose CONFIRM LINK
  // exchange failed awaits its reply, no CDC message or Write may go out;
  // whoever posts them (the connections' owner) waits while this is true.
  bool data_held() const { return flow_.kind == FlowKind::kDeleteLink && flow_.new_link_failed; }

 private:
  enum class FlowKind : std::uint8_t { kNone, kFirstLink, kAddLink, kDeleteLink, kConfirmRkey, kDeleteRkey };
  // What the running flow waits for.
  enum class Await : std::uint8_t {
    kNothing,
    kConfirmLinkRequest,  // client: on the link being confirmed
    kConfirmLinkReply,    // server: likewise
    kAddLinkReply,        // server
    kAddLinkRequest,      // client (v2, after REQUEST ADD LINK): the server's ADD LINK
    kAddLinkContinuation, // v1, either role
    kDeleteLinkReply,     // server
    kRkeyReply,           // CONFIRM RKEY or DELETE RKEY, either role
  };
  struct Flow {
    FlowKind kind = FlowKind::kNone;
    Await await = Await::kNothing;
    std::optional<Time> deadline;
    std::size_t on = 0;           // the slot the exchange's messages flow on
    std::size_t target = 0;       // the slot being confirmed, added or deleted
    std::uint32_t rmb = 0;        // CONFIRM/DELETE RKEY: our RMB
    std::uint32_t reason = 0;     // DELETE LINK: the reason code sent
    std::size_t pairs_sent = 0;   // v1 ADD LINK CONTINUATION: our RTokens sent so far
    bool peer_pairs_done = false; // and the peer's all received
    bool new_link_failed = false; // DELETE LINK: for a new link whose CONFIRM LINK exchange failed
  };
  struct Request {  // a local request waiting for its turn
    FlowKind kind = FlowKind::kNone;
    std::uint8_t link = 0;
    bool orderly = false;
    std::uint32_t reason = 0;
    std::uint32_t rmb = 0;
  };
  struct LocalRmb {
    std::uint32_t id = 0;
    bool confirmed = false;  // the peer has its RTokens (CLC for the first)
    std::array<std::optional<RToken>, kMaxLinks> rtokens;
  };
  struct PeerRmb {
    std::array<std::optional<RToken>, kMaxLinks> rtokens;
  };
  // A connection's work posted and not completed yet, kept to be replayed
  // after a failover (§4.6.2).
  struct Posted {
    std::size_t slot = 0;
    WorkId id = 0;
    bool write = false;
    std::uint64_t offset = 0;          // a Write's place in the peer's RMBE
    std::vector<std::uint8_t> octets;  // empty when past kMaxKeptOctets: not replayable
    bool kept = true;
    bool failed = false;               // flushed or failed: to post again on the new link
  };
  // A Route's slot when GroupFault::kMoveFirstOnly left it on a failed link: none.
  static constexpr std::size_t kStranded = kMaxLinks;
  struct Route {
    ConnectionRoute route;
    std::size_t peer_rmb = 0;
    std::size_t slot = 0;
    std::deque<Posted> work;
    std::uint64_t kept_octets = 0;
    std::uint16_t sequence_sent = 0;  // SS (§4.6.1)
  };
  void track(Route& r, WorkId id, bool write, std::uint64_t offset, wire::Bytes octets);

  // link_group.cpp: dispatch, links, routing, termination
  void emit(Event e);
  void drop(Event::Drop why, std::size_t slot, const LlcMessage* m, std::optional<check::Violation> v = {});
  void on_llc(std::size_t slot, const LlcMessage& m, Time now);
  void on_reply(std::size_t slot, const LlcMessage& m, Time now);
  void on_request(std::size_t slot, const LlcMessage& m, Time now);
  void on_cdc(std::size_t slot, const CdcMessage& m, wire::Bytes octets);
  void on_completion(std::size_t slot, const QpEvent& e);
  void send(std::size_t slot, const Llc& m);
  std::uint8_t no_rmbe_eyecatcher() const { return cfg_.rmbe_eyecatcher ? 0 : kNoRmbeEyecatcher; }
  std::optional<std::size_t> usable_slot(std::optional<std::size_t> except = {}) const;
  std::optional<std::size_t> free_slot() const;
  std::uint8_t next_link_number();
  void clear_link(std::size_t slot, std::uint32_t reason, bool announce = true);
  // §4.6: moves every connection off `slot`; false when no link is left.
  bool move_connections(std::size_t slot);
  void link_active(std::size_t slot, Time now);
  void end_flow(Time now);
  void start_next(Time now);
  bool queue(Request r, Time now);
  std::size_t peer_rmb_with(std::size_t slot, std::uint32_t rkey) const;
  bool open_request(std::size_t slot, std::uint8_t type) const;

  // link_group_flows.cpp: the exchanges
  void start_flow(const Request& r, Time now);
  void first_link_confirmed(std::size_t slot, const LlcMessage& m, Time now);
  void server_add_link(std::size_t on, Time now);
  void server_add_link_reply(const AddLink& a, const LlcMessage& m, Time now);
  void client_add_link(std::size_t on, const LlcMessage& m, Time now);
  void send_continuation(Time now);
  void on_continuation(const AddLinkContinuation& c, Time now);
  void confirm_new_link(Time now);
  void new_link_confirmed(std::size_t slot, const LlcMessage& m, Time now);
  void abandon_new_link(std::uint32_t reason, Time now);
  void server_delete_link(std::size_t on, std::size_t target, const DeleteLink& request, Time now);
  void on_delete_link_request(std::size_t slot, const DeleteLink& d, Time now);
  void on_rkey_request(std::size_t slot, const LlcMessage& m);
  void send_confirm_rkey(Time now);
  void send_delete_rkey(Time now);
  void on_rkey_reply(const LlcMessage& m, Time now);
  void send_test_link(std::size_t slot, Time now);
  void on_test_link_reply(std::size_t slot, const LlcMessage& m);
  void on_flow_timeout(Time now);
  std::vector<RTokenPair> rtoken_pairs(std::size_t on, std::size_t target) const;
  void take_pairs(std::size_t on, std::size_t target, const std::vector<RTokenPair>& pairs);

  LinkGroupConfig cfg_;
  Host& host_;
  State state_ = State::kIdle;
  std::array<Link, kMaxLinks> links_{};
  std::uint8_t last_link_number_ = 0;
  Flow flow_;
  std::deque<Request> requests_;           // ours, waiting
  std::optional<std::vector<std::uint8_t>> delayed_;  // the peer's, kept (one)
  std::size_t delayed_slot_ = 0;
  std::vector<LocalRmb> local_rmbs_;
  std::vector<PeerRmb> peer_rmbs_;
  std::vector<Route> routes_;
  std::deque<Event> events_;
  std::uint32_t test_counter_ = 0;
  bool rmbe_eyecatcher_ = false;
  std::size_t rkey_retries_ = 0;  // A.3.5: CONFIRM RKEY runs anew since the last positive reply
  std::optional<Time> idle_deadline_;  // the group has no connection since; it ends then (§3.5.4)

  static constexpr std::size_t kMaxRequests = 64;
  static constexpr std::size_t kMaxTrackedWork = 4096;  // per connection
  // Octets of unfinished work kept per connection for a replay: the peer's
  // window (its RMBE size) must not decide how much this side holds.
  static constexpr std::uint64_t kMaxKeptOctets = std::uint64_t{16} << 20;
  static constexpr std::size_t kMaxEvents = 4096;
  static constexpr std::size_t kMaxConnections = 255;  // Linux SMC_RMBS_PER_LGR_MAX
};

}  // namespace rdmaconf::smcr
