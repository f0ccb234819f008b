// The LLC side of RoceObserver (observer_roce.hpp): the link lifecycle
// (RFC 7609 §3.5.1.5-3.5.1.6, §3.5.5.1), the RMB rkeys per owner and link
// (§3.5.5.2, App. A.3.3, A.3.5-A.3.7; ADD LINK v2 RTokens as Linux
// smc_llc.c sends them) and request/response pairing per link (App. A.3,
// §3.3).
#include "analysis/hex.hpp"
#include "analysis/observer_roce.hpp"

namespace rdmaconf::analysis {

namespace {

template <typename Spec>
std::uint64_t body(const smcr::LlcMessage& m, typename Spec::Field f) {
  return m.get(Spec::fields[static_cast<std::size_t>(f)]);
}

template <typename Spec>
wire::Bytes body_octets(const smcr::LlcMessage& m, typename Spec::Field f) {
  const wire::FieldDecl& d = Spec::fields[static_cast<std::size_t>(f)];
  return m.body.subspan(d.bit_offset / 8, d.bit_width / 8);
}

// One entry of a v2 variable part (entry_count entries of `decl` octets).
wire::Bytes entry(const smcr::LlcMessage& m, const wire::HeaderDecl& decl, std::size_t k) {
  return m.entry_octets.subspan(k * decl.size_octets, decl.size_octets);
}

// A reply with Z set declines (ADD LINK rejects, CONFIRM RKEY and DELETE
// RKEY are negative): bit 25 for ADD LINK, 26 for the rkey messages.
bool negative(const smcr::LlcMessage& m) {
  switch (m.base_type()) {
    case smcr::llc_type::kAddLink: return m.flag(smcr::kAddLinkFlags[1]) != 0;
    case smcr::llc_type::kConfirmRkey: return m.flag(smcr::kConfirmRkeyFlags[2]) != 0;
    case smcr::llc_type::kConfirmRkeyCont:
    case smcr::llc_type::kDeleteRkey: return m.flag(smcr::kRkeyReplyFlags[2]) != 0;
    default: return false;
  }
}

}  // namespace

std::size_t RoceObserver::find_link(int receiver_side, std::uint32_t qp,
                                    const std::optional<std::array<std::uint8_t, 16>>& receiver) const {
  // The latest link wins: a QP number may come back once its link was deleted.
  static constexpr std::array<std::uint8_t, 16> kNone{};
  for (std::size_t i = links_.size(); i-- > 0;) {
    const Link& l = links_[i];
    if (l.qp[receiver_side] == qp && (!receiver || l.gid[receiver_side] == kNone || l.gid[receiver_side] == *receiver))
      return i;
  }
  return links_.size();
}

std::size_t RoceObserver::link_of(int side, std::uint32_t dest_qp,
                                  const std::optional<std::array<std::uint8_t, 16>>& receiver) {
  // The receiver's QP on the receiver's GID names the link (on_packet).
  const int r = 1 - side;
  if (const std::size_t i = find_link(r, dest_qp, receiver); i < links_.size()) {
    if (receiver && links_[i].gid[r] == std::array<std::uint8_t, 16>{}) links_[i].gid[r] = *receiver;
    return i;
  }
  if (links_.size() >= kMaxLinks) {
    // Too many links: the last one stands for the rest, unjudged.
    overflow_ = true;
    links_.back().judged = false;
    links_.back().state = check::LinkState::kUnknown;
    return links_.size() - 1;
  }
  Link l;
  l.qp[r] = dest_qp;
  if (receiver) l.gid[r] = *receiver;
  links_.push_back(l);
  return links_.size() - 1;
}

std::size_t RoceObserver::link_numbered(std::uint8_t number) const {
  for (std::size_t i = links_.size(); i-- > 0;)
    if (links_[i].number == number && links_[i].state != check::LinkState::kDeleted) return i;
  return links_.size();
}

const RoceObserver::Rkey* RoceObserver::find_rkey(int owner, std::size_t link, std::uint32_t rkey) const {
  // The latest announcement counts: a deleted rkey may be announced again.
  for (std::size_t i = rkeys_.size(); i-- > 0;)
    if (rkeys_[i].owner == owner && rkeys_[i].link == link && rkeys_[i].rkey == rkey) return &rkeys_[i];
  return nullptr;
}

std::size_t RoceObserver::announce_rkey(int owner, std::size_t link, std::uint32_t rkey, std::uint64_t va,
                                        std::optional<std::size_t> rmb, FrameNo frame, std::string_view by) {
  for (std::size_t i = rkeys_.size(); i-- > 0;) {
    Rkey& k = rkeys_[i];
    if (k.owner != owner || k.link != link || k.rkey != rkey) continue;
    if (k.deleted) break;  // announced again: a new entry
    if (rmb) k.rmb = *rmb;
    k.va = va;
    return k.rmb;
  }
  if (rkeys_.size() >= kMaxRkeys) {
    overflow_ = true;
    return rmb ? *rmb : rmbs_++;
  }
  Rkey k;
  k.owner = owner;
  k.link = link;
  k.rkey = rkey;
  k.va = va;
  k.rmb = rmb ? *rmb : rmbs_++;
  k.announced_in = frame;
  k.announced_by = by;
  rkeys_.push_back(k);
  ++stats_.rkeys_announced;
  return k.rmb;
}

void RoceObserver::check_llc(Side side, FrameNo frame, std::size_t link, const smcr::LlcMessage& m) {
  const int s = static_cast<int>(side);
  Link& l = links_[link];
  // RFC 7609 §3.5.1.5: a link starts with CONFIRM LINK; a link whose first
  // packet is anything else was joined mid-life and is not judged.
  const bool confirm_link = m.base_type() == smcr::llc_type::kConfirmLink;
  if (l.state == check::LinkState::kUnknown && !l.traffic && confirm_link && !m.reply()) {
    l.judged = true;
    l.state = check::LinkState::kConfirming;
  }
  if (confirm_link && !m.reply()) data_start_ = m.flag(smcr::kConfirmLinkFlags[2]) == 3 ? 0u : 4u;
  // §3.5.1.5, A.3.1: the sender names its own end of this link, as it
  // announced it. The announced end stays the link's (on_llc_request and
  // on_llc_reply take the message's only for a link nobody announced), so
  // one wrong CONFIRM LINK is reported once, not again by every packet
  // addressed to the announced QP.
  if (confirm_link && l.judged && l.announced[s])
    if (auto v = check::confirm_link_roce_info(m, *l.announced[s])) {
      const std::string where = l.announced_in[s] ? "its ADD LINK (frame " + std::to_string(l.announced_in[s]) + ")"
                                                  : std::string("CLC");
      // A GID is told by its first octet that differs (octets 10-25 of the message).
      const wire::FieldDecl& gid =
          smcr::ConfirmLinkSpec::fields[static_cast<std::size_t>(smcr::ConfirmLinkSpec::Field::Gid)];
      const std::string field = std::string(v->field) +
                                (v->field == gid.name ? " octet " + std::to_string(v->octet - 4 - gid.bit_offset / 8)
                                                      : std::string());
      violate(*v, side, frame,
              std::string(m.reply() ? "CONFIRM LINK reply" : "CONFIRM LINK") + ": " + field + " is " + hex(v->seen) +
                  ", the sender gave " + hex(v->expected) + " for this link in " + where);
    }
  if (!m.reply()) {
    OpenRequest r;
    r.side = s;
    r.link = link;
    r.type = m.type();
    r.frame = frame;
    on_llc_request(s, frame, link, m, r);
    if (open_requests_.size() >= kMaxOpenRequests) {
      open_requests_.erase(open_requests_.begin());
      overflow_ = true;
    }
    open_requests_.push_back(std::move(r));
    return;
  }
  // §3.3: the response flows on its request's link; the oldest open request
  // of the type from the peer on this link is the one answered.
  auto it = open_requests_.begin();
  while (it != open_requests_.end() && (it->side != 1 - s || it->link != link || it->type != m.type())) ++it;
  if (it == open_requests_.end()) {
    if (links_[link].judged && !overflow_)
      if (auto v = check::llc_reply_answers_request(m, 0))
        violate(*v, side, frame,
                std::string(m.info->name) + " reply without an open " + std::string(m.info->name) +
                    " request from the peer on this link");
    return;
  }
  const OpenRequest r = std::move(*it);
  open_requests_.erase(it);
  ++stats_.llc_pairs;
  notes_.request_in = r.frame;
  on_llc_reply(s, frame, link, m, r);
}

void RoceObserver::on_llc_request(int s, FrameNo frame, std::size_t link, const smcr::LlcMessage& m,
                                  OpenRequest& r) {
  using CL = smcr::ConfirmLinkSpec::Field;
  using AL = smcr::AddLinkSpec::Field;
  switch (m.base_type()) {
    case smcr::llc_type::kConfirmLink: {
      // A.3.1: the sender's QP, GID and the link number the server assigned.
      Link& l = links_[link];
      l.number = static_cast<std::uint8_t>(body<smcr::ConfirmLinkSpec>(m, CL::LinkNumber));
      if (l.announced[s]) break;
      l.qp[s] = static_cast<std::uint32_t>(body<smcr::ConfirmLinkSpec>(m, CL::QpNumber));
      const wire::Bytes g = body_octets<smcr::ConfirmLinkSpec>(m, CL::Gid);
      std::copy(g.begin(), g.end(), l.gid[s].begin());
      break;
    }
    case smcr::llc_type::kAddLink: {
      // A.3.2: the new link, as its offerer sees it; v2 adds its RTokens.
      Link n;
      n.qp[s] = static_cast<std::uint32_t>(body<smcr::AddLinkSpec>(m, AL::QpNumber));
      n.number = static_cast<std::uint8_t>(body<smcr::AddLinkSpec>(m, AL::LinkNumber));
      const wire::Bytes g = body_octets<smcr::AddLinkSpec>(m, AL::Gid);
      std::copy(g.begin(), g.end(), n.gid[s].begin());
      // A.3.2: the offerer's end of the new link, as its CONFIRM LINK must name it.
      n.announced[s] = check::LinkEnd{body<smcr::AddLinkSpec>(m, AL::Mac), n.gid[s], *n.qp[s]};
      n.announced_in[s] = frame;
      n.state = check::LinkState::kAdding;
      n.judged = links_[link].judged;
      if (links_.size() >= kMaxLinks) {
        overflow_ = true;
        break;
      }
      links_.push_back(n);
      r.link_number = n.number;
      r.new_link = links_.size() - 1;
      announce_rtokens(s, frame, link, r.new_link, m);
      break;
    }
    case smcr::llc_type::kAddLinkCont: announce_rtokens(s, frame, link, links_.size(), m); break;
    case smcr::llc_type::kDeleteLink: {
      r.all = m.flag(smcr::kDeleteLinkFlags[1]) != 0;
      r.link_number = static_cast<std::uint8_t>(body<smcr::DeleteLinkSpec>(m, smcr::DeleteLinkSpec::Field::LinkNumber));
      for (Link& l : links_)
        if ((r.all || l.number == r.link_number) && l.state != check::LinkState::kDeleted &&
            l.state != check::LinkState::kUnknown) {
          l.state = check::LinkState::kDeleting;
          l.reported[0] = l.reported[1] = false;
        }
      // §4.6.1: connections move to a surviving link, and a failover may
      // raise the sequence numbers beyond the last failed one.
      for (CdcConnection& c : connections_) c.resync[0] = c.resync[1] = true;
      break;
    }
    case smcr::llc_type::kConfirmRkey: {
      // A.3.5: a new RMB of the sender, its RToken on this link and on up to
      // two others (the continuation brings more).
      using CR = smcr::ConfirmRkeySpec::Field;
      const std::size_t rmb = announce_rkey(s, link, static_cast<std::uint32_t>(body<smcr::ConfirmRkeySpec>(m, CR::RKey)),
                                            body<smcr::ConfirmRkeySpec>(m, CR::VirtualAddress), rmbs_, frame,
                                            "CONFIRM RKEY");
      if (rmb == rmbs_) ++rmbs_;
      last_confirm_rkey_rmb_[s] = rmb;
      const CR pairs[2][3] = {{CR::Link1, CR::RKey1, CR::Va1}, {CR::Link2, CR::RKey2, CR::Va2}};
      for (const auto& p : pairs) {
        const auto number = static_cast<std::uint8_t>(body<smcr::ConfirmRkeySpec>(m, p[0]));
        const std::size_t other = number ? link_numbered(number) : links_.size();
        if (other < links_.size())
          announce_rkey(s, other, static_cast<std::uint32_t>(body<smcr::ConfirmRkeySpec>(m, p[1])),
                        body<smcr::ConfirmRkeySpec>(m, p[2]), rmb, frame, "CONFIRM RKEY");
      }
      break;
    }
    case smcr::llc_type::kConfirmRkeyCont: {
      using CC = smcr::ConfirmRkeyContSpec::Field;
      if (!last_confirm_rkey_rmb_[s]) break;
      const CC pairs[3][3] = {{CC::Link1, CC::RKey1, CC::Va1}, {CC::Link2, CC::RKey2, CC::Va2},
                              {CC::Link3, CC::RKey3, CC::Va3}};
      for (const auto& p : pairs) {
        const auto number = static_cast<std::uint8_t>(body<smcr::ConfirmRkeyContSpec>(m, p[0]));
        const std::size_t other = number ? link_numbered(number) : links_.size();
        if (other < links_.size())
          announce_rkey(s, other, static_cast<std::uint32_t>(body<smcr::ConfirmRkeyContSpec>(m, p[1])),
                        body<smcr::ConfirmRkeyContSpec>(m, p[2]), *last_confirm_rkey_rmb_[s], frame,
                        "CONFIRM RKEY CONTINUATION");
      }
      break;
    }
    case smcr::llc_type::kDeleteRkey: {
      // A.3.7, §3.5.5.2.2: the sender's RMBs, each named by its rkey on this
      // link; deleted on every link once the peer answered.
      std::vector<std::uint32_t> listed;
      if (m.version == 1) {
        using DR = smcr::DeleteRkeySpec::Field;
        const auto count = std::min<std::uint64_t>(body<smcr::DeleteRkeySpec>(m, DR::Count), 8);
        for (std::uint64_t k = 0; k < count; ++k)
          listed.push_back(static_cast<std::uint32_t>(
              m.get(smcr::DeleteRkeySpec::fields[static_cast<std::size_t>(DR::RKey1) + k])));
      } else {
        for (std::size_t k = 0; k < m.entry_count; ++k)
          listed.push_back(static_cast<std::uint32_t>(
              wire::read_field(entry(m, smcr::RkeySpec::decl, k), smcr::RkeySpec::fields[0])));
      }
      for (std::uint32_t rkey : listed)
        if (const Rkey* k = find_rkey(s, link, rkey); k && !k->deleted)
          for (std::size_t i = 0; i < rkeys_.size(); ++i)
            if (rkeys_[i].owner == s && rkeys_[i].rmb == k->rmb && !rkeys_[i].deleted) r.rkeys.push_back(i);
      break;
    }
    case smcr::llc_type::kTestLink: {
      const wire::Bytes u = body_octets<smcr::TestLinkSpec>(m, smcr::TestLinkSpec::Field::UserData);
      std::copy(u.begin(), u.end(), r.user_data.begin());
      break;
    }
    default: break;
  }
}

void RoceObserver::announce_rtokens(int s, FrameNo frame, std::size_t link, std::size_t new_link,
                                    const smcr::LlcMessage& m) {
  // Each pair names an RMB by its rkey on the link the message flows on and
  // gives its rkey and address on the new link (A.3.3, Figure 34).
  const auto one = [&](std::uint32_t reference, std::uint32_t rkey, std::uint64_t va) {
    if (rkey == 0 || new_link >= links_.size()) return;  // an unused pair is zeros
    const Rkey* ref = find_rkey(s, link, reference);
    announce_rkey(s, new_link, rkey, va, ref && !ref->deleted ? std::optional<std::size_t>(ref->rmb) : std::nullopt,
                  frame, "ADD LINK RTokens");
  };
  if (m.base_type() == smcr::llc_type::kAddLinkCont) {
    using AC = smcr::AddLinkContSpec::Field;
    new_link = link_numbered(static_cast<std::uint8_t>(body<smcr::AddLinkContSpec>(m, AC::LinkNumber)));
    one(static_cast<std::uint32_t>(body<smcr::AddLinkContSpec>(m, AC::RefRKey1)),
        static_cast<std::uint32_t>(body<smcr::AddLinkContSpec>(m, AC::NewRKey1)),
        body<smcr::AddLinkContSpec>(m, AC::NewVa1));
    one(static_cast<std::uint32_t>(body<smcr::AddLinkContSpec>(m, AC::RefRKey2)),
        static_cast<std::uint32_t>(body<smcr::AddLinkContSpec>(m, AC::NewRKey2)),
        body<smcr::AddLinkContSpec>(m, AC::NewVa2));
    return;
  }
  if (m.info->entries != smcr::LlcEntries::kAddLinkV2RTokens) return;
  using RP = smcr::RkeyPairSpec::Field;
  for (std::size_t k = 0; k < m.entry_count; ++k) {
    const wire::Bytes e = entry(m, smcr::RkeyPairSpec::decl, k);
    const auto f = [&](RP x) { return wire::read_field(e, smcr::RkeyPairSpec::fields[static_cast<std::size_t>(x)]); };
    one(static_cast<std::uint32_t>(f(RP::ReferenceRKey)), static_cast<std::uint32_t>(f(RP::NewRKey)),
        f(RP::NewVirtualAddress));
  }
}

void RoceObserver::on_llc_reply(int s, FrameNo frame, std::size_t link, const smcr::LlcMessage& m,
                                const OpenRequest& r) {
  const Side side = static_cast<Side>(s);
  switch (m.base_type()) {
    case smcr::llc_type::kConfirmLink: {
      Link& l = links_[link];
      if (!l.announced[s])
        l.qp[s] = static_cast<std::uint32_t>(body<smcr::ConfirmLinkSpec>(m, smcr::ConfirmLinkSpec::Field::QpNumber));
      if (l.state == check::LinkState::kConfirming || l.state == check::LinkState::kUnknown) {
        l.state = check::LinkState::kUp;
        l.reported[0] = l.reported[1] = false;
      }
      ++stats_.links_confirmed;
      break;
    }
    case smcr::llc_type::kAddLink: {
      if (links_[link].judged)
        if (auto v = check::add_link_link_number(m, r.link_number))
          violate(*v, side, frame,
                  "ADD LINK reply names link " + std::to_string(v->seen) + ", the request offered link " +
                      std::to_string(v->expected));
      if (r.new_link >= links_.size()) break;
      Link& n = links_[r.new_link];
      if (negative(m)) {
        // Rejected: the link and the RTokens offered for it never existed.
        n.state = check::LinkState::kDeleted;
        for (Rkey& k : rkeys_)
          if (k.link == r.new_link) k.deleted = true;
        ++stats_.links_rejected;
        break;
      }
      // The accepting client's QP and GID for the new link (§3.5.1.6.1);
      // the CONFIRM LINK exchange on it follows.
      n.qp[s] = static_cast<std::uint32_t>(body<smcr::AddLinkSpec>(m, smcr::AddLinkSpec::Field::QpNumber));
      const wire::Bytes g = body_octets<smcr::AddLinkSpec>(m, smcr::AddLinkSpec::Field::Gid);
      std::copy(g.begin(), g.end(), n.gid[s].begin());
      n.announced[s] = check::LinkEnd{body<smcr::AddLinkSpec>(m, smcr::AddLinkSpec::Field::Mac), n.gid[s], *n.qp[s]};
      n.announced_in[s] = frame;
      n.state = check::LinkState::kConfirming;
      ++stats_.links_added;
      added_links_.push_back(AddedLink{{n.gid[0], n.gid[1]}});
      announce_rtokens(s, frame, link, r.new_link, m);
      break;
    }
    case smcr::llc_type::kAddLinkCont: announce_rtokens(s, frame, link, links_.size(), m); break;
    case smcr::llc_type::kDeleteLink:
      for (Link& l : links_)
        if ((r.all || l.number == r.link_number) && l.state == check::LinkState::kDeleting) {
          l.state = check::LinkState::kDeleted;
          l.reported[0] = l.reported[1] = false;
          ++stats_.links_deleted;
        }
      break;
    case smcr::llc_type::kConfirmRkey:
      if (!negative(m)) ++stats_.rkeys_confirmed;
      break;
    case smcr::llc_type::kDeleteRkey:
      // A negative reply leaves the rkeys as they were (an rkey kept can
      // raise no false violation).
      if (negative(m)) break;
      for (std::size_t i : r.rkeys)
        if (!rkeys_[i].deleted) {
          rkeys_[i].deleted = true;
          ++stats_.rkeys_deleted;
        }
      break;
    case smcr::llc_type::kTestLink:
      ++stats_.test_link_pairs;
      if (links_[link].judged)
        if (auto v = check::test_link_echo(m, wire::Bytes(r.user_data)))
          violate(*v, side, frame,
                  "TEST LINK reply's User Data octet " + std::to_string(v->octet - 4) + " is " + hex(v->seen) +
                      ", the request (frame " + std::to_string(r.frame) + ") sent " + hex(v->expected));
      break;
    default: break;
  }
}

void RoceObserver::check_data_link(Side side, FrameNo frame, std::size_t link, bool write) {
  const int s = static_cast<int>(side);
  Link& l = links_[link];
  if (!l.judged || l.reported[s]) return;
  if (auto v = check::data_on_confirmed_link(l.state, write)) {
    l.reported[s] = true;
    violate(*v, side, frame,
            std::string(write ? "RDMA Write" : "CDC message") + " on link " + std::to_string(l.number) +
                " while it is " + std::string(check::name(l.state)) +
                " (reported once per link and side until its state changes)");
  }
}

}  // namespace rdmaconf::analysis
