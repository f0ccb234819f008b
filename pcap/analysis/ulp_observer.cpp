// ULP recognition and decoding on an RDMAP connection (ulp_observer.hpp).
#include "analysis/hex.hpp"
#include "analysis/ulp_observer.hpp"

#include <cstdio>

#include "ulp/iser.hpp"
#include "ulp/rpcrdma.hpp"
#include "ulp/smbd.hpp"

namespace rdmaconf::analysis {

namespace {

// An RPC-over-RDMA header that a Send of another ULP is unlikely to mimic:
// version 1, a procedure that carries lists, and for RDMA_MSG an RPC
// message that starts with the same XID (RFC 8166 §4.2.1 requires it).
bool looks_like_rpcrdma(const ulp::rpcrdma::Message& m) {
  using ulp::rpcrdma::Proc;
  if (m.is(Proc::kMsg)) return m.rpc_xid == m.xid;
  return m.is(Proc::kNoMsg) && (!m.read_list.empty() || !m.write_list.empty() || m.reply_chunk);
}

// An iSER header (RFC 7145 §9.2: reserved bits zero) before a known iSCSI
// opcode, or a Hello.
bool looks_like_iser(const ulp::iser::Message& m) {
  if (m.opcode == static_cast<std::uint8_t>(ulp::iser::Opcode::kHello)) return m.max_ver == ulp::iser::kVersion;
  return m.opcode == static_cast<std::uint8_t>(ulp::iser::Opcode::kControl) && m.reserved == 0 &&
         !ulp::iser::iscsi_opcode_name(m.iscsi_opcode).empty();
}

// An SMB Direct Negotiate Request (MS-SMBD §2.2.1, §3.1.5.2): exactly its
// 20 octets, the whole Send, from the initiator, offering version 1.0 only
// (MinVersion and MaxVersion 0x0100) with Reserved zero. Neither an iSER
// Send (28 octets at least) nor an RPC-over-RDMA one (its second word would
// be 0x00000a00-like, not version 1) fits, so it steals neither.
bool looks_like_smbd(wire::Bytes p, const SendContext& c) {
  if (c.side != 0 || !c.whole || p.size() != ulp::smbd::kNegotiateRequestSize) return false;
  const auto m = ulp::smbd::decode(p, ulp::smbd::Kind::kNegotiateRequest);
  return m && m->min_version == ulp::smbd::kVersion1 && m->max_version == ulp::smbd::kVersion1 && m->reserved == 0;
}

// MS-SMB2 §2.2.1.2: the command codes of the SMB2 header, whose ProtocolId
// is 0xFE 'S' 'M' 'B' and whose Command is the 16-bit little-endian word at
// octet 12.
constexpr std::string_view kSmb2Commands[] = {
    "NEGOTIATE", "SESSION_SETUP", "LOGOFF", "TREE_CONNECT", "TREE_DISCONNECT", "CREATE", "CLOSE",
    "FLUSH", "READ", "WRITE", "LOCK", "IOCTL", "CANCEL", "ECHO", "QUERY_DIRECTORY", "CHANGE_NOTIFY",
    "QUERY_INFO", "SET_INFO", "OPLOCK_BREAK"};
std::string smb2_command(wire::Bytes data) {
  if (data.size() < 14 || data[0] != 0xfe || data[1] != 'S' || data[2] != 'M' || data[3] != 'B') return {};
  const unsigned command = data[12] | (data[13] << 8);
  return "SMB2 " + (command < std::size(kSmb2Commands) ? std::string(kSmb2Commands[command])
                                                        : "command " + std::to_string(command));
}

std::string chunk_text(const ulp::rpcrdma::WriteChunk& c) {
  return std::to_string(c.segments.size()) + (c.segments.size() == 1 ? " segment" : " segments") + " (" +
         std::to_string(c.length()) + " octets)";
}

}  // namespace

std::string_view name(Ulp u) {
  switch (u) {
    case Ulp::kRpcRdma: return "rpc-over-rdma";
    case Ulp::kIser: return "iser";
    case Ulp::kSmbDirect: return "smb-direct";
    default: return "unknown";
  }
}
std::optional<Ulp> ulp_from_name(std::string_view s) {
  for (Ulp u : {Ulp::kRpcRdma, Ulp::kIser, Ulp::kSmbDirect, Ulp::kUnknown})
    if (name(u) == s) return u;
  if (s == "nfs-rdma" || s == "nfs") return Ulp::kRpcRdma;
  if (s == "smbd") return Ulp::kSmbDirect;
  return std::nullopt;
}

std::optional<UlpChoice> parse_ulp_choice(std::string_view text) {
  UlpChoice c;
  const auto colon = text.find(':');
  const auto u = ulp_from_name(text.substr(0, colon));
  if (!u) return std::nullopt;
  c.ulp = *u;
  if (colon != std::string_view::npos) {
    const std::string_view port = text.substr(colon + 1);
    unsigned v = 0;
    if (port.empty() || port.size() > 5) return std::nullopt;
    for (char ch : port) {
      if (ch < '0' || ch > '9') return std::nullopt;
      v = v * 10 + static_cast<unsigned>(ch - '0');
    }
    if (v == 0 || v > 65535) return std::nullopt;
    c.port = static_cast<std::uint16_t>(v);
  }
  return c;
}

std::string_view name(UlpSource s) {
  switch (s) {
    case UlpSource::kPrivateData: return "MPA private data";
    case UlpSource::kFirstSend: return "first Send";
    case UlpSource::kUser: return "user";
    default: return "none";
  }
}

void UlpObserver::recognise(Ulp u, UlpSource how) {
  if (stats_.source == UlpSource::kUser) return;
  stats_.ulp = u;
  stats_.source = how;
}

void UlpObserver::set_user(Ulp u) {
  stats_.ulp = u;
  stats_.source = UlpSource::kUser;
}

void UlpObserver::on_private_data(wire::Bytes ulp_private_data) {
  if (stats_.ulp == Ulp::kUnknown && ulp::rpcrdma::read_private_data(ulp_private_data))
    recognise(Ulp::kRpcRdma, UlpSource::kPrivateData);
}

const UlpMessage* UlpObserver::on_send(wire::Bytes p, const SendContext& context) {
  if (stats_.ulp == Ulp::kUnknown && stats_.source != UlpSource::kUser) {
    if (unrecognised_sends_ >= kRecogniseWithin) return nullptr;
    ++unrecognised_sends_;
    auto iser = ulp::iser::decode(p);
    auto rpc = ulp::rpcrdma::decode(p);
    if (iser && looks_like_iser(*iser)) recognise(Ulp::kIser, UlpSource::kFirstSend);
    else if (rpc && looks_like_rpcrdma(*rpc)) recognise(Ulp::kRpcRdma, UlpSource::kFirstSend);
    else if (looks_like_smbd(p, context)) recognise(Ulp::kSmbDirect, UlpSource::kFirstSend);
    else return nullptr;
  }
  last_ = UlpMessage{};
  last_.ulp = stats_.ulp;
  if (stats_.ulp == Ulp::kRpcRdma) {
    auto m = ulp::rpcrdma::decode(p);
    if (!m) {
      ++stats_.undecoded;
      last_.error = m.error().to_string();
      return &last_;
    }
    const std::string proc(ulp::rpcrdma::proc_name(m->proc));
    ++stats_.messages[proc];
    stats_.read_segments += m->read_list.size();
    stats_.write_chunks += m->write_list.size();
    stats_.reply_chunks += m->reply_chunk ? 1 : 0;
    std::string s = proc + " xid=" + hex(m->xid) + " credits=" + std::to_string(m->credits);
    for (const auto& r : m->read_list)
      s += " read " + hex(r.target.handle) + "+" + hex(r.target.offset) + " " + std::to_string(r.target.length) +
           " octets at position " + std::to_string(r.position);
    for (const auto& w : m->write_list) s += " write chunk " + chunk_text(w);
    if (m->reply_chunk) s += " reply chunk " + chunk_text(*m->reply_chunk);
    if (m->is(ulp::rpcrdma::Proc::kError)) s += " error " + std::to_string(m->err);
    if (m->rpc_call) s += " call " + ulp::rpcrdma::rpc_procedure_name(*m->rpc_call);
    else if (m->rpc_msg_type == ulp::onc_rpc::kReply) s += " reply";
    if (context.with_invalidate) s += " invalidate " + hex(context.invalidate_stag);
    track_rpc(*m, context);
    last_.decoded = true;
    last_.summary = std::move(s);
  } else if (stats_.ulp == Ulp::kIser) {
    auto m = ulp::iser::decode(p);
    if (!m) {
      ++stats_.undecoded;
      last_.error = m.error().to_string();
      return &last_;
    }
    std::string s;
    if (m->opcode == static_cast<std::uint8_t>(ulp::iser::Opcode::kControl)) {
      const std::string_view op = ulp::iser::iscsi_opcode_name(m->iscsi_opcode);
      const std::string what = op.empty() ? "iSCSI opcode " + hex(m->iscsi_opcode) : std::string(op);
      ++stats_.messages[what];
      stats_.write_stags += m->wsv;
      stats_.read_stags += m->rsv;
      s = what + " itt=" + hex(m->itt);
      if (m->wsv) s += " write_stag=" + hex(m->write_stag) + "+" + hex(m->write_base_offset);
      if (m->rsv) s += " read_stag=" + hex(m->read_stag) + "+" + hex(m->read_base_offset);
      if (m->iscsi_opcode == ulp::iser::kScsiCommand) {
        const std::string_view cdb = ulp::iser::scsi_opcode_name(m->cdb_opcode);
        s += " " + (cdb.empty() ? "operation " + hex(m->cdb_opcode) : std::string(cdb)) +
             " edtl=" + std::to_string(m->expected_data_transfer_length);
      }
      if (m->data_segment_length) s += " data=" + std::to_string(m->data_segment_length);
      if (context.with_invalidate) s += " invalidate " + hex(context.invalidate_stag);
      track_iser(*m, context);
    } else {
      const bool hello = m->opcode == static_cast<std::uint8_t>(ulp::iser::Opcode::kHello);
      ++stats_.messages[hello ? "iSER Hello" : "iSER HelloReply"];
      s = std::string(hello ? "iSER Hello ird=" : "iSER HelloReply ord=") + std::to_string(m->ird_or_ord) +
          (m->rej ? " rejected" : "");
    }
    last_.decoded = true;
    last_.summary = std::move(s);
  } else if (stats_.ulp == Ulp::kSmbDirect) {
    on_smbd(p, context);
  }
  return &last_;
}

void UlpObserver::on_smbd(wire::Bytes p, const SendContext& c) {
  using ulp::smbd::Kind;
  const std::size_t side = c.side == 0 ? 0 : 1;
  // MS-SMBD §3.1.5: each side's first Send is its negotiate message (the
  // initiator's the Request, the peer's the Response), every later one a
  // Data Transfer. A capture that starts mid-connection shows none.
  Kind kind = Kind::kDataTransfer;
  if (!smbd_negotiated_[side] && c.synced) kind = side == 0 ? Kind::kNegotiateRequest : Kind::kNegotiateResponse;
  smbd_negotiated_[side] = true;
  auto m = ulp::smbd::decode(p, kind, c.whole);
  if (!m) {
    ++stats_.undecoded;
    last_.error = std::string(ulp::smbd::kind_name(kind)) + ": " + m.error().to_string();
    return;
  }
  ++stats_.messages[std::string(ulp::smbd::kind_name(kind))];
  std::string s(ulp::smbd::kind_name(kind));
  const auto version = [](std::uint16_t v) { return std::to_string(v >> 8) + "." + std::to_string(v & 0xff); };
  if (kind != Kind::kDataTransfer) {
    s += " versions " + version(m->min_version) + "-" + version(m->max_version);
    if (kind == Kind::kNegotiateResponse)
      s += " negotiated " + version(m->negotiated_version) + " status=" + hex(m->status) +
           " credits_granted=" + std::to_string(m->credits_granted) +
           " max_read_write=" + std::to_string(m->max_read_write_size);
    s += " credits_requested=" + std::to_string(m->credits_requested) +
         " preferred_send=" + std::to_string(m->preferred_send_size) +
         " max_receive=" + std::to_string(m->max_receive_size) +
         " max_fragmented=" + std::to_string(m->max_fragmented_size);
  } else {
    s += " credits_requested=" + std::to_string(m->credits_requested) +
         " credits_granted=" + std::to_string(m->credits_granted);
    if (m->response_requested()) s += " response requested";
    if (m->data_length) {
      s += " data=" + std::to_string(m->data_length) + " at " + std::to_string(m->data_offset);
      if (m->remaining_data_length) s += " remaining=" + std::to_string(m->remaining_data_length);
      // An upper-layer message starts in this Send unless the previous one
      // from this side said more was to come (MS-SMBD §2.2.3).
      if (smbd_fragmenting_[side]) {
        s += " (continued fragment)";
      } else if (const std::string cmd = smb2_command(m->data); !cmd.empty()) {
        ++stats_.operations[cmd];
        s += " " + cmd;
      }
      smbd_fragmenting_[side] = m->remaining_data_length != 0;
    }
  }
  if (c.with_invalidate) s += " invalidate " + hex(c.invalidate_stag);
  last_.decoded = true;
  last_.summary = std::move(s);
}

}  // namespace rdmaconf::analysis
