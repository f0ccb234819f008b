// Building the units a case's `>` steps send, each through the declarations
// of reference/ and shaped by the step's arguments: the MPA Request or Reply
// of startup (RFC 5044 §7.1, RFC 6581 §5), an RDMAP message in one FPDU
// (RFC 5040, RFC 5041, framed as RFC 5044 §4-§6 asks unless the step forces
// otherwise), a CLC message built by the reference client or server (RFC 7609
// App. A, SMC v2), or raw octets (runner_session.hpp).
#include <algorithm>

#include "ddp/headers.hpp"
#include "mpa/req_rep.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "engine/runner_session.hpp"
#include "engine/runner_smcr.hpp"
#include "engine/test_ulp.hpp"

namespace rdmaconf::conformance::runner {

const Arg* find_arg(const std::vector<Arg>& args, std::string_view name) {
  for (const Arg& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

std::variant<std::uint64_t, std::string> number_arg(Session& s, const Arg& a) {
  auto v = resolve(a.value, nullptr, s.vars, &s.captures);
  if (auto* e = std::get_if<std::string>(&v)) return a.name + ": " + *e;
  const auto& r = std::get<Resolved>(v);
  if (!r.number) return a.name + ": expected a number";
  return *r.number;
}

namespace {

std::string apply_args(Session& s, std::vector<Block>& blocks, const std::vector<Arg>& args,
                       std::initializer_list<std::string_view> skip) {
  for (const Arg& a : args) {
    if (std::find(skip.begin(), skip.end(), a.name) != skip.end() || is_framing_arg(a.name) || is_send_option(a.name))
      continue;
    std::string name = a.name;
    auto hit = find_field(blocks, name);
    if (!hit && name == "code") hit = find_field(blocks, "errcode");
    if (!hit) return "no field '" + a.name + "' in this unit";
    auto v = resolve(a.value, hit->field, s.vars, &s.captures);
    if (auto* e = std::get_if<std::string>(&v)) return a.name + ": " + *e;
    store(*hit, std::get<Resolved>(v));
  }
  return {};
}

// mpa.request / mpa.reply
std::variant<Built, std::string> build_mpa(Session& s, bool request, const std::vector<Arg>& args) {
  mpa::ReqRepFields f;
  f.kind = request ? mpa::FrameKind::kRequest : mpa::FrameKind::kReply;
  // The tester asks for what the pass asks of both sides (MpaSettings), and
  // otherwise for Rev 1, CRC and no Markers; a case's rev=, c= or m=
  // overrides each. (The pass's peer-to-peer model is the IUT's choice as
  // initiator: a tester Request that set A would owe the IUT an RTR first.)
  f.revision = static_cast<std::uint8_t>(request ? s.o.pass.revision.value_or(1) : 1);
  f.crc = s.o.pass.crc.value_or(true);
  f.markers = s.o.pass.markers.value_or(false);
  if (const Arg* a = find_arg(args, "rev")) {
    auto n = number_arg(s, *a);
    if (auto* e = std::get_if<std::string>(&n)) return *e;
    f.revision = static_cast<std::uint8_t>(std::get<std::uint64_t>(n));
  }
  static constexpr std::string_view kEnhanced[] = {"p2p", "rtr_send", "ird", "rtr_write", "rtr_read", "ord", "A", "B", "C", "D", "IRD", "ORD"};
  bool wants_enhanced = f.revision == 2;
  if (const Arg* a = find_arg(args, "s"); a && a->value.kind == Value::Kind::kNumber && a->value.number == 0)
    wants_enhanced = false;
  if (wants_enhanced) f.enhanced = mpa::EnhancedData{.peer_to_peer = false, .rtr_send = false, .rtr_write = false,
                                                     .rtr_read = false, .ird = 4, .ord = 4};
  std::vector<std::uint8_t> pd;
  if (const Arg* h = find_arg(args, "hint")) {
    std::uint8_t flags = 0;
    if (h->value.kind == Value::Kind::kWord && h->value.text == "markers") flags |= kHintMarkers;
    else if (h->value.kind == Value::Kind::kWord && h->value.text == "reads") flags |= kHintReads;
    else return std::string("hint: expected hint=markers or hint=reads");
    pd = make_hint(flags);
  }
  std::vector<std::uint8_t> raw_pd;
  bool have_raw_pd = false;
  if (const Arg* p = find_arg(args, "pd")) {
    auto b = payload_octets(p->value, s.vars);
    if (auto* e = std::get_if<std::string>(&b)) return "pd: " + *e;
    raw_pd = std::get<std::vector<std::uint8_t>>(b);
    have_raw_pd = true;
  }
  f.private_data = pd;
  Built out;
  mpa::encode_req_rep(f, out.octets);
  if (have_raw_pd) {
    out.octets.resize(20);
    out.octets.insert(out.octets.end(), raw_pd.begin(), raw_pd.end());
    mpa::ReqRepHeader::write(wire::MutableBytes(out.octets), mpa::ReqRepSpec::Field::PD_Length,
                             std::min<std::size_t>(raw_pd.size(), 0xffff));
  }
  std::vector<Block> blocks{raw_block(mpa::ReqRepSpec::decl, out.octets, 0)};
  const bool has_enhanced_block = out.octets.size() >= 24 && f.enhanced;
  if (has_enhanced_block) blocks.push_back(raw_block(mpa::EnhancedDataSpec::decl, out.octets, 20));
  // Enhanced fields named without an enhanced block (Rev 1) are an error of the script.
  for (const Arg& a : args)
    for (std::string_view n : kEnhanced)
      if (a.name == n && !has_enhanced_block) return "field '" + a.name + "' needs a Rev 2 frame with S set";
  if (auto e = apply_args(s, blocks, args, {"rev", "hint", "pd"}); !e.empty()) return e;
  // rev was applied above through the encoder; apply it again in case it was forced.
  if (const Arg* a = find_arg(args, "rev")) {
    auto hit = find_field(blocks, "rev");
    auto v = resolve(a->value, hit->field, s.vars, &s.captures);
    if (auto* r = std::get_if<Resolved>(&v)) store(*hit, *r);
  }
  const mpa::ReqRepHeader h(wire::Bytes(out.octets).first<20>());
  out.headline = std::string("--> MPA ") + (request ? "Request" : "Reply") +
                 (h.flag(mpa::ReqRepSpec::Field::R) ? " (reject)" : "") + ", Rev " +
                 std::to_string(h.get(mpa::ReqRepSpec::Field::Rev)) + ", " + std::to_string(out.octets.size()) + " octets";
  out.detail = describe_blocks(blocks, out.octets, has_enhanced_block ? 24 : 20);
  return out;
}

// One FPDU around `ulpdu`, framed as negotiated (RFC 5044 §4.1 PAD, §4.3
// Markers at their stream positions, §4.4 CRC) unless the step forces a
// framing field.
std::variant<Built, std::string> frame_ulpdu(Session& s, const std::vector<std::uint8_t>& ulpdu,
                                             const std::vector<Arg>& args) {
  // Over SCTP a DDP segment needs no framing: one chunk carries it whole
  // (RFC 5043 §5.2.2); a case that shapes MPA's framing does not run there
  // (mpa_bound, needs.hpp).
  if (s.ddp_over_sctp) {
    Built out;
    out.octets = ulpdu;
    out.headline = "DDP Segment Chunk";
    return out;
  }
  mpa::FramerOverrides fo;
  bool bad_crc = false;
  for (const Arg& a : args) {
    if (a.name == "crc" && a.value.kind == Value::Kind::kWord && a.value.text == "bad") {
      bad_crc = true;
      continue;
    }
    if (a.name == "omit_markers") {
      fo.omit_markers = true;
      continue;
    }
    if (!is_framing_arg(a.name) || a.name == "payload") continue;
    auto n = number_arg(s, a);
    if (auto* e = std::get_if<std::string>(&n)) return *e;
    const std::uint64_t v = std::get<std::uint64_t>(n);
    if (a.name == "ulpdu_length") fo.ulpdu_length = static_cast<std::uint16_t>(v);
    else if (a.name == "pad") fo.pad_length = static_cast<std::size_t>(std::min<std::uint64_t>(v, 64));
    else if (a.name == "pad_octet") fo.pad_octet = static_cast<std::uint8_t>(v);
    else if (a.name == "crc") fo.crc = static_cast<std::uint32_t>(v);
    else if (a.name == "fpduptr") fo.fpdu_ptr = static_cast<std::uint16_t>(v);
    else if (a.name == "marker_res") fo.marker_reserved = static_cast<std::uint16_t>(v);
  }
  Built out;
  out.layout = mpa::MarkerLayout(s.framer->stream_position(), s.framer->config().markers && !fo.omit_markers);
  const std::size_t n = s.framer->frame(wire::Bytes(ulpdu), out.octets, fo);
  // The CRC is the FPDU's last four octets (a Marker due after them belongs
  // to the next FPDU); a bad one differs in its last octet.
  if (bad_crc && n >= 4) out.octets.back() ^= 0x5a;
  out.headline = "FPDU " + std::to_string(n) + " octets" + (bad_crc ? ", bad CRC" : "") +
                 (fo.ulpdu_length ? ", ULPDU_Length forced" : "");
  return out;
}

// An RDMAP message in one FPDU.
std::variant<Built, std::string> build_fpdu(Session& s, const std::string& unit, const std::vector<Arg>& args) {
  if (!s.framer && !(s.ddp_over_sctp && s.phase == Phase::kFull))
    return std::string("'" + unit + "' needs full operation: run 'handshake' first");
  if (unit == "fpdu") {
    // `fpdu ulpdu=...`: the ULPDU is given whole, DDP header and all.
    const Arg* u = find_arg(args, "ulpdu");
    if (!u) return std::string("fpdu: expected ulpdu=hex:..., ulpdu=N or ulpdu=\"text\"");
    auto b = payload_octets(u->value, s.vars);
    if (auto* e = std::get_if<std::string>(&b)) return "ulpdu: " + *e;
    const auto& ulpdu = std::get<std::vector<std::uint8_t>>(b);
    auto r = frame_ulpdu(s, ulpdu, args);
    if (auto* built = std::get_if<Built>(&r)) {
      built->headline = "--> ULPDU of " + std::to_string(ulpdu.size()) + " octets, " + built->headline;
      built->detail = "    ULPDU: " + hex(ulpdu, 64) + "\n";
    }
    return r;
  }
  // A test ULP command is a Send whose payload is the command (test_ulp.hpp).
  const bool command = unit == "ulp.command";
  Segment seg = default_segment(command ? "send" : unit, s.next_msn);
  seg.rebuild_blocks();
  std::vector<std::uint8_t> payload;
  if (command) {
    payload.assign(UlpCommandSpec::decl.size_octets, 0);
    Block b = raw_block(UlpCommandSpec::decl, payload, 0);
    using F = UlpCommandSpec::Field;
    b.set(UlpCommandSpec::fields[static_cast<std::size_t>(F::Magic)], kUlpMagic);
    b.set(UlpCommandSpec::fields[static_cast<std::size_t>(F::Version)], 1);
    b.set(UlpCommandSpec::fields[static_cast<std::size_t>(F::Count)], 1);
    seg.blocks.push_back(std::move(b));
  } else if (const Arg* p = find_arg(args, "payload")) {
    auto b = payload_octets(p->value, s.vars);
    if (auto* e = std::get_if<std::string>(&b)) return "payload: " + *e;
    payload = std::get<std::vector<std::uint8_t>>(b);
  }
  if (auto e = apply_args(s, seg.blocks, args, {}); !e.empty()) return e;
  // An opcode override may change the headers a segment has: keep the
  // octets, re-read the blocks.
  seg.rebuild_blocks();
  const bool msn_given = find_arg(args, "msn") != nullptr;
  if (const ddp::Control ctl = ddp::Control::read(seg.octets);
      !ctl.tagged && seg.octets.size() >= ddp::kUntaggedHeaderSize) {
    using UF = ddp::UntaggedSpec::Field;
    const auto qn = static_cast<std::uint32_t>(ddp::UntaggedHeader::read(seg.octets, UF::QN));
    const auto msn = static_cast<std::uint32_t>(ddp::UntaggedHeader::read(seg.octets, UF::MSN));
    if (qn < 4 && ctl.last && (!msn_given || msn == s.next_msn[qn])) s.next_msn[qn] = msn + 1;
  }
  const std::size_t header_size = seg.octets.size();
  seg.octets.insert(seg.octets.end(), payload.begin(), payload.end());
  if (command) seg.blocks.push_back(raw_block(UlpCommandSpec::decl, seg.octets, header_size));

  auto r = frame_ulpdu(s, seg.octets, args);
  if (auto* built = std::get_if<Built>(&r)) {
    const std::uint8_t opcode = seg.octets.size() >= ddp::kControlSize ? segment_opcode(seg.octets) : 0;
    built->headline = "--> " + std::string(message_name(opcode)) + (command ? " (test ULP command)" : "") + ", " + built->headline;
    built->detail = describe_blocks(seg.blocks, seg.octets, header_size);
  }
  return r;
}

// `ism_gids=N` beyond the kMaxIsmGids entries a Proposal holds: its count
// says N (unless the script forced it), and the entries past the list,
// copies of the last, go where the list ends, just before the trailer (the
// list is the Proposal's last area), Length following unless forced (SMC
// v2: smc_clc_msg_prop_valid).
void count_ism_gids(clc::Proposal& p, std::size_t want, const std::vector<Arg>& args) {
  if (p.v2_ext && want > p.ism_gids.size() && !find_arg(args, "v2ext.ism_gid_count"))
    p.v2_ext->set(clc::V2ExtensionSpec::Field::IsmGidCount, want);
}
void add_ism_gids(const clc::Proposal& p, std::size_t want, const std::vector<Arg>& args,
                  std::vector<std::uint8_t>& octets) {
  if (want <= p.ism_gids.size() || p.ism_gids.empty()) return;
  const wire::Bytes entry = p.ism_gids[p.ism_gids.size() - 1].bytes();
  std::vector<std::uint8_t> more;
  for (std::size_t i = p.ism_gids.size(); i < want; ++i) more.insert(more.end(), entry.begin(), entry.end());
  octets.insert(octets.end() - static_cast<std::ptrdiff_t>(clc::kTrailerSize), more.begin(), more.end());
  if (!find_arg(args, "length")) {
    clc::ClcHeader h(wire::Bytes(octets).first<clc::kHeaderSize>());
    h.set(clc::ClcHeaderSpec::Field::Length, octets.size());
    std::copy(h.bytes().begin(), h.bytes().end(), octets.begin());
  }
}

std::variant<Built, std::string> build_clc(Session& s, const std::string& unit, const std::vector<Arg>& args) {
  std::vector<std::uint8_t> octets;
  std::size_t ism_gids = 0;
  if (unit == "clc.proposal") {
    clc::ClientConfig cfg = tester_client(s.identity);
    if (const Arg* a = find_arg(args, "offer")) {
      const std::string v = a->value.text;
      cfg.offer_v1 = v == "v1" || v == "v1v2";
      cfg.offer_v2 = v == "v2" || v == "v1v2";
      if (!cfg.offer_v1 && !cfg.offer_v2 && v != "none") return std::string("offer: expected v1, v2, v1v2 or none");
    }
    // `smcd=v1|v2|v1v2`: SMC-D offered too, as a client with ISM devices
    // offers it (SMC v2: Linux smc_clc_send_proposal); `ism_gids=N`: that
    // many GID/CHID entries in its SMC-Dv2 extension.
    if (const Arg* a = find_arg(args, "smcd")) {
      const std::string v = a->value.text;
      cfg.smcd.v1 = v == "v1" || v == "v1v2";
      cfg.smcd.v2 = v == "v2" || v == "v1v2";
      if (!cfg.smcd.v1 && !cfg.smcd.v2) return std::string("smcd: expected v1, v2 or v1v2");
    }
    // The run's SMC-R version (RunOptions::smcr_version) in place of the script's.
    if (s.c.protocol == "smcr" && s.o.smcr_version != 0 && (cfg.offer_v1 || cfg.offer_v2)) {
      cfg.offer_v1 = s.o.smcr_version == 1;
      cfg.offer_v2 = s.o.smcr_version == 2;
    }
    if (!cfg.offer_v1 && !cfg.offer_v2 && !cfg.smcd.v1 && !cfg.smcd.v2)
      return std::string("offer=none: the Proposal offers SMC-D then (smcd=v1, v2 or v1v2)");
    ism_gids = cfg.smcd.v2_devices.size();
    if (const Arg* a = find_arg(args, "ism_gids")) {
      auto n = number_arg(s, *a);
      if (auto* e = std::get_if<std::string>(&n)) return *e;
      if (!cfg.smcd.v2) return std::string("ism_gids: the Proposal offers no SMC-Dv2 (smcd=v2 or v1v2)");
      if (std::get<std::uint64_t>(n) > 255) return std::string("ism_gids: at most 255 (the count is one octet)");
      ism_gids = static_cast<std::size_t>(std::get<std::uint64_t>(n));
      cfg.smcd.v2_devices.resize(std::min(ism_gids, clc::kMaxIsmGids), cfg.smcd.native);
    }
    if (s.c.protocol == "smcr") {
      std::string error;
      if (!s.smcr && !smcr_prepare_clc(s, cfg.link, error)) return error;
      cfg.v2.rocev2_gid = cfg.link.gid;
      cfg.link_group = smcr_reused_group(s);  // `connection N`: connection 1's group (§3.5.2)
    }
    s.clc_client = std::make_unique<clc::ClientHandshake>(cfg);
    octets = s.clc_client->start(true).send;
  } else if (unit == "clc.accept") {
    if (s.last_clc_received.empty()) return std::string("clc.accept answers a Proposal: expect one first");
    clc::ServerConfig cfg = tester_server(s.identity);
    if (const Arg* a = find_arg(args, "choose")) {
      // The version the tester's server settles on, when the IUT offered both.
      const std::string v = a->value.text;
      cfg.accept_v1 = v == "v1";
      cfg.accept_v2 = v == "v2";
      if (!cfg.accept_v1 && !cfg.accept_v2) return std::string("choose: expected v1 or v2");
    }
    // The run's SMC-R version (RunOptions::smcr_version) in place of the
    // script's, as for the tester's Proposal above.
    if (s.c.protocol == "smcr" && s.o.smcr_version != 0) {
      cfg.accept_v1 = s.o.smcr_version == 1;
      cfg.accept_v2 = s.o.smcr_version == 2;
    }
    // The smcr suite with the IUT as SMC client: the tester's Accept names
    // its first link's QP and RMB (runner_smcr.hpp).
    if (s.c.protocol == "smcr") {
      std::string error;
      if (!s.smcr && !smcr_prepare_clc(s, cfg.link, error)) return error;
      cfg.v2.rocev2_gid = cfg.link.gid;
    }
    s.clc_server = std::make_unique<clc::ServerHandshake>(cfg);
    (void)s.clc_server->start(true);
    const clc::Step step = s.clc_server->on_message(s.last_clc_received);
    octets = step.send;
    if (octets.empty()) return std::string("the reference server would not answer the IUT's Proposal");
    // The tester's server declines the IUT's Proposal (an EID or prefix
    // the run did not give it, say): an Accept the case could shape does
    // not exist, so the case cannot go on to judge what it was written for.
    if (step.outcome && step.outcome->kind == clc::OutcomeKind::kFallback && step.outcome->failed_rule)
      return "the tester's server declines the IUT's Proposal (" + std::string(step.outcome->failed_rule->summary) +
             ", " + std::string(step.outcome->failed_rule->section) +
             "), so it cannot send an Accept; check --clc-eid and --clc-prefix against the IUT's configuration";
  } else if (unit == "clc.confirm") {
    if (!s.clc_client || s.last_clc_received.empty()) return std::string("clc.confirm answers an Accept: send clc.proposal and expect clc.accept first");
    const clc::Step step = s.clc_client->on_message(s.last_clc_received);
    octets = step.send;
    s.clc_outcome = step.outcome;
    if (octets.empty()) return std::string("the reference client would not confirm the IUT's Accept");
    if (std::string error; !smcr_before_confirm(s, error)) return error;
    // The tester's client found the Accept wrong and would decline it: the
    // case cannot go on to judge what it was written for.
    if (step.outcome && step.outcome->kind == clc::OutcomeKind::kFallback && step.outcome->failed_rule)
      return "the tester's client declines the IUT's Accept (" + std::string(step.outcome->failed_rule->summary) +
             "), so it cannot send a Confirm";
  } else if (unit == "clc.decline") {
    octets = clc::encode(clc::build_decline(clc::kVersion2, 0x52434e4643000001ull, clc::kDeclPeerDecl, clc::kOsLinux));
  } else {
    return "unknown CLC unit '" + unit + "'";
  }
  auto m = clc::decode(octets);
  if (!m) return "the reference built an undecodable " + unit + ": " + m.error().to_string();
  clc::Message msg = std::move(*m);
  // A later connection's Confirm names the tester's end of the link the
  // IUT's Accept chose (runner_smcr.hpp), before the script's fields.
  if (unit == "clc.confirm" && s.c.protocol == "smcr")
    if (auto* c = std::get_if<clc::AcceptConfirm>(&msg)) smcr_confirm_link(s, *c);
  // `growth=N`: N octets of future growth between the IP Area Offset and the
  // prefix area of a version 1 SMC-R Proposal (RFC 7609 App. A.2.2); the
  // offset and Length follow.
  if (const Arg* a = find_arg(args, "growth")) {
    auto* p = std::get_if<clc::Proposal>(&msg);
    if (!p || p->version() != clc::kVersion1 || p->smcd) return std::string("growth: only in a version 1 SMC-R Proposal (offer=v1)");
    auto n = number_arg(s, *a);
    if (auto* e = std::get_if<std::string>(&n)) return *e;
    if (std::get<std::uint64_t>(n) > 256) return std::string("growth: at most 256 octets");
    p->v1_growth_area.assign(static_cast<std::size_t>(std::get<std::uint64_t>(n)), 0);
  }
  {
    std::vector<Block> blocks = clc_blocks(msg);
    if (auto e = apply_args(s, blocks, args, {"offer", "smcd", "ism_gids", "choose", "grow", "shrink", "growth"}); !e.empty()) return e;
  }
  // Recompute what a sender derives, then force again what the script forced.
  std::visit([](auto& x) { clc::finalize(x); }, msg);
  {
    std::vector<Block> blocks = clc_blocks(msg);
    if (auto e = apply_args(s, blocks, args, {"offer", "smcd", "ism_gids", "choose", "grow", "shrink", "growth"}); !e.empty()) return e;
  }
  auto* proposal = std::get_if<clc::Proposal>(&msg);
  if (proposal) count_ism_gids(*proposal, ism_gids, args);
  Built out;
  out.octets = clc::encode(msg);
  if (proposal) add_ism_gids(*proposal, ism_gids, args, out.octets);
  // `grow=N` / `shrink=N`: N zero octets more, or N octets fewer, just before
  // the trailer, with Length following (unless the script forced it): a
  // message whose Length disagrees with its blocks but whose trailer is where
  // Length says (SMC v2: smc_clc_msg_prop_valid, smc_clc_msg_acc_conf_valid).
  for (const char* name : {"grow", "shrink"}) {
    const Arg* a = find_arg(args, name);
    if (!a) continue;
    auto n = number_arg(s, *a);
    if (auto* e = std::get_if<std::string>(&n)) return *e;
    const std::size_t k = static_cast<std::size_t>(std::get<std::uint64_t>(n));
    const std::size_t body_end = out.octets.size() - clc::kTrailerSize;
    if (std::string_view(name) == "grow") {
      if (k > 1024) return std::string("grow: at most 1024 octets");
      out.octets.insert(out.octets.begin() + static_cast<std::ptrdiff_t>(body_end), k, 0);
    } else {
      if (k > body_end - clc::kHeaderSize) return std::string("shrink: the message has fewer octets between header and trailer");
      out.octets.erase(out.octets.begin() + static_cast<std::ptrdiff_t>(body_end - k),
                       out.octets.begin() + static_cast<std::ptrdiff_t>(body_end));
    }
    if (!find_arg(args, "length")) {
      clc::ClcHeader h(wire::Bytes(out.octets).first<clc::kHeaderSize>());
      h.set(clc::ClcHeaderSpec::Field::Length, out.octets.size());
      std::copy(h.bytes().begin(), h.bytes().end(), out.octets.begin());
    }
  }
  out.headline = "--> CLC " + unit.substr(4) + ", " + std::to_string(out.octets.size()) + " octets";
  out.detail = clc::describe(msg);
  if (!s.identity.note.empty()) out.detail += "  (tester identity: " + s.identity.note + ")\n";
  return out;
}

}  // namespace

std::variant<Built, std::string> build(Session& s, const Step& st) {
  std::variant<Built, std::string> r = std::string("unknown unit '" + st.unit + "'");
  if (st.unit == "mpa.request" || st.unit == "mpa.reply") r = build_mpa(s, st.unit == "mpa.request", st.args);
  else if (st.unit == "raw") {
    Built b;
    b.octets = st.args.front().value.bytes;
    b.headline = "--> " + std::to_string(b.octets.size()) + " raw octets";
    b.detail = "    " + hex(b.octets, 64) + "\n";
    r = b;
  } else if (st.unit.starts_with("clc.")) r = build_clc(s, st.unit, st.args);
  else if (opcode_for(st.unit) || st.unit == "ddp.tagged" || st.unit == "ddp.untagged" || st.unit == "ulp.command" ||
           st.unit == "fpdu")
    r = build_fpdu(s, st.unit, st.args);
  auto* b = std::get_if<Built>(&r);
  if (!b) return r;
  // Octet positions in an FPDU count its own octets (RFC 5044 §4.1:
  // ULPDU_Length, ULPDU, PAD, CRC), not the Markers among them, so a
  // position names the same field whether or not Markers were negotiated;
  // a Marker goes with the octets after it.
  auto sent_octets = [&](std::uint64_t n) {
    const std::size_t logical = static_cast<std::size_t>(std::min<std::uint64_t>(n, b->octets.size()));
    return std::min(b->layout ? b->layout->span_of(logical) : logical, b->octets.size());
  };
  if (const Arg* t = find_arg(st.args, "truncate")) {
    auto n = number_arg(s, *t);
    if (auto* e = std::get_if<std::string>(&n)) return *e;
    const std::size_t keep = sent_octets(std::get<std::uint64_t>(n));
    b->octets.resize(keep);
    b->headline += ", truncated to " + std::to_string(std::get<std::uint64_t>(n)) + " octets";
  }
  if (const Arg* a = find_arg(st.args, "append")) {
    b->octets.insert(b->octets.end(), a->value.bytes.begin(), a->value.bytes.end());
    b->headline += ", " + std::to_string(a->value.bytes.size()) + " octets appended";
  }
  if (const Arg* a = find_arg(st.args, "split")) {
    auto n = number_arg(s, *a);
    if (auto* e = std::get_if<std::string>(&n)) return *e;
    const std::uint64_t after = std::get<std::uint64_t>(n);
    const std::size_t at = sent_octets(after);
    if (after == 0 || at >= b->octets.size())
      return "split=" + std::to_string(after) + ": expected a position inside the unit (it has " +
             std::to_string(b->octets.size()) + " octets as sent)";
    b->split_at = at;
    if (const Arg* p = find_arg(st.args, "pause")) {
      auto d = p->value.kind == Value::Kind::kWord ? parse_duration(p->value.text) : std::nullopt;
      if (!d) return std::string("pause: expected a duration such as 30ms");
      b->pause = *d;
    }
    b->headline += ", split after octet " + std::to_string(after) +
                   (at != after ? " (" + std::to_string(at) + " octets with the Markers)" : std::string()) + ", then " +
                   std::to_string(b->pause.count()) + " ms later the rest";
  }
  if (find_arg(st.args, "more")) {
    b->more = true;
    b->headline += ", held to go out with the next unit in one TCP send";
  }
  return r;
}

}  // namespace rdmaconf::conformance::runner
