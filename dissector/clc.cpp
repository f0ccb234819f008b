// The SMC CLC display (RFC 7609 App. A, SMC v2 as Linux net/smc sends it).
//
// The observer (connection.cpp) frames each CLC message, checks it (format,
// order, consistency across Proposal, Accept and Confirm, Decline rules) and
// hands it here whole, reassembled when it spans segments; it is decoded by
// the reference codec (clc::decode) and shown block by block through the
// block declarations. The SMC TCP option (RFC 7609 §3.1, kind 254 with ExID
// "SMCR") is watched in the SYNs: the observer is told which SYNs carried
// it, and a connection whose SYNs both did is claimed before its first data.
#include <new>
#include <string>

#include "clc/decline_codes.hpp"
#include "clc/headers.hpp"
#include "clc/messages.hpp"
#include "clc/tcp_option.hpp"
#include "generated_fields.hpp"
#include "plugin.hpp"

namespace rdmaconf::dissector {

SmcOptions* smc_options(packet_info* pinfo, bool create) {
  conversation_t* conv = create ? find_or_create_conversation(pinfo) : find_conversation_pinfo(pinfo, 0);
  if (!conv) return nullptr;
  auto* c = static_cast<SmcOptions*>(conversation_get_proto_data(conv, ids().proto_clc));
  if (!c && create) {
    c = new (wmem_alloc0(wmem_file_scope(), sizeof(SmcOptions))) SmcOptions{};
    conversation_add_proto_data(conv, ids().proto_clc, c);
  }
  return c;
}

namespace {

dissector_handle_t g_tcp_exp_option = nullptr;  // Wireshark's own kind-254 dissector

// The blocks of a decoded message, in wire order, with their declarations.
// The order is the one clc::encode writes; each block's octets are compared
// with the received ones, so a disagreement shows up as raw octets rather
// than as fields at the wrong place.
struct Block {
  const wire::HeaderDecl* decl;
  wire::Bytes bytes;
};

template <typename H>
void push(std::vector<Block>& out, const H& h) {
  out.push_back({&H::decl, h.bytes()});
}
template <typename H>
void push(std::vector<Block>& out, const std::optional<H>& h) {
  if (h) push(out, *h);
}
template <typename L>
void push_list(std::vector<Block>& out, const L& list) {
  for (const auto& h : list) push(out, h);
}

std::vector<Block> blocks_of(const clc::Message& msg, wire::Bytes& growth) {
  std::vector<Block> b;
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        push(b, m.header);
        if constexpr (std::is_same_v<T, clc::Proposal>) {
          push(b, m.body);
          if (m.smcd) push(b, *m.smcd);
          else if (!m.v1_growth_area.empty()) {
            growth = wire::Bytes(m.v1_growth_area);
            b.push_back({nullptr, growth});
          }
          push(b, m.ip_prefix);
          push_list(b, m.ipv6_prefixes);
          push(b, m.v2_ext);
          push_list(b, m.user_eids);
          push(b, m.smcd_v2_ext);
          push_list(b, m.ism_gids);
        } else if constexpr (std::is_same_v<T, clc::AcceptConfirm>) {
          push(b, m.smcr);
          push(b, m.smcr_v2);
          push(b, m.smcd);
          push(b, m.smcd_v1);
          push(b, m.smcd_v2);
          push(b, m.fce);
          push(b, m.fce_v2x);
          push(b, m.gid_list);
          push_list(b, m.gids);
        } else {
          push(b, m.body);
          push(b, m.v2_diagnosis);
        }
        push(b, m.trailer);
      },
      msg);
  return b;
}

void add_type_bits(proto_tree* tree, tvbuff_t* tvb, int offset, clc::MessageType type) {
  add_overlay(tree, tvb, offset, clc::type_bits_decl(type));
}

// The Peer Diagnosis Information's category and Linux name, over the field.
void add_decline_names(proto_tree* tree, tvbuff_t* tvb, int body_at) {
  const Ids& i = ids();
  using DF = clc::DeclineSpec::Field;
  const auto code = read_field<clc::DeclineBody>(tvb, body_at, DF::PeerDiagnosis);
  if (!tree || !code) return;
  const wire::FieldDecl& f = clc::DeclineBody::field_decl(DF::PeerDiagnosis);
  const int at = body_at + field_offset(f), length = field_length(f);
  const clc::DeclineCode* dc = clc::find_decline_code(static_cast<std::uint32_t>(*code));
  std::string category(clc::decline_category(static_cast<std::uint32_t>(*code)));
  proto_item_set_generated(proto_tree_add_string(tree, i.clc_decline_category, tvb, at, length, category.c_str()));
  if (dc) {
    std::string linux_name = "SMC_CLC_DECL_" + std::string(dc->linux_name);
    proto_item_set_generated(proto_tree_add_string(tree, i.clc_decline_linux_name, tvb, at, length, linux_name.c_str()));
  }
}

}  // namespace

proto_tree* show_clc(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, const MessageRecord&) {
  const Ids& i = ids();
  const int size = static_cast<int>(tvb_captured_length(tvb));
  proto_item* ti = proto_tree_add_item(tree, i.proto_clc, tvb, 0, size, ENC_NA);
  proto_tree* ct = proto_item_add_subtree(ti, i.ett_clc);
  if (size < static_cast<int>(clc::kHeaderSize + clc::kTrailerSize)) return ct;
  using HF = clc::ClcHeaderSpec::Field;
  const auto type = static_cast<clc::MessageType>(read_field<clc::ClcHeader>(tvb, 0, HF::Type).value_or(0));
  const auto version = static_cast<unsigned>(read_field<clc::ClcHeader>(tvb, 0, HF::Version).value_or(0));
  const std::string_view type_name =
      wire::value_name(clc::ClcHeader::field_decl(HF::Type), static_cast<std::uint64_t>(type));
  proto_item_append_text(ti, ", %.*s v%u", static_cast<int>(type_name.size()), type_name.data(), version);
  col_append_sep_fstr(pinfo->cinfo, COL_INFO, ", ", "CLC %.*s v%u", static_cast<int>(type_name.size()),
                      type_name.data(), version);

  const wire::Bytes octets(tvb_get_ptr(tvb, 0, size), static_cast<std::size_t>(size));
  auto decoded = clc::decode(octets);
  if (!decoded) {
    // Header and trailer positions are fixed; the rest is shown raw.
    proto_tree* ht = add_header(ct, tvb, 0, clc::ClcHeaderSpec::decl);
    add_type_bits(ht, tvb, 0, type);
    if (size > static_cast<int>(clc::kHeaderSize + clc::kTrailerSize))
      proto_tree_add_item(ct, i.clc_raw, tvb, static_cast<int>(clc::kHeaderSize),
                          size - static_cast<int>(clc::kHeaderSize + clc::kTrailerSize), ENC_NA);
    add_header(ct, tvb, size - static_cast<int>(clc::kTrailerSize), clc::TrailerSpec::decl);
    return ct;
  }
  wire::Bytes growth;
  const std::vector<Block> blocks = blocks_of(*decoded, growth);
  int at = 0;
  for (const Block& b : blocks) {
    const int n = static_cast<int>(b.bytes.size());
    if (at + n > size || tvb_memeql(tvb, at, b.bytes.data(), b.bytes.size()) != 0) {
      proto_tree_add_item(ct, i.clc_raw, tvb, at, size - at, ENC_NA);
      break;
    }
    if (!b.decl) {
      proto_tree_add_item(ct, i.clc_raw, tvb, at, n, ENC_NA);
    } else {
      proto_tree* bt = add_header(ct, tvb, at, *b.decl);
      if (b.decl == &clc::ClcHeaderSpec::decl) add_type_bits(bt, tvb, at, type);
      if (b.decl == &clc::DeclineSpec::decl) add_decline_names(bt, tvb, at);
    }
    at += n;
  }
  if (const auto* d = std::get_if<clc::Decline>(&*decoded)) {
    const clc::DeclineCode* dc = clc::find_decline_code(d->diagnosis());
    col_append_fstr(pinfo->cinfo, COL_INFO, " (%s)", dc ? std::string(dc->meaning).c_str() : "unknown code");
  }
  return ct;
}

namespace {

// The SMC TCP option in a SYN or SYN-ACK (RFC 7609 §3.1): recorded for the
// conversation; CLC follows when both ends sent it. Other experiments'
// options go to Wireshark's own dissector unchanged.
// Each endpoint's experimental options, from the first frame that carries
// any (its SYN or SYN-ACK), for the observer (Connection::start).
void note_experimental(tvbuff_t* tvb, packet_info* pinfo, int length) {
  if (length < 4) return;  // no ExID to read
  const int option_length = tvb_get_guint8(tvb, 1);
  if (option_length < 4 || option_length > length) return;
  SmcOptions* c = smc_options(pinfo, true);
  int k = 0;
  while (k < c->syns && !(addresses_equal(&c->syn[k].from, &pinfo->src) && c->syn[k].port == pinfo->srcport)) ++k;
  if (k == 2) return;
  SmcOptions::Syn& syn = c->syn[k];
  if (k == c->syns) {
    copy_address_wmem(wmem_file_scope(), &syn.from, &pinfo->src);
    syn.port = pinfo->srcport;
    syn.frame = pinfo->num;
    ++c->syns;
  }
  if (syn.frame != pinfo->num) return;
  const wire::Bytes option(tvb_get_ptr(tvb, 0, option_length), static_cast<std::size_t>(option_length));
  syn.experimental.add(clc::read_experimental_option(option));
}

int dissect_tcp_exp_option(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void* data) {
  const Ids& i = ids();
  const int length = static_cast<int>(tvb_captured_length(tvb));
  int used = 0;
  if (g_tcp_exp_option) used = call_dissector_with_data(g_tcp_exp_option, tvb, pinfo, tree, data);
  if (!PINFO_FD_VISITED(pinfo)) note_experimental(tvb, pinfo, length);
  else if (length >= static_cast<int>(clc::kTcpOptionLengthSmc) &&
           clc::read_experimental_option(wire::Bytes(tvb_get_ptr(tvb, 0, length), static_cast<std::size_t>(length))).smc_exid())
    show_syn_violations(tvb, pinfo, tree);  // the option's form, as the observer judged it
  if (length < static_cast<int>(clc::kTcpOptionLengthSmc)) return used;
  const wire::Bytes option(tvb_get_ptr(tvb, 0, length), static_cast<std::size_t>(length));
  // The SMC ExID in any even length the receiver takes, as analyze's
  // capture layer reads it; its form is the observer's to judge.
  if (!clc::read_experimental_option(option).smc_exid()) return used;
  const wire::FieldDecl& exid = clc::SmcTcpOption::field_decl(clc::SmcTcpOptionSpec::Field::ExId);
  proto_item_set_generated(
      proto_tree_add_uint(tree, i.clc_smc_option, tvb, field_offset(exid), field_length(exid), clc::kTcpOptionSmcExId));
  if (!PINFO_FD_VISITED(pinfo)) {
    SmcOptions* c = smc_options(pinfo, true);
    bool known = false;
    for (int k = 0; k < c->count; ++k)
      known |= addresses_equal(&c->from[k], &pinfo->src) && c->port[k] == pinfo->srcport;
    if (!known && c->count < 2) {
      copy_address_wmem(wmem_file_scope(), &c->from[c->count], &pinfo->src);
      c->port[c->count] = pinfo->srcport;
      ++c->count;
    }
    if (clc::clc_follows(c->count >= 1, c->count >= 2))
      conversation_set_dissector(find_or_create_conversation(pinfo), i.clc_handle);
  }
  return used > 0 ? used : length;
}

}  // namespace

void register_clc(void) {
  Ids& i = ids();
  static hf_register_info hf[] = {
      {&i.clc_decline_category,
       {"Diagnosis category", "rdmaconf.clc.decline.category", FT_STRING, BASE_NONE, nullptr, 0x0,
        "From the code's high octet", HFILL}},
      {&i.clc_decline_linux_name,
       {"Linux name", "rdmaconf.clc.decline.linux_name", FT_STRING, BASE_NONE, nullptr, 0x0,
        "The SMC_CLC_DECL_* constant of the diagnosis code", HFILL}},
      {&i.clc_smc_option,
       {"SMC TCP option", "rdmaconf.clc.tcp_option", FT_UINT32, BASE_HEX, nullptr, 0x0,
        "Experimental option ExID EBCDIC \"SMCR\" (RFC 7609 §3.1)", HFILL}},
      {&i.clc_raw,
       {"Undecoded octets", "rdmaconf.clc.raw", FT_BYTES, BASE_NONE, nullptr, 0x0, nullptr, HFILL}},
  };
  proto_register_field_array(i.proto_clc, hf, static_cast<int>(G_N_ELEMENTS(hf)));
}

void handoff_clc(void) {
  Ids& i = ids();
  // Watch the SMC option: wrap Wireshark's experimental-option dissector.
  g_tcp_exp_option = dissector_get_uint_handle(find_dissector_table("tcp.option"), clc::kTcpOptionKindExperimental);
  dissector_add_uint("tcp.option", clc::kTcpOptionKindExperimental,
                     create_dissector_handle(dissect_tcp_exp_option, i.proto_clc));
}

}  // namespace rdmaconf::dissector
