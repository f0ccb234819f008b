// The start of an ONC RPC Call (RFC 5531 §9), declared once as data.
//
// RPC-over-RDMA carries RPC messages; which data item of a Reply a write
// chunk returns depends on the upper-layer binding of the Call's program and
// version (RFC 8166 §3.4.6.1, RFC 8267 §4). The first six words of the Call
// name them. Everything after (credentials, arguments) is the RPC program's,
// and stays Wireshark's to show.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "wire/field.hpp"

namespace rdmaconf::ulp::onc_rpc {

// RFC 5531 §9: msg_type CALL and rpcvers 2.
constexpr std::uint32_t kCall = 0;
constexpr std::uint32_t kReply = 1;
constexpr std::uint32_t kRpcVersion = 2;
// RFC 8267 §2 (RFC 1813): the NFS program.
constexpr std::uint32_t kNfsProgram = 100003;

namespace names {
inline constexpr wire::ValueName kMsgType[] = {{0, "CALL"}, {1, "REPLY"}};
}  // namespace names

struct CallSpec {
  enum class Field : std::uint8_t { XID, MsgType, RpcVers, Prog, Vers, Proc };
  static constexpr wire::FieldDecl fields[] = {
      {"XID", "xid", 0, 32, "transaction id the Reply repeats", "RFC 5531 §9", wire::Display::kHex},
      {"Message Type", "msg_type", 32, 32, "0: CALL, 1: REPLY", "RFC 5531 §9", wire::Display::kDecimal,
       names::kMsgType},
      {"RPC Version", "rpcvers", 64, 32, "2", "RFC 5531 §9", wire::Display::kDecimal},
      {"Program", "prog", 96, 32, "the remote program", "RFC 5531 §9", wire::Display::kDecimal},
      {"Program Version", "vers", 128, 32, "the program's version", "RFC 5531 §9", wire::Display::kDecimal},
      {"Procedure", "proc", 160, 32, "the procedure called", "RFC 5531 §9", wire::Display::kDecimal},
  };
  static constexpr wire::HeaderDecl decl{"ONC RPC Call header", "rpc.call", 24, fields, "RFC 5531 §9"};
};
using CallHeader = wire::Header<CallSpec>;

struct Call {
  std::uint32_t xid = 0, prog = 0, vers = 0, proc = 0;
};

// The Call at the start of an RPC message, or nullopt when the message is
// shorter than the six words or is not an RPC version 2 Call.
inline std::optional<Call> read_call(wire::Bytes message) {
  if (message.size() < CallSpec::decl.size_octets) return std::nullopt;
  using F = CallSpec::Field;
  if (CallHeader::read(message, F::MsgType) != kCall || CallHeader::read(message, F::RpcVers) != kRpcVersion)
    return std::nullopt;
  return Call{static_cast<std::uint32_t>(CallHeader::read(message, F::XID)),
              static_cast<std::uint32_t>(CallHeader::read(message, F::Prog)),
              static_cast<std::uint32_t>(CallHeader::read(message, F::Vers)),
              static_cast<std::uint32_t>(CallHeader::read(message, F::Proc))};
}

// Writes the six words of a CALL of `c` (msg_type CALL, rpcvers 2) through
// the declaration; what follows (credentials, arguments) is the caller's.
inline void encode_call(const Call& c, wire::ByteWriter& w) {
  using F = CallSpec::Field;
  CallHeader h;
  h.set(F::XID, c.xid).set(F::MsgType, kCall).set(F::RpcVers, kRpcVersion);
  h.set(F::Prog, c.prog).set(F::Vers, c.vers).set(F::Proc, c.proc);
  h.encode(w);
}
// Writes the two words every RPC message starts with (RFC 5531 §9: xid and
// the msg_type discriminant), the same first two fields of the Call
// declaration: a REPLY's start, or any message type a test asks for.
inline void encode_message_start(std::uint32_t xid, std::uint32_t msg_type, wire::ByteWriter& w) {
  using F = CallSpec::Field;
  CallHeader h;
  h.set(F::XID, xid).set(F::MsgType, msg_type);
  constexpr std::size_t kStart = CallHeader::field_decl(F::RpcVers).octet_offset();
  w.put(h.bytes().first(kStart));
}

}  // namespace rdmaconf::ulp::onc_rpc
