// The link group's exchanges (link_group.hpp): the first link's CONFIRM
// LINK, ADD LINK with its continuation and the new link's CONFIRM LINK,
// DELETE LINK, CONFIRM RKEY and DELETE RKEY, TEST LINK, and what each does
// when its wait runs out. Where RFC 7609 leaves a step open, Linux net/smc
// (smc_llc.c) decides, and the function it follows is named.
#include <algorithm>

#include "clc/messages.hpp"
#include "smcr/link_group.hpp"

namespace rdmaconf::smcr {
namespace {

// A new queue pair's first PSN: any 24-bit value serves (A.3.2); derived
// from its number so that runs repeat.
std::uint32_t initial_psn(const QueuePair& qp) { return (qp.qp_number() * 0x2545F491u) & 0xFFFFFF; }

}  // namespace

void LinkGroup::start_flow(const Request& r, Time now) {
  const bool server = cfg_.role == Role::kServer;
  switch (r.kind) {
    case FlowKind::kAddLink: {
      const std::optional<std::size_t> on = usable_slot();
      if (!on) return;
      if (server) return server_add_link(*on, now);
      if (!cfg_.alternate) return;  // nothing new to tell (Linux: a GID list of one is not sent)
      if (cfg_.version == 2) {
        // SMC v2: REQUEST ADD LINK with the client's GIDs (Linux
        // smc_llc_send_request_add_link); the flow waits for the server.
        RequestAddLink q;
        q.gids = {links_[*on].local.gid, cfg_.alternate->gid};
        send(*on, q);
        flow_ = Flow{.kind = FlowKind::kAddLink,
                     .await = Await::kAddLinkRequest,
                     .deadline = now + kLlcWaitTime,
                     .on = *on};
        return;
      }
      // rfc7609-3.5.5.1.2-client-add-unanswered: v1's ADD LINK from the
      // client only tells of the new RNIC; the client does not wait for an
      // answer (the fault does, and takes none as an error).
      AddLink a;
      a.mac = cfg_.alternate->mac;
      a.gid = cfg_.alternate->gid;
      send(*on, a);
      if (cfg_.faults.has(GroupFault::kClientAddWaits))
        flow_ = Flow{.kind = FlowKind::kAddLink, .await = Await::kAddLinkRequest, .deadline = now + kLlcWaitTime, .on = *on};
      return;
    }
    case FlowKind::kDeleteLink: {
      const std::optional<std::size_t> target = slot_of(r.link);
      if (!target) return;
      const std::size_t on = usable_slot(*target).value_or(*target);
      const std::uint32_t reason = r.reason ? r.reason : delete_reason::kOperatorInitiated;
      if (server) return server_delete_link(on, *target, DeleteLink{false, false, r.orderly, r.link, reason}, now);
      // §3.5.5.1.4: the client asks; the server runs the exchange. A
      // disorderly request means the client treats the link as gone now.
      send(on, DeleteLink{false, false, r.orderly, r.link, reason});
      if (!r.orderly) {
        move_connections(*target);
        clear_link(*target, reason);
        if (active_links() == 0) terminate(reason, now);
      }
      return;
    }
    case FlowKind::kConfirmRkey: {
      const std::optional<std::size_t> on = usable_slot();
      const bool known = std::any_of(local_rmbs_.begin(), local_rmbs_.end(),
                                     [&](const LocalRmb& l) { return l.id == r.rmb; });
      if (!on || known || local_rmbs_.size() >= kMaxRmbs) {
        Event e;
        e.kind = Event::Kind::kRmbRejected;
        e.rmb = r.rmb;
        return emit(std::move(e));
      }
      // §3.5.5.2.1: the new RMB is registered on every link, and its
      // RTokens go to the peer in one CONFIRM RKEY (Linux
      // smc_llc_send_confirm_rkey: three links fit one message).
      LocalRmb l;
      l.id = r.rmb;
      for (std::size_t s = 0; s < kMaxLinks; ++s)
        if (links_[s].state == LinkState::kActive && links_[s].qp) l.rtokens[s] = host_.register_rmb(r.rmb, *links_[s].qp);
      if (!l.rtokens[*on]) {
        Event e;
        e.kind = Event::Kind::kRmbRejected;
        e.rmb = r.rmb;
        return emit(std::move(e));
      }
      ConfirmRkey c;
      c.this_link = *l.rtokens[*on];
      // rfc7609-3.5.5.2.1-new-rmb-all-links: every other link's RToken too.
      for (std::size_t s = 0; s < kMaxLinks; ++s)
        if (s != *on && l.rtokens[s] && !cfg_.faults.has(GroupFault::kRkeyOneLink))
          c.other_links.push_back({links_[s].number, *l.rtokens[s]});
      local_rmbs_.push_back(l);
      send(*on, c);
      flow_ = Flow{.kind = FlowKind::kConfirmRkey,
                   .await = Await::kRkeyReply,
                   .deadline = now + kLlcWaitTime,
                   .on = *on,
                   .rmb = r.rmb};
      return;
    }
    case FlowKind::kDeleteRkey: {
      const std::optional<std::size_t> on = usable_slot();
      const auto l = std::find_if(local_rmbs_.begin(), local_rmbs_.end(),
                                  [&](const LocalRmb& x) { return x.id == r.rmb && x.confirmed; });
      if (!on || l == local_rmbs_.end() || !l->rtokens[*on]) return;
      // §3.5.5.2.2: the RMB's RKey on one link names it.
      DeleteRkey d;
      d.rkeys = {l->rtokens[*on]->rkey};
      send(*on, d);
      flow_ = Flow{.kind = FlowKind::kDeleteRkey,
                   .await = Await::kRkeyReply,
                   .deadline = now + kLlcWaitTime,
                   .on = *on,
                   .rmb = r.rmb};
      return;
    }
    case FlowKind::kNone:
    case FlowKind::kFirstLink: return;
  }
}

// ------------------------------------------------------------ CONFIRM LINK

void LinkGroup::first_link_confirmed(std::size_t slot, const LlcMessage& m, Time now) {
  // §3.5.1.5, A.3.1: the sender's own MAC, GID and QP, as CLC announced them.
  if (auto v = check::confirm_link_roce_info(m, links_[slot].peer)) {
    drop(Event::Drop::kWrongLinkEnd, slot, &m, v);
    return terminate(delete_reason::kProtocolViolation, now);
  }
  const ConfirmLink c = std::get<ConfirmLink>(fields_of(m));
  Link& l = links_[slot];
  l.peer_user_id = c.link_user_id;
  // rfc7609-a.4-cursor-skips-eyecatcher: RMBEs keep the eyecatcher unless
  // both sides announced Linux's flag; a peer that left A.3.1's reserved
  // bits 0 is an RFC 7609 peer, so this side's RMBEs and cursors follow it.
  rmbe_eyecatcher_ = cfg_.rmbe_eyecatcher ||
                     (c.no_rmbe_eyecatcher != kNoRmbeEyecatcher && !cfg_.faults.has(GroupFault::kEyecatcherIgnored));
  if (cfg_.role == Role::kClient) {
    // The server numbers the link; the reply confirms the number (§3.5.1.5).
    l.number = c.link_number;
    send(slot, ConfirmLink{true, no_rmbe_eyecatcher(), l.local.mac, l.local.gid, l.qp->qp_number(), l.number,
                           cfg_.link_user_id + l.number, cfg_.max_links});
  }
  link_active(slot, now);
  flow_ = {};
  // §3.5.1.6: the server tries a second link at once (Linux
  // smcr_serv_conf_first_link calls smc_llc_srv_add_link).
  if (cfg_.role == Role::kServer && cfg_.add_second_link && cfg_.max_links > 1) {
    Request r;
    r.kind = FlowKind::kAddLink;
    requests_.push_front(r);
  }
  start_next(now);
}

void LinkGroup::confirm_new_link(Time now) {
  // §3.5.1.6.2: CONFIRM LINK on the new link, as on the first; Linux waits
  // SMC_LLC_WAIT_FIRST_TIME for the reply (smc_llc_srv_conf_link).
  const Link& n = links_[flow_.target];
  send(flow_.target, ConfirmLink{false, no_rmbe_eyecatcher(), n.local.mac, n.local.gid, n.qp->qp_number(), n.number,
                                 cfg_.link_user_id + n.number, cfg_.max_links});
  flow_.await = Await::kConfirmLinkReply;
  flow_.deadline = now + kLlcWaitFirstTime;
}

void LinkGroup::new_link_confirmed(std::size_t slot, const LlcMessage& m, Time now) {
  const std::size_t t = flow_.target;
  const ConfirmLink c = std::get<ConfirmLink>(fields_of(m));
  if (c.link_number != links_[t].number) return drop(Event::Drop::kUnknownLink, slot, &m);
  // §3.5.1.6.2, A.3.1: the peer's end as its ADD LINK (reply) gave it.
  if (auto v = check::confirm_link_roce_info(m, links_[t].peer)) {
    drop(Event::Drop::kWrongLinkEnd, slot, &m, v);
    return abandon_new_link(delete_reason::kProtocolViolation, now);
  }
  Link& n = links_[t];
  n.peer_user_id = c.link_user_id;
  if (cfg_.role == Role::kClient)
    send(t, ConfirmLink{true, no_rmbe_eyecatcher(), n.local.mac, n.local.gid, n.qp->qp_number(), n.number,
                        cfg_.link_user_id + n.number, cfg_.max_links});
  link_active(t, now);
  end_flow(now);
}

// ---------------------------------------------------------------- ADD LINK

std::vector<RTokenPair> LinkGroup::rtoken_pairs(std::size_t on, std::size_t target) const {
  // §3.5.5.2.3: per RMB, its RKey on the link the message uses and its
  // RToken on the new link.
  std::vector<RTokenPair> pairs;
  for (const LocalRmb& r : local_rmbs_)
    if (r.confirmed && r.rtokens[on] && r.rtokens[target]) pairs.push_back({r.rtokens[on]->rkey, *r.rtokens[target]});
  return pairs;
}

void LinkGroup::take_pairs(std::size_t on, std::size_t target, const std::vector<RTokenPair>& pairs) {
  // A pair naming an RMB we do not know is ignored, as Linux's smc_rtoken_set does.
  for (const RTokenPair& p : pairs) {
    const std::size_t i = peer_rmb_with(on, p.reference_rkey);
    if (i < peer_rmbs_.size()) peer_rmbs_[i].rtokens[target] = p.new_rtoken;
  }
}

void LinkGroup::server_add_link(std::size_t on, Time now) {
  const std::optional<std::size_t> slot = free_slot();
  if (!slot || active_links() >= cfg_.max_links) return;
  // §3.5.1.6: a new QP, a link number, an RToken for every RMB on it; the
  // alternate RNIC if there is one, else the first link's (asymmetric).
  const LinkAddress local = cfg_.alternate.value_or(links_[on].local);
  QueuePair* qp = host_.create_qp(local.gid);
  if (qp == nullptr) return;
  Link& n = links_[*slot];
  n = Link{};
  n.state = LinkState::kActivating;
  n.number = next_link_number();
  n.qp = qp;
  n.local = local;
  n.last_received = now;
  for (LocalRmb& r : local_rmbs_)
    if (r.confirmed) r.rtokens[*slot] = host_.register_rmb(r.id, *qp);
  AddLink a;
  a.mac = n.local.mac;
  a.gid = n.local.gid;
  a.qp_number = qp->qp_number();
  a.link_number = n.number;
  a.mtu = cfg_.mtu;
  a.initial_psn = initial_psn(*qp);
  // SMC v2 carries every RToken in the ADD LINK itself (smc_llc_fill_ext_v2).
  if (cfg_.version == 2) a.v2_extension = AddLink::V2Extension{true, n.local.gid, rtoken_pairs(on, *slot), {}};
  send(on, a);
  flow_ = Flow{.kind = FlowKind::kAddLink,
               .await = Await::kAddLinkReply,
               .deadline = now + kLlcWaitTime,
               .on = on,
               .target = *slot};
}

void LinkGroup::server_add_link_reply(const AddLink& a, const LlcMessage& m, Time now) {
  const std::size_t on = flow_.on, t = flow_.target;
  Link& n = links_[t];
  if (a.reject) {
    // §3.5.1.6.2: a negative reply frees what the new link took.
    Event e;
    e.kind = Event::Kind::kLinkAddRejected;
    e.link = n.number;
    e.reason = a.reason_code;
    clear_link(t, 0, false);
    emit(std::move(e));
    // rfc7609-2.2.1-single-asymmetric-supported: the group goes on with
    // a single link; the fault ends it.
    if (cfg_.faults.has(GroupFault::kSingleLinkEnds)) return terminate(delete_reason::kLostPath, now);
    return end_flow(now);
  }
  // rfc7609-2.2.1-single-asymmetric-supported: a reply naming the RNIC the
  // peer's end of the first link uses makes an asymmetric link, which
  // serves as well; the fault gives it up.
  if (cfg_.faults.has(GroupFault::kAsymmetricRefused) && a.mac == links_[on].peer.mac && a.gid == links_[on].peer.gid)
    return abandon_new_link(delete_reason::kLostPath, now);
  // §3.5.1.6.1: the reply echoes our link number. One that does not set
  // up a link we do not know: it is deleted under the number it gave.
  if (auto v = check::add_link_link_number(m, n.number)) {
    drop(Event::Drop::kWrongLinkEnd, on, &m, v);
    Event e;
    e.kind = Event::Kind::kLinkAddRejected;
    e.link = n.number;
    e.reason = delete_reason::kProtocolViolation;
    clear_link(t, 0, false);
    emit(std::move(e));
    send(on, DeleteLink{false, false, false, a.link_number, delete_reason::kProtocolViolation});
    flow_.kind = FlowKind::kDeleteLink;
    flow_.await = Await::kDeleteLinkReply;
    flow_.reason = delete_reason::kProtocolViolation;
    flow_.deadline = now + kLlcWaitTime;
    return;
  }
  n.peer = check::LinkEnd{a.mac, a.gid, a.qp_number};
  n.peer_psn = a.initial_psn;
  // The reply's MTU is the one the client chose (at most ours, A.3.2).
  if (!host_.connect_path(*n.qp, a.qp_number, PeerPath{a.mac, a.gid, a.initial_psn, a.mtu, initial_psn(*n.qp)}))
    return abandon_new_link(delete_reason::kLostPath, now);
  if (a.v2_extension) take_pairs(on, t, a.v2_extension->rtokens);
  if (cfg_.version == 2) return confirm_new_link(now);
  // v1, §3.5.1.6.3: the RToken pairs go in ADD LINK CONTINUATIONs, the
  // server's first (Linux smc_llc_srv_rkey_exchange).
  flow_.pairs_sent = 0;
  flow_.peer_pairs_done = false;
  send_continuation(now);
}

void LinkGroup::client_add_link(std::size_t on, const LlcMessage& m, Time now) {
  const AddLink a = std::get<AddLink>(fields_of(m));
  const Link& cur = links_[on];
  // §3.5.1.6.1: the server's RNIC of the existing link again needs a
  // second RNIC here, or the link would be parallel (Linux compares the
  // GID, and in v1 the MAC too: smc_llc_cli_add_link).
  const bool same_server_port = a.gid == cur.peer.gid && (cfg_.version == 2 || a.mac == cur.peer.mac);
  // A.3.2, C.7.1: an MTU value App. A.2.3 does not enumerate is refused
  // with reason 2 (invalid MTU); that comes before the path's reason 1.
  const bool mtu_defined = clc::qp_mtu_octets(a.mtu) != 0 || cfg_.faults.has(GroupFault::kMtuUnchecked);
  const bool acceptable = mtu_defined && a.link_number != 0 && !slot_of(a.link_number) && cfg_.max_links > 1 &&
                          active_links() < cfg_.max_links && free_slot() && !(same_server_port && !cfg_.alternate);
  const LinkAddress local = cfg_.alternate.value_or(cur.local);  // asymmetric without one (§2.2.1)
  QueuePair* qp = acceptable ? host_.create_qp(local.gid) : nullptr;
  if (qp != nullptr &&
      !host_.connect_path(*qp, a.qp_number, PeerPath{a.mac, a.gid, a.initial_psn, std::min(cfg_.mtu, a.mtu), initial_psn(*qp)})) {
    host_.destroy_qp(*qp);
    qp = nullptr;
  }
  if (qp == nullptr) {
    // A.3.2: the reply with Z and the reason (invalid MTU, or no alternate
    // path), as Linux sends it: the request's 44 octets back
    // (smc_llc_cli_add_link_reject).
    AddLink r = a;
    r.reply = r.reject = true;
    r.reason_code = mtu_defined ? kAddLinkNoAlternatePath : kAddLinkInvalidMtu;
    r.v2_extension.reset();
    send(on, r);
    Event e;
    e.kind = Event::Kind::kLinkAddRejected;
    e.link = a.link_number;
    e.reason = r.reason_code;
    return emit(std::move(e));
  }
  const std::size_t slot = *free_slot();
  Link& n = links_[slot];
  n = Link{};
  n.state = LinkState::kActivating;
  n.number = a.link_number;
  n.qp = qp;
  n.local = local;
  n.peer = check::LinkEnd{a.mac, a.gid, a.qp_number};
  n.peer_psn = a.initial_psn;
  n.last_received = now;
  for (LocalRmb& r : local_rmbs_)
    if (r.confirmed) r.rtokens[slot] = host_.register_rmb(r.id, *qp);
  if (a.v2_extension) take_pairs(on, slot, a.v2_extension->rtokens);
  AddLink r;
  r.reply = true;
  r.mac = n.local.mac;
  r.gid = n.local.gid;
  r.qp_number = qp->qp_number();
  r.link_number = n.number;
  r.mtu = std::min(cfg_.mtu, a.mtu);
  r.initial_psn = initial_psn(*qp);
  if (cfg_.version == 2) r.v2_extension = AddLink::V2Extension{true, n.local.gid, rtoken_pairs(on, slot), {}};
  send(on, r);
  flow_ = {};
  flow_.kind = FlowKind::kAddLink;
  flow_.on = on;
  flow_.target = slot;
  if (cfg_.version == 2) {
    flow_.await = Await::kConfirmLinkRequest;
    flow_.deadline = now + kLlcWaitFirstTime;
  } else {
    flow_.await = Await::kAddLinkContinuation;
    flow_.deadline = now + kLlcWaitTime;
  }
}

void LinkGroup::send_continuation(Time now) {
  // A.3.3: NumRTokens counts the pairs still to go, this message's
  // included; two fit a message, and each side sends one per round even
  // with none left (Linux smc_llc_add_link_cont).
  const std::vector<RTokenPair> pairs = rtoken_pairs(flow_.on, flow_.target);
  const std::size_t sent = std::min(flow_.pairs_sent, pairs.size());
  const std::size_t left = pairs.size() - sent;
  AddLinkContinuation c;
  c.reply = cfg_.role == Role::kClient;
  c.link_number = links_[flow_.target].number;
  c.num_rtokens = static_cast<std::uint8_t>(std::min<std::size_t>(left, 255));
  const std::size_t now_sent = std::min(left, AddLinkContinuation::kPairs);
  c.rtokens.assign(pairs.begin() + static_cast<std::ptrdiff_t>(sent),
                   pairs.begin() + static_cast<std::ptrdiff_t>(sent + now_sent));
  flow_.pairs_sent = sent + now_sent;
  send(flow_.on, c);
  flow_.await = Await::kAddLinkContinuation;
  flow_.deadline = now + kLlcWaitTime;
}

void LinkGroup::on_continuation(const AddLinkContinuation& c, Time now) {
  if (c.link_number != links_[flow_.target].number) {
    Event e;
    e.kind = Event::Kind::kDropped;
    e.drop = Event::Drop::kUnknownLink;
    e.link = c.link_number;
    e.llc_type = llc_type::kAddLinkCont;
    return emit(std::move(e));
  }
  const std::size_t announced = c.num_rtokens.value_or(static_cast<std::uint8_t>(c.rtokens.size()));
  std::vector<RTokenPair> pairs = c.rtokens;
  pairs.resize(std::min(pairs.size(), announced));
  take_pairs(flow_.on, flow_.target, pairs);
  flow_.peer_pairs_done = announced <= AddLinkContinuation::kPairs;
  const auto ours_done = [&] { return flow_.pairs_sent >= rtoken_pairs(flow_.on, flow_.target).size(); };
  if (cfg_.role == Role::kServer) {
    // Ours went first: this answers it.
    if (ours_done() && flow_.peer_pairs_done) return confirm_new_link(now);
    return send_continuation(now);
  }
  send_continuation(now);
  if (ours_done() && flow_.peer_pairs_done) {
    // Linux waits SMC_LLC_WAIT_FIRST_TIME for the server's CONFIRM LINK (smc_llc_cli_conf_link).
    flow_.await = Await::kConfirmLinkRequest;
    flow_.deadline = now + kLlcWaitFirstTime;
  }
}

void LinkGroup::abandon_new_link(std::uint32_t reason, Time now) {
  // §3.5.1.6.2: a failed CONFIRM LINK exchange on the new link is told to
  // the peer with DELETE LINK over the existing link, and the server waits
  // for that to be answered before data flows on.
  const std::size_t on = flow_.on, t = flow_.target;
  const std::uint8_t number = links_[t].number;
  Event e;
  e.kind = Event::Kind::kLinkAddRejected;
  e.link = number;
  e.reason = reason;
  clear_link(t, reason, false);
  emit(std::move(e));
  if (on != t && links_[on].state == LinkState::kActive) {
    send(on, DeleteLink{false, false, false, number, reason});
    if (cfg_.role == Role::kServer) {
      flow_.kind = FlowKind::kDeleteLink;
      flow_.await = Await::kDeleteLinkReply;
      flow_.reason = reason;
      flow_.deadline = now + kLlcWaitTime;
      // rfc7609-3.5.1.6.2-no-data-until-delete-answered: data_held() until
      // the reply ends this flow.
      flow_.new_link_failed = true;
      return;
    }
  }
  end_flow(now);
}

// ------------------------------------------------------------- DELETE LINK

void LinkGroup::server_delete_link(std::size_t on, std::size_t target, const DeleteLink& request, Time now) {
  // §3.5.5.1.3: connections move to the surviving links; the client's
  // answer lets both sides free the link. Linux sends a client's request
  // back as its own (smc_llc_process_srv_delete_link).
  move_connections(target);
  links_[target].state = LinkState::kDeleting;
  DeleteLink out = request;
  out.reply = false;
  send(on, out);
  flow_ = Flow{.kind = FlowKind::kDeleteLink,
               .await = Await::kDeleteLinkReply,
               .deadline = now + kLlcWaitTime,
               .on = on,
               .target = target,
               .reason = request.reason_code};
  // rfc7609-3.5.5.1.3-server-keeps-link-until-reply: the link's QP stays
  // (and answers) until the reply; the fault frees it at once.
  if (cfg_.faults.has(GroupFault::kFreeLinkOnDelete) && target != on) clear_link(target, request.reason_code);
}

void LinkGroup::on_delete_link_request(std::size_t slot, const DeleteLink& d, Time now) {
  const std::optional<std::size_t> target = slot_of(d.link_number);
  if (cfg_.role == Role::kServer) {
    // The client asks (§3.5.5.1.4); a link already gone or going is not
    // deleted twice (Linux: "asymmetric link already deleted").
    if (!target) return drop(Event::Drop::kUnknownLink, slot, nullptr);
    if (links_[*target].state == LinkState::kDeleting) return drop(Event::Drop::kCollision, slot, nullptr);
    return server_delete_link(slot, *target, d, now);
  }
  // §3.5.5.1.3: the client must answer positively; for a link it does not
  // have Linux answers with reason "unknown link ID" (smc_llc_process_cli_delete_link).
  DeleteLink r = d;
  r.reply = true;
  if (!target) {
    r.reason_code = delete_reason::kUnknownLink;
    if (!cfg_.faults.has(GroupFault::kUnknownLinkIgnored)) send(slot, r);
    return drop(Event::Drop::kUnknownLink, slot, nullptr);
  }
  r.reason_code = 0;
  send(slot, r);
  move_connections(*target);
  clear_link(*target, d.reason_code);
  if (active_links() == 0) terminate(d.reason_code, now);
}

// ------------------------------------------------------------------ RKEYs

void LinkGroup::on_rkey_request(std::size_t slot, const LlcMessage& m) {
  if (m.base_type() == llc_type::kConfirmRkey) {
    const ConfirmRkey c = std::get<ConfirmRkey>(fields_of(m));
    ConfirmRkey r = c;
    r.reply = true;
    const std::size_t count = c.num_tkns.value_or(static_cast<std::uint8_t>(c.other_links.size()));
    const bool links_changing = flow_.kind == FlowKind::kAddLink || flow_.kind == FlowKind::kDeleteLink;
    const std::size_t used = static_cast<std::size_t>(std::count_if(peer_rmbs_.begin(), peer_rmbs_.end(), [](const PeerRmb& p) {
      return std::any_of(p.rtokens.begin(), p.rtokens.end(), [](const auto& t) { return t.has_value(); });
    }));
    std::size_t i = peer_rmb_with(slot, c.this_link.rkey);
    // §3.5.5.3.1-2: while links are added or deleted the RKeys cannot
    // change: negative, retry later (C). Linux takes at most three RTokens
    // (smc_llc_rmt_conf_rkey) and 255 RMBs (SMC_RMBS_PER_LGR_MAX).
    if (links_changing || count > ConfirmRkey::kOtherLinks + 1 || (i == peer_rmbs_.size() && used >= kMaxRmbs)) {
      r.negative = r.retry = true;
      return send(slot, r);
    }
    if (i == peer_rmbs_.size()) {
      // A free entry first: routes keep their RMB's index.
      i = static_cast<std::size_t>(std::find_if(peer_rmbs_.begin(), peer_rmbs_.end(), [](const PeerRmb& p) {
            return std::none_of(p.rtokens.begin(), p.rtokens.end(), [](const auto& t) { return t.has_value(); });
          }) - peer_rmbs_.begin());
      if (i == peer_rmbs_.size()) peer_rmbs_.emplace_back();
    }
    PeerRmb& p = peer_rmbs_[i];
    p.rtokens[slot] = c.this_link;
    for (std::size_t k = 0; k < c.other_links.size() && k < count; ++k)
      if (const auto s = slot_of(c.other_links[k].link_number); s && *s != slot) p.rtokens[*s] = c.other_links[k].rtoken;
    Event e;
    e.kind = Event::Kind::kPeerRmbAdded;
    e.link = links_[slot].number;
    e.rtoken = c.this_link;
    emit(std::move(e));
    return send(slot, r);
  }
  // DELETE RKEY (§3.5.5.2.2): each RKey names an RMB by its key on this
  // link; one we do not know is an error (v1: a bit of the mask, MSB first;
  // v2: counted, Linux smc_llc_rmt_delete_rkey).
  const DeleteRkey d = std::get<DeleteRkey>(fields_of(m));
  DeleteRkey r = d;
  r.reply = true;
  std::vector<std::uint32_t> keys = d.rkeys;
  if (m.version == 1) keys.resize(std::min<std::size_t>(d.count.value_or(static_cast<std::uint8_t>(d.rkeys.size())),
                                                        DeleteRkey::kRkeys), 0);
  std::uint8_t mask = 0, invalid = 0;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const std::size_t i = peer_rmb_with(slot, keys[k]);
    if (i == peer_rmbs_.size()) {
      if (k < DeleteRkey::kRkeys) mask = static_cast<std::uint8_t>(mask | (0x80 >> k));
      if (invalid < 255) ++invalid;
      continue;
    }
    peer_rmbs_[i] = PeerRmb{};
    Event e;
    e.kind = Event::Kind::kPeerRmbDeleted;
    e.link = links_[slot].number;
    e.rtoken.rkey = keys[k];
    emit(std::move(e));
  }
  r.error_mask = m.version == 1 ? mask : invalid;
  r.negative = r.error_mask != 0;
  send(slot, r);
}

void LinkGroup::on_rkey_reply(const LlcMessage& m, Time now) {
  const auto l = std::find_if(local_rmbs_.begin(), local_rmbs_.end(),
                              [&](const LocalRmb& x) { return x.id == flow_.rmb; });
  Event e;
  e.rmb = flow_.rmb;
  bool release = true;
  if (flow_.kind == FlowKind::kConfirmRkey) {
    const ConfirmRkey c = std::get<ConfirmRkey>(fields_of(m));
    e.kind = c.negative ? Event::Kind::kRmbRejected : Event::Kind::kRmbConfirmed;
    e.reason = c.negative && c.retry ? 1 : 0;
    if (!c.negative && l != local_rmbs_.end()) {
      l->confirmed = true;
      release = false;
      rkey_retries_ = 0;
    }
    // rfc7609-a.3.5-retry-after-negative: with C the exchange runs anew,
    // its RTokens registered again on the links there are then, once no
    // exchange of ours runs (start_next after end_flow): this side, the
    // server or the client, knows no other change of its own. Without C the
    // RMB waits for its owner's next need of it.
    bool retry = c.negative && c.retry;
    if (cfg_.faults.has(GroupFault::kRkeyNoRetry)) retry = false;
    if (cfg_.faults.has(GroupFault::kRkeyRetryUnasked)) retry = c.negative;
    if (retry && rkey_retries_ < kMaxRkeyRetries && requests_.size() < kMaxRequests) {
      ++rkey_retries_;
      Request again;
      again.kind = FlowKind::kConfirmRkey;
      again.rmb = flow_.rmb;
      requests_.push_front(again);
    }
  } else {
    // §3.5.5.2.2: the owner frees the RMB once the reply is in.
    const DeleteRkey d = std::get<DeleteRkey>(fields_of(m));
    e.kind = Event::Kind::kRmbDeleted;
    e.reason = d.negative ? d.error_mask : 0;
  }
  if (release && l != local_rmbs_.end()) {
    for (std::size_t s = 0; s < kMaxLinks; ++s)
      if (l->rtokens[s] && links_[s].qp) host_.deregister_rmb(l->id, *links_[s].qp);
    local_rmbs_.erase(l);
  }
  emit(std::move(e));
  end_flow(now);
}

// --------------------------------------------------------------- TEST LINK

void LinkGroup::send_test_link(std::size_t slot, Time now) {
  // A.3.8: the reply echoes the User Data; a counter in it (Linux sends
  // zeros) tells which request a reply answers.
  Link& l = links_[slot];
  ++test_counter_;
  l.test_user_data = {};
  for (std::size_t i = 0; i < 4; ++i) l.test_user_data[i] = static_cast<std::uint8_t>(test_counter_ >> (24 - 8 * i));
  send(slot, TestLink{false, l.test_user_data});
  l.test_deadline = now + kLlcWaitTime;
}

void LinkGroup::on_test_link_reply(std::size_t slot, const LlcMessage& m) {
  Link& l = links_[slot];
  if (auto v = check::test_link_echo(m, l.test_user_data)) return drop(Event::Drop::kNoEcho, slot, &m, v);
  l.test_deadline.reset();
  Event e;
  e.kind = Event::Kind::kTestLinkAnswered;
  e.link = l.number;
  emit(std::move(e));
}

// ----------------------------------------------------------------- timeouts

void LinkGroup::on_flow_timeout(Time now) {
  switch (flow_.kind) {
    case FlowKind::kFirstLink:
      // No CONFIRM LINK (reply): the group never came up (Linux declines
      // in CLC with SMC_CLC_DECL_TIMEOUT_CL).
      return terminate(delete_reason::kLostPath, now);
    case FlowKind::kAddLink:
      switch (flow_.await) {
        case Await::kAddLinkRequest:
          // §3.5.5.1.2: no answer is an answer.
          if (cfg_.version == 1 && cfg_.faults.has(GroupFault::kClientAddWaits))
            return terminate(delete_reason::kLostPath, now);
          return end_flow(now);
        case Await::kConfirmLinkReply:
        case Await::kConfirmLinkRequest: return abandon_new_link(delete_reason::kLostPath, now);
        default: {
          // No ADD LINK reply or continuation: Linux frees the new link
          // and sends nothing (smc_llc_srv_add_link, smc_llc_cli_add_link).
          Event e;
          e.kind = Event::Kind::kLinkAddRejected;
          e.link = links_[flow_.target].number;
          e.reason = delete_reason::kLostPath;
          clear_link(flow_.target, 0, false);
          emit(std::move(e));
          return end_flow(now);
        }
      }
    case FlowKind::kDeleteLink:
      // No reply: the link goes all the same (Linux smc_llc_process_srv_delete_link).
      if (links_[flow_.target].state != LinkState::kUnused) clear_link(flow_.target, flow_.reason);
      if (active_links() == 0) return terminate(flow_.reason, now);
      return end_flow(now);
    case FlowKind::kConfirmRkey:
    case FlowKind::kDeleteRkey: {
      const auto l = std::find_if(local_rmbs_.begin(), local_rmbs_.end(),
                                  [&](const LocalRmb& x) { return x.id == flow_.rmb; });
      if (l != local_rmbs_.end()) {
        for (std::size_t s = 0; s < kMaxLinks; ++s)
          if (l->rtokens[s] && links_[s].qp) host_.deregister_rmb(l->id, *links_[s].qp);
        local_rmbs_.erase(l);
      }
      Event e;
      e.kind = flow_.kind == FlowKind::kConfirmRkey ? Event::Kind::kRmbRejected : Event::Kind::kRmbDeleted;
      e.rmb = flow_.rmb;
      e.reason = kNoReply;
      emit(std::move(e));
      return end_flow(now);
    }
    case FlowKind::kNone: return;
  }
}

}  // namespace rdmaconf::smcr
