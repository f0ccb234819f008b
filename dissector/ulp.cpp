// The upper-layer protocols over RDMAP, shown and handed to Wireshark's own
// dissectors: RPC-over-RDMA (RFC 8166) to `rpc` (and so NFS), iSER (RFC 7145)
// to `iscsi` (and so SCSI).
//
// What is shown comes from the first pass (ulp_state.hpp): the Send
// reassembled from its segments, the ULP header through its declarations
// (reference/ulp, generated_fields.hpp), the regions it advertised with the
// frames that used them, and the RPC message, rebuilt where part of it went
// by RDMA. Each RDMA Write, Read Request and Read Response that used an
// advertised region names it (the ties, both ways). Nothing is checked here.
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "generated_fields.hpp"
#include "plugin.hpp"
#include "ulp/iser.hpp"
#include "ulp/rpcrdma.hpp"

extern "C" {
#include <epan/exceptions.h>
#include <epan/show_exception.h>
}

namespace rdmaconf::dissector {
namespace {

// The XDR words around the declared segments of a chunk list (RFC 8166 §4.3).
constexpr int kUnit = static_cast<int>(ulp::rpcrdma::kXdrUnit);
constexpr int kSegment = static_cast<int>(ulp::rpcrdma::SegmentSpec::decl.size_octets);
constexpr int kReadSegment = static_cast<int>(ulp::rpcrdma::ReadSegmentSpec::decl.size_octets);

// Hands a PDU to one of Wireshark's dissectors. Its exceptions end its own
// part of the tree (shown as Wireshark shows them) rather than the rest of
// the frame; only plain C values live in this frame, as setjmp requires.
// The RPC dissector makes itself the TCP conversation's dissector when it
// sees a Call (RPC over TCP); the connection stays ours.
// Wireshark's TRY/CATCH macros are C: they update a volatile int with |=,
// which C++20 deprecates.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-volatile"
#elif defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wvolatile"
#endif
void hand_off(dissector_handle_t handle, tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree) {
  if (!handle) return;
  conversation_t* conv = find_conversation_pinfo(pinfo, 0);
  dissector_handle_t ours = conv ? conversation_get_dissector(conv, pinfo->num) : nullptr;
  // Our Info column text stays; theirs follows it.
  col_append_str(pinfo->cinfo, COL_INFO, " ");
  col_set_fence(pinfo->cinfo, COL_INFO);
  TRY { call_dissector(handle, tvb, pinfo, tree); }
  CATCH_NONFATAL_ERRORS { show_exception(tvb, pinfo, tree, EXCEPT_CODE, GET_MESSAGE); }
  ENDTRY;
  if (conv && conversation_get_dissector(conv, pinfo->num) != ours) conversation_set_dissector(conv, ours);
}
#if defined(__clang__)
#pragma clang diagnostic pop
#elif defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

tvbuff_t* own_tvb(tvbuff_t* parent, packet_info* pinfo, const std::vector<std::uint8_t>& octets, const char* name) {
  tvbuff_t* t = tvb_new_child_real_data(parent, octets.data(), static_cast<guint>(octets.size()),
                                        static_cast<gint>(octets.size()));
  add_new_data_source(pinfo, t, name);
  return t;
}

const Ids::TieFields& tie_fields(const Advert& a) { return is_iser(a) ? ids().iser_tie : ids().rpcrdma_tie; }

constexpr std::size_t kDescribeMax = 160;  // the longest description's room

// Chunks and segments counted from 0, as the header's subtrees number them
// (the observer counts them from 1); an iSER buffer by its STag alone
// (RFC 7145 §9.2 states its start, not its length).
std::string describe(const Advert& a) {
  using Region = analysis::UlpTie::Region;
  char buf[kDescribeMax];
  const analysis::UlpTie& n = a.named;
  const auto length = static_cast<unsigned>(n.region.length);
  switch (n.kind) {
    case Region::kReadSegment:
      std::snprintf(buf, sizeof buf, "Read chunk at position %u, segment %u: STag 0x%08x, %u octets", a.position,
                    n.segment - 1, n.region.stag, length);
      break;
    case Region::kWriteChunk:
      std::snprintf(buf, sizeof buf, "Write chunk %u, segment %u: STag 0x%08x, %u octets", n.chunk - 1, n.segment - 1,
                    n.region.stag, length);
      break;
    case Region::kReplyChunk:
      std::snprintf(buf, sizeof buf, "Reply chunk, segment %u: STag 0x%08x, %u octets", n.segment - 1, n.region.stag,
                    length);
      break;
    case Region::kIserWriteStag:
    case Region::kIserReadStag:
      std::snprintf(buf, sizeof buf, "%s 0x%08x of task 0x%08x", std::string(name(n.kind)).c_str(), n.region.stag,
                    n.tag);
      break;
  }
  return buf;
}

// On the advertising Send: one subtree per region with what used it.
void add_uses(proto_tree* tree, tvbuff_t* tvb, const UlpSend& u) {
  if (!tree) return;
  const Ids& i = ids();
  for (const Advert* a : u.adverts) {
    const Ids::TieFields& f = tie_fields(*a);
    proto_item* ri = proto_tree_add_string(tree, f.region, tvb, 0, 0, describe(*a).c_str());
    proto_item_set_generated(ri);
    proto_tree* rt = proto_item_add_subtree(ri, i.ett_region);
    if (a->first_frame) {
      proto_item_set_generated(proto_tree_add_uint(rt, f.used_first, tvb, 0, 0, a->first_frame));
      proto_item_set_generated(proto_tree_add_uint(rt, f.used_last, tvb, 0, 0, a->last_frame));
      proto_item_set_generated(proto_tree_add_uint64(rt, f.used_octets, tvb, 0, 0, a->octets));
    }
    if (a->invalidated_in) proto_item_set_generated(proto_tree_add_uint(rt, f.invalidated_in, tvb, 0, 0, a->invalidated_in));
  }
}

// On an RDMA Write, Read Request or Read Response: the region it used.
void add_tie(proto_tree* tree, tvbuff_t* tvb, packet_info* pinfo, const Tie& t) {
  const Ids& i = ids();
  const Advert& a = *t.advert;
  const bool iser = is_iser(a);
  const Ids::TieFields& f = tie_fields(a);
  proto_item* pi = proto_tree_add_item(tree, iser ? i.proto_iser : i.proto_rpcrdma, tvb, 0, 0, ENC_NA);
  proto_item_append_text(pi, ", %s", describe(a).c_str());
  proto_item_set_generated(pi);
  proto_tree* pt = proto_item_add_subtree(pi, iser ? i.ett_iser : i.ett_rpcrdma);
  proto_item_set_generated(proto_tree_add_uint(pt, f.advertised_in, tvb, 0, 0, a.advertised_in));
  proto_item_set_generated(proto_tree_add_string(pt, f.region, tvb, 0, 0, describe(a).c_str()));
  proto_item_set_generated(proto_tree_add_uint64(pt, f.offset, tvb, 0, 0, t.offset));
  col_append_fstr(pinfo->cinfo, COL_INFO, " [%s, frame %u]", std::string(name(a.named.kind)).c_str(), a.advertised_in);
}

// The RPC-over-RDMA header, walked by the decoder's counts (RFC 8166 §4.3:
// three XDR lists after the fixed words).
void show_rpcrdma_header(proto_tree* t, tvbuff_t* tvb, const ulp::rpcrdma::Message& m, const UlpSend& u) {
  const Ids& i = ids();
  add_header(t, tvb, 0, ulp::rpcrdma::FixedSpec::decl);
  int off = static_cast<int>(ulp::rpcrdma::FixedSpec::decl.size_octets);
  std::size_t advert = 0;
  auto region = [&](proto_tree* st) {
    // The Call's regions come in the decoder's order: reads, writes, reply.
    if (advert < u.adverts.size() && st) {
      const Advert& a = *u.adverts[advert++];
      const Ids::TieFields& f = tie_fields(a);
      if (a.first_frame) {
        proto_item_set_generated(proto_tree_add_uint(st, f.used_first, tvb, 0, 0, a.first_frame));
        proto_item_set_generated(proto_tree_add_uint(st, f.used_last, tvb, 0, 0, a.last_frame));
        proto_item_set_generated(proto_tree_add_uint64(st, f.used_octets, tvb, 0, 0, a.octets));
      }
      if (a.invalidated_in) proto_item_set_generated(proto_tree_add_uint(st, f.invalidated_in, tvb, 0, 0, a.invalidated_in));
    }
  };
  auto follows = [&](proto_tree* st) {
    proto_tree_add_item(st, i.rpcrdma_item_follows, tvb, off, kUnit, ENC_BIG_ENDIAN);
    off += kUnit;
  };
  auto chunk = [&](proto_tree* parent, const ulp::rpcrdma::WriteChunk& c, const char* label) {
    proto_tree* ct = proto_tree_add_subtree_format(parent, tvb, off, static_cast<int>(kUnit + kSegment * c.segments.size()),
                                                   i.ett_chunk, nullptr, "%s: %zu segments, %llu octets", label,
                                                   c.segments.size(), static_cast<unsigned long long>(c.length()));
    proto_tree_add_item(ct, i.rpcrdma_segment_count, tvb, off, kUnit, ENC_BIG_ENDIAN);
    off += kUnit;
    for (std::size_t k = 0; k < c.segments.size(); ++k) {
      region(add_header(ct, tvb, off, ulp::rpcrdma::SegmentSpec::decl));
      off += static_cast<int>(ulp::rpcrdma::SegmentSpec::decl.size_octets);
    }
  };
  if (m.is(ulp::rpcrdma::Proc::kError)) {
    proto_tree_add_item(t, i.rpcrdma_err, tvb, off, kUnit, ENC_BIG_ENDIAN);
    if (m.err == static_cast<std::uint32_t>(ulp::rpcrdma::ErrCode::kVers))
      add_header(t, tvb, off + kUnit, ulp::rpcrdma::ErrVersSpec::decl);
    return;
  }
  proto_tree* rl = proto_tree_add_subtree_format(t, tvb, off, static_cast<int>(kUnit + (kUnit + kReadSegment) * m.read_list.size()), i.ett_chunk,
                                                 nullptr, "Read list: %zu segments", m.read_list.size());
  for (std::size_t k = 0; k < m.read_list.size(); ++k) {
    follows(rl);
    region(add_header(rl, tvb, off, ulp::rpcrdma::ReadSegmentSpec::decl));
    off += static_cast<int>(ulp::rpcrdma::ReadSegmentSpec::decl.size_octets);
  }
  follows(rl);
  proto_tree* wl = proto_tree_add_subtree_format(t, tvb, off, -1, i.ett_chunk, nullptr, "Write list: %zu chunks",
                                                 m.write_list.size());
  for (std::size_t k = 0; k < m.write_list.size(); ++k) {
    follows(wl);
    chunk(wl, m.write_list[k], ("Write chunk " + std::to_string(k)).c_str());
  }
  follows(wl);
  if (m.reply_chunk) {
    follows(t);
    chunk(t, *m.reply_chunk, "Reply chunk");
  } else {
    follows(t);
  }
}

void show_rpcrdma(tvbuff_t* stvb, packet_info* pinfo, proto_tree* tree, const UlpSend& u) {
  const Ids& i = ids();
  const auto m = ulp::rpcrdma::decode(wire::Bytes(u.payload.data(), u.payload.size()));
  const int header = m ? static_cast<int>(m->header_length) : -1;
  proto_item* pi = proto_tree_add_item(tree, i.proto_rpcrdma, stvb, 0, header, ENC_NA);
  proto_tree* pt = proto_item_add_subtree(pi, i.ett_rpcrdma);
  col_set_str(pinfo->cinfo, COL_PROTOCOL, "rdmaconf RPC-over-RDMA");
  if (m) {
    const std::string_view proc = ulp::rpcrdma::proc_name(m->proc);
    proto_item_append_text(pi, ", %.*s, XID 0x%08x", static_cast<int>(proc.size()), proc.data(), m->xid);
    col_append_sep_fstr(pinfo->cinfo, COL_INFO, ", ", "%.*s", static_cast<int>(proc.size()), proc.data());
    show_rpcrdma_header(pt, stvb, *m, u);
  }
  if (u.call_frame) proto_item_set_generated(proto_tree_add_uint(pt, i.rpcrdma_call_in, stvb, 0, 0, u.call_frame));
  if (u.reply_frame) proto_item_set_generated(proto_tree_add_uint(pt, i.rpcrdma_reply_in, stvb, 0, 0, u.reply_frame));
  if (!u.note.empty()) {
    proto_item_set_generated(proto_tree_add_string(pt, i.rpcrdma_note, stvb, 0, 0, u.note.c_str()));
    col_append_fstr(pinfo->cinfo, COL_INFO, " [RPC message not shown: %s]", u.note.c_str());
  }
  if (u.rpc_completed_in) {
    proto_item_set_generated(proto_tree_add_uint(pt, i.rpcrdma_rpc_completed_in, stvb, 0, 0, u.rpc_completed_in));
    col_append_fstr(pinfo->cinfo, COL_INFO, " [RPC message completed in frame %u]", u.rpc_completed_in);
  }
  // Nothing to hand on: no message here, or an empty one.
  if (!u.rpc_here || !m || (u.rpc_rebuilt ? u.rpc.empty() : u.payload.size() <= m->header_length)) return;
  tvbuff_t* rpc = nullptr;
  if (u.rpc_rebuilt) {
    rpc = own_tvb(stvb, pinfo, u.rpc, "RPC message (chunk data inserted)");
    proto_item_set_generated(proto_tree_add_uint(pt, i.rpcrdma_rpc_length, rpc, 0, static_cast<int>(u.rpc.size()),
                                                 static_cast<guint32>(u.rpc.size())));
  } else {
    rpc = tvb_new_subset_remaining(stvb, header);
  }
  hand_off(i.rpc_handle, rpc, pinfo, tree);
}

void show_iser(tvbuff_t* stvb, packet_info* pinfo, proto_tree* tree, const UlpSend& u) {
  const Ids& i = ids();
  const auto m = ulp::iser::decode(wire::Bytes(u.payload.data(), u.payload.size()));
  proto_item* pi = proto_tree_add_item(tree, i.proto_iser, stvb, 0, static_cast<int>(ulp::iser::kHeaderSize), ENC_NA);
  proto_tree* pt = proto_item_add_subtree(pi, i.ett_iser);
  col_set_str(pinfo->cinfo, COL_PROTOCOL, "rdmaconf iSER");
  if (!m) {
    if (!u.note.empty()) proto_item_set_generated(proto_tree_add_string(pt, i.rpcrdma_note, stvb, 0, 0, u.note.c_str()));
    return;
  }
  using ulp::iser::Opcode;
  switch (static_cast<Opcode>(m->opcode)) {
    case Opcode::kControl: {
      add_header(pt, stvb, 0, ulp::iser::ControlSpec::decl);
      add_header(pt, stvb, static_cast<int>(ulp::iser::kHeaderSize), ulp::iser::BhsSpec::decl);
      const std::string_view op = ulp::iser::iscsi_opcode_name(m->iscsi_opcode);
      proto_item_append_text(pi, ", %.*s, ITT 0x%08x", static_cast<int>(op.size()), op.data(), m->itt);
      add_uses(pt, stvb, u);
      hand_off(i.iscsi_handle, tvb_new_subset_remaining(stvb, static_cast<int>(ulp::iser::kHeaderSize)), pinfo, tree);
      break;
    }
    case Opcode::kHello:
      add_header(pt, stvb, 0, ulp::iser::HelloSpec::decl);
      col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", "iSER Hello");
      break;
    case Opcode::kHelloReply:
      add_header(pt, stvb, 0, ulp::iser::HelloReplySpec::decl);
      col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", "iSER HelloReply");
      break;
  }
}

}  // namespace

void show_ulp(tvbuff_t* payload, packet_info* pinfo, proto_tree* tree, const MessageRecord& m) {
  const Ids& i = ids();
  const UlpFindings& f = m.ulp;
  if (f.tie) add_tie(tree, payload, pinfo, *f.tie);
  if (f.invalidates) {
    const Advert& a = *f.invalidates;
    const Ids::TieFields& tf = tie_fields(a);
    const bool iser = is_iser(a);
    proto_item* pi = proto_tree_add_item(tree, iser ? i.proto_iser : i.proto_rpcrdma, payload, 0, 0, ENC_NA);
    proto_item_append_text(pi, ", invalidates the %s", describe(a).c_str());
    proto_tree* pt = proto_item_add_subtree(pi, iser ? i.ett_iser : i.ett_rpcrdma);
    proto_item_set_generated(proto_tree_add_uint(pt, tf.invalidates, payload, 0, 0, a.advertised_in));
    proto_item_set_generated(proto_tree_add_string(pt, tf.region, payload, 0, 0, describe(a).c_str()));
  }
  if (f.send) {
    const UlpSend& u = *f.send;
    tvbuff_t* stvb = payload;
    if (u.several_segments) {
      if (!u.complete) return;
      stvb = own_tvb(payload, pinfo, u.payload, "Reassembled Send");
      proto_item_set_generated(proto_tree_add_uint(tree, i.mpa_first_frame, stvb, 0, 0, u.first_frame));
    }
    if (u.ulp == analysis::Ulp::kRpcRdma) show_rpcrdma(stvb, pinfo, tree, u);
    else if (u.ulp == analysis::Ulp::kIser) show_iser(stvb, pinfo, tree, u);
  }
  if (f.completes && !f.completes->rpc.empty()) {
    const UlpCompletion& c = *f.completes;
    proto_item* pi = proto_tree_add_item(tree, i.proto_rpcrdma, payload, 0, 0, ENC_NA);
    proto_item_append_text(pi, ", the Call of frame %u with its Read chunks", c.call_frame);
    proto_tree* pt = proto_item_add_subtree(pi, i.ett_rpcrdma);
    proto_item_set_generated(proto_tree_add_uint(pt, i.rpcrdma_rpc_call_from, payload, 0, 0, c.call_frame));
    tvbuff_t* rpc = own_tvb(payload, pinfo, c.rpc, "RPC message (Read chunks inserted)");
    proto_item_set_generated(proto_tree_add_uint(pt, i.rpcrdma_rpc_length, rpc, 0, static_cast<int>(c.rpc.size()),
                                                 static_cast<guint32>(c.rpc.size())));
    hand_off(i.rpc_handle, rpc, pinfo, tree);
  }
}

namespace {

void register_ties(int proto, Ids::TieFields& f, const char* prefix) {
  auto keep = [](std::string s) {
    static std::deque<std::string> strings;  // Wireshark keeps the pointers
    return strings.emplace_back(std::move(s)).c_str();
  };
  const std::string p(prefix);
  hf_register_info hf[] = {
      {&f.advertised_in,
       {"Advertised in", keep(p + ".tie.advertised_in"), FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0,
        "The Send that advertised the region this RDMA operation uses", HFILL}},
      {&f.region,
       {"Region", keep(p + ".tie.region"), FT_STRING, BASE_NONE, nullptr, 0x0,
        "The advertised region: chunk, segment or STag", HFILL}},
      {&f.offset,
       {"Offset in the region", keep(p + ".tie.offset"), FT_UINT64, BASE_DEC, nullptr, 0x0,
        "Octets from the region's advertised offset to this operation's first octet", HFILL}},
      {&f.used_first,
       {"First used in", keep(p + ".tie.first_frame"), FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0x0,
        "First RDMA Write, Read Request or Read Response that used the region", HFILL}},
      {&f.used_last,
       {"Last used in", keep(p + ".tie.last_frame"), FT_FRAMENUM, BASE_NONE, nullptr, 0x0,
        "Last RDMA operation that used the region", HFILL}},
      {&f.used_octets,
       {"Octets moved", keep(p + ".tie.octets"), FT_UINT64, BASE_DEC, nullptr, 0x0,
        "Octets RDMA Writes and Read Responses moved to or from the region", HFILL}},
      {&f.invalidated_in,
       {"Invalidated in", keep(p + ".tie.invalidated_in"), FT_FRAMENUM, BASE_NONE, nullptr, 0x0,
        "The Send with Invalidate that named the region's STag (RFC 5040 §5.3)", HFILL}},
      {&f.invalidates,
       {"Invalidates the region advertised in", keep(p + ".tie.invalidates"), FT_FRAMENUM, BASE_NONE, nullptr, 0x0,
        "This Send with Invalidate names the STag of a region advertised in that frame", HFILL}},
  };
  static std::deque<std::vector<hf_register_info>> arrays;
  std::vector<hf_register_info>& a = arrays.emplace_back(std::begin(hf), std::end(hf));
  proto_register_field_array(proto, a.data(), static_cast<int>(a.size()));
}

}  // namespace

void register_ulp(void) {
  Ids& i = ids();
  static value_string errs[G_N_ELEMENTS(ulp::rpcrdma::names::kErr) + 1] = {};
  for (std::size_t k = 0; k < G_N_ELEMENTS(ulp::rpcrdma::names::kErr); ++k)
    errs[k] = {static_cast<guint32>(ulp::rpcrdma::names::kErr[k].value), ulp::rpcrdma::names::kErr[k].name.data()};
  static hf_register_info hf[] = {
      {&i.rpcrdma_item_follows,
       {"Item follows", "rdmaconf.rpcrdma.item_follows", FT_UINT32, BASE_DEC, nullptr, 0x0,
        "XDR optional-data discriminator of a chunk list: 1, an entry follows; 0, the list ends (RFC 8166 §4.3)",
        HFILL}},
      {&i.rpcrdma_segment_count,
       {"Segment count", "rdmaconf.rpcrdma.segment_count", FT_UINT32, BASE_DEC, nullptr, 0x0,
        "Segments in the chunk (RFC 8166 §3.4.4)", HFILL}},
      {&i.rpcrdma_err,
       {"Error", "rdmaconf.rpcrdma.err", FT_UINT32, BASE_DEC, VALS(errs), 0x0, "RDMA_ERROR code (RFC 8166 §4.5)", HFILL}},
      {&i.rpcrdma_call_in,
       {"Call in", "rdmaconf.rpcrdma.call_in", FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0,
        "The Send of the Call with this XID", HFILL}},
      {&i.rpcrdma_reply_in,
       {"Reply in", "rdmaconf.rpcrdma.reply_in", FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0x0,
        "The Send of the Reply with this XID", HFILL}},
      {&i.rpcrdma_rpc_completed_in,
       {"RPC message completed in", "rdmaconf.rpcrdma.rpc_completed_in", FT_FRAMENUM, BASE_NONE, nullptr, 0x0,
        "The Read Response that brings the last Read chunk data; the RPC message is shown there", HFILL}},
      {&i.rpcrdma_rpc_call_from,
       {"RPC-over-RDMA header in", "rdmaconf.rpcrdma.header_in", FT_FRAMENUM, BASE_NONE, nullptr, 0x0,
        "The Send whose Read chunks this Read Response completes", HFILL}},
      {&i.rpcrdma_rpc_length,
       {"Rebuilt RPC message length", "rdmaconf.rpcrdma.rpc_length", FT_UINT32, BASE_DEC, nullptr, 0x0,
        "Octets of the RPC message with the chunk data put back (RFC 8166 §3.4.4)", HFILL}},
      {&i.rpcrdma_note,
       {"RPC message not shown", "rdmaconf.rpcrdma.note", FT_STRING, BASE_NONE, nullptr, 0x0,
        "Why the RPC message cannot be put together from what was captured", HFILL}},
  };
  proto_register_field_array(i.proto_rpcrdma, hf, static_cast<int>(G_N_ELEMENTS(hf)));
  register_ties(i.proto_rpcrdma, i.rpcrdma_tie, "rdmaconf.rpcrdma");
  register_ties(i.proto_iser, i.iser_tie, "rdmaconf.iser");
}

void handoff_ulp(void) {
  Ids& i = ids();
  i.rpc_handle = find_dissector_add_dependency("rpc", i.proto_rpcrdma);
  i.iscsi_handle = find_dissector_add_dependency("iscsi", i.proto_iser);
}

}  // namespace rdmaconf::dissector
