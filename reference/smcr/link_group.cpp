// The link group's dispatch: what arrives on each queue pair, judged and
// handed to its exchange (link_group_flows.cpp), the links' life and the
// group's end. The routing of connections is in link_group_routes.cpp.
#include "smcr/link_group.hpp"

#include <algorithm>

namespace rdmaconf::smcr {

std::string_view name(Event::Kind k) {
  switch (k) {
    case Event::Kind::kLinkUp: return "link up";
    case Event::Kind::kLinkDeleted: return "link deleted";
    case Event::Kind::kLinkAddRejected: return "link add rejected";
    case Event::Kind::kRmbConfirmed: return "RMB confirmed";
    case Event::Kind::kRmbRejected: return "RMB rejected";
    case Event::Kind::kRmbDeleted: return "RMB deleted";
    case Event::Kind::kPeerRmbAdded: return "peer RMB added";
    case Event::Kind::kPeerRmbDeleted: return "peer RMB deleted";
    case Event::Kind::kTestLinkAnswered: return "TEST LINK answered";
    case Event::Kind::kCdc: return "CDC";
    case Event::Kind::kConnectionMoved: return "connection moved";
    case Event::Kind::kWorkCompleted: return "work completed";
    case Event::Kind::kTerminated: return "terminated";
    case Event::Kind::kDropped: return "dropped";
  }
  return "?";
}

std::string_view name(Event::Drop d) {
  switch (d) {
    case Event::Drop::kNone: return "none";
    case Event::Drop::kUndecodable: return "undecodable";
    case Event::Drop::kUnknownType: return "unknown type";
    case Event::Drop::kOptionalType: return "unknown optional type";
    case Event::Drop::kReplyWithoutRequest: return "reply without request";
    case Event::Drop::kNoEcho: return "TEST LINK reply without echo";
    case Event::Drop::kCollision: return "colliding exchange";
    case Event::Drop::kUnknownLink: return "unknown link";
    case Event::Drop::kUnknownToken: return "unknown alert token";
    case Event::Drop::kLinkNotUp: return "link not confirmed";
    case Event::Drop::kUnsupported: return "unsupported";
    case Event::Drop::kNotExpected: return "not expected";
    case Event::Drop::kWrongLinkEnd: return "CONFIRM LINK names another end";
  }
  return "?";
}

LinkGroup::LinkGroup(LinkGroupConfig config, Host& host) : cfg_(config), host_(host) {
  cfg_.max_links = std::min<std::uint8_t>(cfg_.max_links, static_cast<std::uint8_t>(kMaxLinks));
}

void LinkGroup::emit(Event e) {
  // The driver drains events as it goes; a bound keeps one that does not
  // from holding every message ever dropped.
  if (events_.size() >= kMaxEvents) events_.pop_front();
  events_.push_back(std::move(e));
}

std::optional<Event> LinkGroup::next_event() {
  if (events_.empty()) return std::nullopt;
  Event e = std::move(events_.front());
  events_.pop_front();
  return e;
}

void LinkGroup::drop(Event::Drop why, std::size_t slot, const LlcMessage* m, std::optional<check::Violation> v) {
  Event e;
  e.kind = Event::Kind::kDropped;
  e.drop = why;
  e.link = links_[slot].number;
  e.llc_type = m ? m->type() : 0;
  e.violation = v;
  emit(std::move(e));
}

// ------------------------------------------------------------------ start

void LinkGroup::start(const FirstLink& first, Time now) {
  if (state_ != State::kIdle || first.qp == nullptr) return;
  Link& l = links_[0];
  l.state = LinkState::kActivating;
  l.qp = first.qp;
  l.local = first.local;
  l.peer = first.peer;
  l.last_received = now;
  LocalRmb r;
  r.id = first.rmb;
  r.confirmed = true;  // §3.5.1.3: its RToken went in CLC
  r.rtokens[0] = host_.register_rmb(first.rmb, *first.qp);
  local_rmbs_.push_back(r);
  PeerRmb p;
  p.rtokens[0] = first.peer_rmb;
  peer_rmbs_.push_back(p);
  state_ = State::kConfirmingFirstLink;
  flow_ = {};
  flow_.kind = FlowKind::kFirstLink;
  flow_.on = flow_.target = 0;
  if (cfg_.role == Role::kServer) {
    // §3.5.1.5: the server numbers the link and sends CONFIRM LINK; Linux
    // waits SMC_LLC_WAIT_TIME for the reply (smcr_serv_conf_first_link).
    l.number = next_link_number();
    ConfirmLink c{false, no_rmbe_eyecatcher(), l.local.mac, l.local.gid, l.qp->qp_number(), l.number,
                  cfg_.link_user_id + l.number, cfg_.max_links};
    send(0, c);
    flow_.await = Await::kConfirmLinkReply;
    flow_.deadline = now + kLlcWaitTime;
  } else {
    // The client waits as long for it (smcr_clnt_conf_first_link).
    flow_.await = Await::kConfirmLinkRequest;
    flow_.deadline = now + kLlcWaitTime;
  }
}

// --------------------------------------------------------------- receive

bool LinkGroup::poll(Time now) {
  bool any = false;
  for (std::size_t slot = 0; slot < kMaxLinks; ++slot) {
    QueuePair* qp = links_[slot].qp;
    // Handling an event may clear the link (and destroy its queue pair).
    while (qp != nullptr && links_[slot].qp == qp && state_ != State::kTerminated) {
      std::optional<QpEvent> e = qp->poll();
      if (!e) break;
      any = true;
      switch (e->kind) {
        case QpEvent::Kind::kReceive: on_receive(slot, e->octets, now); break;
        case QpEvent::Kind::kCompletion: on_completion(slot, *e); break;
        case QpEvent::Kind::kError: link_down(slot, now); break;
      }
    }
  }
  return any;
}

void LinkGroup::on_receive(std::size_t slot, wire::Bytes octets, Time now) {
  if (slot >= kMaxLinks || state_ == State::kTerminated || state_ == State::kIdle) return;
  if (links_[slot].state == LinkState::kUnused) return;
  links_[slot].last_received = now;  // Linux wr_rx_tstamp: any arrival counts for TEST LINK
  auto s = decode_send(octets);
  if (!s) {
    const std::uint8_t type = octets.empty() ? 0 : octets[0];
    if (!octets.empty() && type != kCdcType && find_llc_type(type) == nullptr) {
      // A.3: the two high-order bits of an unknown type say what to do.
      if ((type & 0xC0) == 0x80) return drop(Event::Drop::kOptionalType, slot, nullptr);
      if ((type & 0xC0) == 0x00) {
        Event e;
        e.kind = Event::Kind::kDropped;
        e.drop = Event::Drop::kUnknownType;
        e.link = links_[slot].number;
        e.llc_type = type;
        e.error = s.error();
        emit(std::move(e));
        // A protocol error: Linux ends the link group with this reason
        // (smc_llc_protocol_violation).
        return terminate(delete_reason::kProtocolViolation, now);
      }
    }
    // Linux drops what it cannot take (smc_llc_rx_handler, smc_cdc_rx_handler).
    Event e;
    e.kind = Event::Kind::kDropped;
    e.drop = Event::Drop::kUndecodable;
    e.link = links_[slot].number;
    e.llc_type = type;
    e.error = s.error();
    return emit(std::move(e));
  }
  if (const auto* c = std::get_if<CdcMessage>(&*s)) return on_cdc(slot, *c, octets);
  on_llc(slot, std::get<LlcMessage>(*s), now);
}

void LinkGroup::on_llc(std::size_t slot, const LlcMessage& m, Time now) {
  if (m.reply()) return on_reply(slot, m, now);
  on_request(slot, m, now);
}

bool LinkGroup::open_request(std::size_t slot, std::uint8_t type) const {
  if (type == llc_type::kTestLink) return links_[slot].test_deadline.has_value();
  if (flow_.kind == FlowKind::kNone) return false;
  switch (flow_.await) {
    case Await::kConfirmLinkReply: return type == llc_type::kConfirmLink && slot == flow_.target;
    case Await::kAddLinkReply: return type == llc_type::kAddLink && slot == flow_.on;
    // Linux's client sends its continuations as replies (smc_llc_add_link_cont).
    case Await::kAddLinkContinuation:
      return cfg_.role == Role::kServer && type == llc_type::kAddLinkCont && slot == flow_.on;
    case Await::kAddLinkRequest: return type == llc_type::kReqAddLink && slot == flow_.on;
    case Await::kDeleteLinkReply: return type == llc_type::kDeleteLink && slot == flow_.on;
    case Await::kRkeyReply:
      return slot == flow_.on && type == (flow_.kind == FlowKind::kConfirmRkey ? llc_type::kConfirmRkey
                                                                                : llc_type::kDeleteRkey);
    case Await::kNothing:
    case Await::kConfirmLinkRequest: break;
  }
  return false;
}

void LinkGroup::on_reply(std::size_t slot, const LlcMessage& m, Time now) {
  const std::uint8_t type = m.base_type();
  // §3.3, A.3: a reply answers an open request of ours of its type on its
  // link; Linux drops any other (smc_llc_rx_response).
  if (auto v = check::llc_reply_answers_request(m, open_request(slot, type) ? 1 : 0))
    return drop(Event::Drop::kReplyWithoutRequest, slot, &m, v);
  switch (type) {
    case llc_type::kTestLink: return on_test_link_reply(slot, m);
    case llc_type::kConfirmLink:
      if (flow_.kind == FlowKind::kFirstLink) return first_link_confirmed(slot, m, now);
      return new_link_confirmed(slot, m, now);
    case llc_type::kAddLink: return server_add_link_reply(std::get<AddLink>(fields_of(m)), m, now);
    case llc_type::kAddLinkCont: return on_continuation(std::get<AddLinkContinuation>(fields_of(m)), now);
    case llc_type::kDeleteLink: {
      // §3.5.5.1.3: once the reply is in, both sides free the link.
      const std::size_t target = flow_.target;
      if (links_[target].state != LinkState::kUnused) clear_link(target, flow_.reason);
      if (active_links() == 0) return terminate(delete_reason::kLostPath, now);
      return end_flow(now);
    }
    case llc_type::kReqAddLink: {
      // Linux's server answers REQUEST ADD LINK this way when it adds no link.
      Event e;
      e.kind = Event::Kind::kLinkAddRejected;
      e.link = links_[slot].number;
      emit(std::move(e));
      return end_flow(now);
    }
    default: return on_rkey_reply(m, now);
  }
}

void LinkGroup::on_request(std::size_t slot, const LlcMessage& m, Time now) {
  const bool server = cfg_.role == Role::kServer;
  switch (m.base_type()) {
    case llc_type::kTestLink: {
      // A.3.8: echo the request at once, whatever else runs (§3.5.5.3.1).
      TestLink t = std::get<TestLink>(fields_of(m));
      t.reply = true;
      return send(slot, t);
    }
    case llc_type::kConfirmLink:
      // §3.3: initiated by the server, on the link being confirmed.
      if (!server && flow_.await == Await::kConfirmLinkRequest && slot == flow_.target) {
        if (flow_.kind == FlowKind::kFirstLink) return first_link_confirmed(slot, m, now);
        return new_link_confirmed(slot, m, now);
      }
      return drop(Event::Drop::kNotExpected, slot, &m);
    case llc_type::kAddLink:
      if (!server && flow_.kind == FlowKind::kAddLink && flow_.await == Await::kAddLinkRequest) {
        // The server's answer to our REQUEST ADD LINK (Linux: the flow turns
        // into the ADD LINK one).
        flow_ = {};
        client_add_link(slot, m, now);
        if (flow_.kind == FlowKind::kNone) start_next(now);
        return;
      }
      if (flow_.kind != FlowKind::kNone) break;
      if (server) {
        // §3.5.5.1.2: the client's ADD LINK only tells of a new RNIC; with
        // the most links already, the server ignores it.
        if (active_links() >= cfg_.max_links) return;
        return server_add_link(slot, now);
      }
      return client_add_link(slot, m, now);
    case llc_type::kAddLinkCont:
      if (!server && flow_.await == Await::kAddLinkContinuation && slot == flow_.on)
        return on_continuation(std::get<AddLinkContinuation>(fields_of(m)), now);
      return drop(Event::Drop::kNotExpected, slot, &m);
    case llc_type::kDeleteLink: {
      const DeleteLink d = std::get<DeleteLink>(fields_of(m));
      // §3.5.4, §3.5.5.3: deleting the whole group is done at once, whatever runs.
      if (d.all) return terminate(d.reason_code, now);
      // Linux's client answers a DELETE LINK for the link it is adding by
      // giving the link up (smc_llc_cli_conf_link).
      if (!server && flow_.kind == FlowKind::kAddLink && d.link_number == links_[flow_.target].number) {
        DeleteLink r = d;
        r.reply = true;
        send(slot, r);
        clear_link(flow_.target, d.reason_code);
        return end_flow(now);
      }
      if (flow_.kind != FlowKind::kNone) break;
      return on_delete_link_request(slot, d, now);
    }
    case llc_type::kConfirmRkey:
    case llc_type::kDeleteRkey: return on_rkey_request(slot, m);
    case llc_type::kReqAddLink:
      if (!server) return drop(Event::Drop::kNotExpected, slot, &m);
      if (flow_.kind != FlowKind::kNone) break;
      if (active_links() >= cfg_.max_links || !free_slot()) {
        // Linux answers the request when it adds no link (smc_llc_send_req_add_link_response).
        RequestAddLink r;
        r.reply = true;
        return send(slot, r);
      }
      return server_add_link(slot, now);
    default:  // CONFIRM RKEY CONTINUATION: Linux neither sends nor takes it (3 links fit one CONFIRM RKEY)
      return drop(Event::Drop::kUnsupported, slot, &m);
  }
  // §3.5.5.3: another exchange runs. Like Linux (smc_llc_flow_parallel) an
  // ADD LINK or DELETE LINK is kept, one of them, and handled after it,
  // unless it is the kind of exchange already running (§3.5.5.3.1: the
  // server ignores a client's ADD LINK during its own); anything else, or a
  // second one, is dropped.
  const std::uint8_t t = m.base_type();
  const bool same_kind = (flow_.kind == FlowKind::kAddLink && t != llc_type::kDeleteLink) ||
                         (flow_.kind == FlowKind::kDeleteLink && t == llc_type::kDeleteLink);
  if ((t == llc_type::kAddLink || t == llc_type::kDeleteLink || t == llc_type::kReqAddLink) && !same_kind &&
      !delayed_) {
    delayed_.emplace(m.octets.begin(), m.octets.end());
    delayed_slot_ = slot;
    return;
  }
  drop(Event::Drop::kCollision, slot, &m);
}

// ------------------------------------------------------------------- CDC

void LinkGroup::on_cdc(std::size_t slot, const CdcMessage& m, wire::Bytes octets) {
  const auto route = std::find_if(routes_.begin(), routes_.end(),
                                  [&](const Route& r) { return r.route.token == m.alert_token(); });
  if (route == routes_.end()) {
    // Linux drops a CDC message for no connection (smc_cdc_rx_handler).
    Event e;
    e.kind = Event::Kind::kDropped;
    e.drop = Event::Drop::kUnknownToken;
    e.link = links_[slot].number;
    e.llc_type = kCdcType;
    e.token = m.alert_token();
    return emit(std::move(e));
  }
  // §3.5.1.5: data flows on confirmed links (a deleted one until its exchange ends).
  constexpr check::LinkState kAsJudged[] = {check::LinkState::kDeleted, check::LinkState::kConfirming,
                                            check::LinkState::kUp, check::LinkState::kDeleting};
  if (auto v = check::data_on_confirmed_link(kAsJudged[static_cast<std::size_t>(links_[slot].state)], false)) {
    Event e;
    e.kind = Event::Kind::kDropped;
    e.drop = Event::Drop::kLinkNotUp;
    e.link = links_[slot].number;
    e.llc_type = kCdcType;
    e.token = m.alert_token();
    e.violation = v;
    return emit(std::move(e));
  }
  Event e;
  e.kind = Event::Kind::kCdc;
  e.link = links_[slot].number;
  e.token = m.alert_token();
  e.octets.assign(octets.begin(), octets.begin() + static_cast<std::ptrdiff_t>(kCdcMessageSize));
  emit(std::move(e));
}

void LinkGroup::on_completion(std::size_t slot, const QpEvent& e) {
  for (Route& r : routes_) {
    const auto it =
        std::find_if(r.work.begin(), r.work.end(), [&](const Posted& w) { return w.slot == slot && w.id == e.work; });
    if (it == r.work.end()) continue;
    if (e.status != WorkStatus::kSuccess) {
      it->failed = true;  // §4.6.2: replayed once the connection moved
    } else {
      // §4.6.1: SS, the last CDC message the peer's RNIC took.
      if (!it->write && it->octets.size() >= 4) r.sequence_sent = static_cast<std::uint16_t>((it->octets[2] << 8) | it->octets[3]);
      r.kept_octets -= it->octets.size();
      r.work.erase(it);
    }
    Event out;
    out.kind = Event::Kind::kWorkCompleted;
    out.token = r.route.token;
    out.link = links_[slot].number;
    out.work = e.work;
    out.status = e.status;
    return emit(std::move(out));
  }
  // An LLC message's completion: Linux takes no action on it either.
}

// ----------------------------------------------------------------- links

void LinkGroup::send(std::size_t slot, const Llc& m) {
  Link& l = links_[slot];
  if (l.qp == nullptr) return;
  const std::vector<std::uint8_t> octets = encode(m, {cfg_.version, std::nullopt});
  l.qp->post_send(octets);
}

std::optional<std::size_t> LinkGroup::usable_slot(std::optional<std::size_t> except) const {
  for (std::size_t s = 0; s < kMaxLinks; ++s)
    if (links_[s].state == LinkState::kActive && s != except && links_[s].qp && !links_[s].qp->broken()) return s;
  return std::nullopt;
}

std::optional<std::size_t> LinkGroup::free_slot() const {
  for (std::size_t s = 0; s < kMaxLinks; ++s)
    if (links_[s].state == LinkState::kUnused) return s;
  return std::nullopt;
}

std::optional<std::size_t> LinkGroup::slot_of(std::uint8_t number) const {
  for (std::size_t s = 0; s < kMaxLinks; ++s)
    if (links_[s].state != LinkState::kUnused && links_[s].number == number) return s;
  return std::nullopt;
}

std::size_t LinkGroup::active_links() const {
  return static_cast<std::size_t>(
      std::count_if(links_.begin(), links_.end(), [](const Link& l) { return l.state == LinkState::kActive; }));
}

std::uint8_t LinkGroup::next_link_number() {
  // The server's choice (§3.5.1.5): Linux counts from 1, skipping 0 and
  // numbers in use (smcr_next_link_id).
  do {
    ++last_link_number_;
  } while (last_link_number_ == 0 || slot_of(last_link_number_));
  return last_link_number_;
}

void LinkGroup::link_active(std::size_t slot, Time now) {
  Link& l = links_[slot];
  l.state = LinkState::kActive;
  l.last_received = now;
  if (state_ == State::kConfirmingFirstLink) state_ = State::kActive;
  Event e;
  e.kind = Event::Kind::kLinkUp;
  e.link = l.number;
  emit(std::move(e));
}

void LinkGroup::clear_link(std::size_t slot, std::uint32_t reason, bool announce) {
  Link& l = links_[slot];
  if (l.state == LinkState::kUnused) return;
  if (l.qp != nullptr) {
    for (LocalRmb& r : local_rmbs_)
      if (r.rtokens[slot]) {
        host_.deregister_rmb(r.id, *l.qp);
        r.rtokens[slot].reset();
      }
    host_.destroy_qp(*l.qp);
  }
  for (PeerRmb& p : peer_rmbs_) p.rtokens[slot].reset();
  Event e;
  e.kind = Event::Kind::kLinkDeleted;
  e.link = l.number;
  e.reason = reason;
  l = Link{};
  if (announce) emit(std::move(e));
}

bool LinkGroup::move_connections(std::size_t slot) {
  const std::optional<std::size_t> to = usable_slot(slot);
  if (!to) return false;
  bool moved = false;
  for (Route& r : routes_) {
    if (r.slot != slot) continue;
    // rfc7609-2.3-failover-moves-connections: every connection the link
    // carried; the fault leaves all but the first behind for good, on no
    // link (kStranded).
    if (moved && cfg_.faults.has(GroupFault::kMoveFirstOnly)) {
      r.slot = kStranded;
      continue;
    }
    moved = true;
    // §4.6: each side moves its own sending; the connection is told so it
    // validates (F) and replays what the failed link did not complete.
    r.slot = *to;
    Event e;
    e.kind = Event::Kind::kConnectionMoved;
    e.token = r.route.token;
    e.link = links_[*to].number;
    emit(std::move(e));
  }
  return true;
}

void LinkGroup::link_down(std::size_t slot, Time now) {
  if (slot >= kMaxLinks || state_ == State::kTerminated || links_[slot].state == LinkState::kUnused) return;
  const std::uint8_t number = links_[slot].number;
  if (state_ == State::kConfirmingFirstLink) return terminate(delete_reason::kLostPath, now);
  // The link our DELETE LINK names failed: the peer freed its end first.
  // §3.5.5.1.3: ours waits for the reply all the same (it clears the link).
  if (flow_.kind == FlowKind::kDeleteLink && flow_.target == slot && flow_.on != slot) return;
  // The exchange running on or for this link cannot finish.
  if (flow_.kind != FlowKind::kNone && (flow_.on == slot || flow_.target == slot)) {
    if (flow_.kind == FlowKind::kAddLink && flow_.target == slot && flow_.on != slot)
      return abandon_new_link(delete_reason::kLostPath, now);
    if (flow_.kind == FlowKind::kConfirmRkey || flow_.kind == FlowKind::kDeleteRkey) {
      Event e;
      e.kind = flow_.kind == FlowKind::kConfirmRkey ? Event::Kind::kRmbRejected : Event::Kind::kRmbDeleted;
      e.rmb = flow_.rmb;
      e.reason = delete_reason::kLostPath;
      emit(std::move(e));
    }
    if (flow_.kind == FlowKind::kAddLink && links_[flow_.target].state == LinkState::kActivating)
      clear_link(flow_.target, delete_reason::kLostPath);
    // A link whose deletion cannot be answered now is gone all the same.
    if (flow_.kind == FlowKind::kDeleteLink && flow_.target != slot &&
        links_[flow_.target].state == LinkState::kDeleting)
      clear_link(flow_.target, flow_.reason);
    flow_ = {};
  }
  if (links_[slot].state == LinkState::kDeleting) {
    // Its DELETE LINK exchange already runs or waits: the link is gone now.
    clear_link(slot, delete_reason::kLostPath);
    if (active_links() == 0) return terminate(delete_reason::kLostPath, now);
    return start_next(now);
  }
  // §4.6: the connections move first; with no link left the group ends
  // (Linux smcr_link_down, smc_switch_conns).
  if (!move_connections(slot)) return terminate(delete_reason::kLostPath, now);
  if (cfg_.role == Role::kServer) {
    // The server deletes the link (§3.5.5.1.3) over a surviving one.
    links_[slot].state = LinkState::kDeleting;
    Request r;
    r.kind = FlowKind::kDeleteLink;
    r.link = number;
    r.orderly = true;  // as Linux's smc_llc_srv_delete_link_local
    r.reason = delete_reason::kLostPath;
    requests_.push_front(r);
    return start_next(now);
  }
  // §3.5.5.1.4: the client tells the server (disorderly: it treats the
  // link as deleted without waiting; Linux flags it orderly all the same).
  const std::optional<std::size_t> other = usable_slot(slot);
  send(*other, DeleteLink{false, false, true, number, delete_reason::kLostPath});
  clear_link(slot, delete_reason::kLostPath);
  start_next(now);
}

void LinkGroup::terminate(std::uint32_t reason, Time now) {
  (void)now;
  if (state_ == State::kTerminated) return;
  // §3.5.4: DELETE LINK with A over a link that still works (Linux
  // smc_llc_send_link_delete_all, from smc_lgr_cleanup).
  if (const std::optional<std::size_t> s = usable_slot())
    send(*s, DeleteLink{false, true, false, 0, reason});
  for (std::size_t s = 0; s < kMaxLinks; ++s) clear_link(s, reason);
  flow_ = {};
  requests_.clear();
  delayed_.reset();
  state_ = State::kTerminated;
  Event e;
  e.kind = Event::Kind::kTerminated;
  e.reason = reason;
  emit(std::move(e));
}

bool LinkGroup::request_termination(std::uint32_t reason, Time now) {
  if (state_ == State::kTerminated) return false;
  const std::optional<std::size_t> s = usable_slot();
  if (cfg_.role == Role::kServer || state_ != State::kActive || !s) {
    terminate(reason, now);
    return false;
  }
  send(*s, DeleteLink{false, true, false, 0, reason});
  return true;
}

// ------------------------------------------------------------ the queue

bool LinkGroup::queue(Request r, Time now) {
  if (state_ != State::kActive && state_ != State::kConfirmingFirstLink) return false;
  if (requests_.size() >= kMaxRequests) return false;
  // rfc7609-3.5.5.3-one-config-exchange: the request waits for the running
  // exchange (start_next); the fault starts it over the running one.
  if (cfg_.faults.has(GroupFault::kOverlapExchanges) && state_ == State::kActive && flow_.kind != FlowKind::kNone) {
    start_flow(r, now);
    return true;
  }
  requests_.push_back(r);
  start_next(now);
  return true;
}

void LinkGroup::end_flow(Time now) {
  flow_ = {};
  start_next(now);
}

void LinkGroup::start_next(Time now) {
  while (flow_.kind == FlowKind::kNone && state_ == State::kActive) {
    if (delayed_) {
      // The peer's kept request first (Linux: smc_llc_event_work).
      const std::vector<std::uint8_t> octets = std::move(*delayed_);
      delayed_.reset();
      if (links_[delayed_slot_].state != LinkState::kUnused) on_receive(delayed_slot_, octets, now);
      continue;
    }
    if (requests_.empty()) return;
    const Request r = requests_.front();
    requests_.pop_front();
    start_flow(r, now);
  }
}

bool LinkGroup::add_link(Time now) {
  Request r;
  r.kind = FlowKind::kAddLink;
  return queue(r, now);
}

bool LinkGroup::delete_link(std::uint8_t number, bool orderly, Time now) {
  Request r;
  r.kind = FlowKind::kDeleteLink;
  r.link = number;
  r.orderly = orderly;
  return queue(r, now);
}

bool LinkGroup::add_rmb(std::uint32_t rmb, Time now) {
  Request r;
  r.kind = FlowKind::kConfirmRkey;
  r.rmb = rmb;
  return queue(r, now);
}

bool LinkGroup::delete_rmb(std::uint32_t rmb, Time now) {
  Request r;
  r.kind = FlowKind::kDeleteRkey;
  r.rmb = rmb;
  return queue(r, now);
}

// ---------------------------------------------------------------- timers

std::optional<Time> LinkGroup::next_deadline() const {
  if (state_ == State::kTerminated || state_ == State::kIdle) return std::nullopt;
  std::optional<Time> next = flow_.deadline;
  const auto earlier = [&](Time t) {
    if (!next || t < *next) next = t;
  };
  for (const Link& l : links_) {
    if (l.state != LinkState::kActive) continue;
    if (l.test_deadline) earlier(*l.test_deadline);
    else if (cfg_.test_link_time.count() > 0) earlier(l.last_received + cfg_.test_link_time);
  }
  if (idle_deadline_) earlier(*idle_deadline_);
  return next;
}

void LinkGroup::on_time(Time now) {
  if (state_ == State::kTerminated || state_ == State::kIdle) return;
  if (flow_.deadline && now >= *flow_.deadline) on_flow_timeout(now);
  if (idle_deadline_ && now >= *idle_deadline_ && state_ == State::kActive) {
    // §3.5.4: the server ends the group, a client asks it to (Linux smc_lgr_free_work).
    idle_deadline_.reset();
    request_termination(delete_reason::kProgramInitiated, now);
  }
  for (std::size_t s = 0; s < kMaxLinks && state_ != State::kTerminated; ++s) {
    Link& l = links_[s];
    if (l.state != LinkState::kActive) continue;
    if (l.test_deadline) {
      // No reply within SMC_LLC_WAIT_TIME: the link is down (Linux
      // smc_llc_testlink_work, smcr_link_down_cond_sched).
      if (now >= *l.test_deadline) link_down(s, now);
      continue;
    }
    if (cfg_.test_link_time.count() > 0 && now - l.last_received >= cfg_.test_link_time) send_test_link(s, now);
  }
}

}  // namespace rdmaconf::smcr
