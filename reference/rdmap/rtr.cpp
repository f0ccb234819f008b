#include "rdmap/rtr.hpp"

#include <array>

#include "check/mpa_startup.hpp"
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
  const std::size_t header = ctl.tagged ? ddp::kTaggedHeaderSize : ddp::kUntaggedHeaderSize;
  if (kind == mpa::RtrKind::kNone || ulpdu.size() < header) return false;
  // What an RTR is, is the rule layer's (check/mpa_startup.hpp), which the
  // capture observer judges the initiator's first FPDU with.
  const std::uint64_t read_size =
      !ctl.tagged && ulpdu.size() == h.size()
          ? ReadRequestHeader(wire::Bytes(h).subspan(ddp::kUntaggedHeaderSize).first<kReadRequestHeaderSize>())
                .get(ReadRequestSpec::Field::ReadSize)
          : ~std::uint64_t{0};
  return check::rtr_kind(ctl, Control::from_octet(ctl.rsvd_ulp).opcode, ulpdu.size() - header, read_size) == kind;
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
