#include "replay/sink_map.hpp"

#include "ddp/headers.hpp"
#include "mpa/headers.hpp"
#include "wire/crc32c.hpp"

namespace rdmaconf::replay {

namespace {

// An FPDU without Markers: ULPDU_Length, then the tagged DDP header (RFC 5044 §4.1, RFC 5041 §4.2).
constexpr std::size_t kTaggedHeaderEnd = mpa::kUlpduLengthSize + ddp::kTaggedHeaderSize;

}  // namespace

void SinkMap::learn(const ReadSink& recorded, const ReadSink& live) {
  if (recorded.stag == live.stag && recorded.to == live.to) return;
  by_recorded_stag_[recorded.stag] = Live{live.stag, live.to - recorded.to};
}

RewriteResult SinkMap::rewrite(const TaggedFpdu& info, std::span<std::uint8_t> fpdu) const {
  const auto it = by_recorded_stag_.find(info.stag);
  if (it == by_recorded_stag_.end()) return RewriteResult::kUnchanged;
  if (info.has_markers || fpdu.size() != mpa::fpdu_length_without_markers(info.ulpdu_length) ||
      mpa::kUlpduLengthSize + info.ulpdu_length < kTaggedHeaderEnd)
    return RewriteResult::kNotRewritable;
  const std::span<std::uint8_t> ddp_header = fpdu.subspan(mpa::kUlpduLengthSize);
  ddp::TaggedHeader::write(ddp_header, ddp::TaggedSpec::Field::STag, it->second.stag);
  ddp::TaggedHeader::write(ddp_header, ddp::TaggedSpec::Field::TO, info.to + it->second.to_shift);
  const std::size_t covered = fpdu.size() - mpa::kCrcSize;  // RFC 5044 §4.4: CRC over all but itself
  if (info.crc_valid) {
    const auto crc = wire::crc32c_wire_octets(wire::crc32c(wire::Bytes(fpdu.first(covered))));
    std::copy(crc.begin(), crc.end(), fpdu.begin() + static_cast<std::ptrdiff_t>(covered));
  }
  return RewriteResult::kRewritten;
}

}  // namespace rdmaconf::replay
