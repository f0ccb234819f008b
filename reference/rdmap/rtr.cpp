#include "rdmap/rtr.hpp"

#include <array>

#include "ddp/headers.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"

namespace rdmaconf::rdmap {

bool is_rtr(mpa::RtrKind kind, const wire::Chunks& ulpdu) {
  // The longest RTR is an untagged header and a Read Request header.
  std::array<std::uint8_t, ddp::kUntaggedHeaderSize + kReadRequestHeaderSize> h{};
  const std::size_t n = std::min(ulpdu.size(), h.size());
  if (n < ddp::kControlSize || !ulpdu.copy_prefix(wire::MutableBytes(h).first(n))) return false;
  const ddp::Control ctl = ddp::Control::from_octets(h[0], h[1]);
  const auto opcode = static_cast<Opcode>(Control::from_octet(ctl.rsvd_ulp).opcode);
  switch (kind) {
    case mpa::RtrKind::kZeroLengthSend:
      return !ctl.tagged && ctl.last && opcode == Opcode::kSend && ulpdu.size() == ddp::kUntaggedHeaderSize;
    case mpa::RtrKind::kZeroLengthWrite:
      return ctl.tagged && ctl.last && opcode == Opcode::kRdmaWrite && ulpdu.size() == ddp::kTaggedHeaderSize;
    case mpa::RtrKind::kZeroLengthRead: {
      if (ctl.tagged || !ctl.last || opcode != Opcode::kRdmaReadRequest || ulpdu.size() != h.size()) return false;
      const ReadRequestHeader r(wire::Bytes(h).subspan(ddp::kUntaggedHeaderSize).first<kReadRequestHeaderSize>());
      return r.get(ReadRequestSpec::Field::ReadSize) == 0;
    }
    case mpa::RtrKind::kNone: return false;
  }
  return false;
}

bool is_rtr(const mpa::RtrKinds& kinds, const wire::Chunks& ulpdu) {
  for (mpa::RtrKind k : {mpa::RtrKind::kZeroLengthSend, mpa::RtrKind::kZeroLengthWrite, mpa::RtrKind::kZeroLengthRead})
    if (kinds.contains(k) && is_rtr(k, ulpdu)) return true;
  return false;
}

wire::Status post_rtr(Stream& stream, mpa::RtrKind kind, WorkRequestId id) {
  switch (kind) {
    case mpa::RtrKind::kZeroLengthSend: return stream.post_send(id, wire::Chunks{});
    case mpa::RtrKind::kZeroLengthWrite: return stream.post_write(id, wire::Chunks{}, ddp::Stag{0}, 0);
    case mpa::RtrKind::kZeroLengthRead: return stream.post_read(id, ReadRequest{});
    case mpa::RtrKind::kNone: break;
  }
  return {};
}

}  // namespace rdmaconf::rdmap
