// One RDMAP endpoint for the stateful fuzz targets: an rdmap::Stream with
// memory registered in every access combination the RFCs distinguish, posted
// receives, and the checks every segment it sends and every completion it
// reports must pass, whatever it was fed.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/header_check.hpp"
#include "common/input.hpp"
#include "rdmap/stream.hpp"
#include "rdmap/terminate.hpp"

namespace rdmaconf::fuzz {

// Stream configuration from two input octets: MULPDU, IRD/ORD and which
// receive checks are switched off (a deliberately faulty peer must still
// never touch memory outside its buffers; ASan watches).
inline rdmap::StreamConfig stream_config(std::uint8_t a, std::uint8_t b, std::uint8_t faults) {
  rdmap::StreamConfig c;
  c.mulpdu = 72 + std::size_t{a} * 4;  // room for the 18 + 52 octets of an Atomic Request
  c.ird = 1 + (b & 7);
  c.ord = 1 + ((b >> 3) & 7);
  // Bit k of `faults` switches off Fault k*2 (a spread over all of them).
  for (std::size_t k = 0; k < 8; ++k)
    if (faults & (1u << k)) c.faults.set(static_cast<rdmap::Fault>((k * 2 + (b >> 6)) % static_cast<std::size_t>(rdmap::Fault::kCount)));
  return c;
}

class RdmapSide {
 public:
  static constexpr std::size_t kRegions = 5;

  explicit RdmapSide(const rdmap::StreamConfig& config) {
    using A = ddp::Access;
    // Regions: remote read/write/atomic; local-write-only sink for Read
    // Responses; remote write near the top of the 64-bit TO space; remote
    // read only; registered without remote invalidation.
    static constexpr struct {
      std::size_t size;
      std::uint64_t base_to;
      A access;
      bool remote_invalidate;
    } kLayout[kRegions] = {
        {256, 0x1000, A::kRemoteRead | A::kRemoteWrite | A::kRemoteAtomic | A::kLocalWrite | A::kLocalRead, true},
        {96, 0x0, A::kLocalWrite | A::kLocalRead, true},
        {128, ~std::uint64_t{0} - 127, A::kRemoteWrite, true},
        {64, 0x40, A::kRemoteRead, true},
        {64, 0x2000, A::kRemoteWrite | A::kLocalWrite, false},
    };
    // One allocation per region and per posted receive, each its own, so
    // that ASan sees an octet written past any one of them.
    memory_.reserve(kRegions);
    receives_.reserve(8);
    for (const auto& r : kLayout) memory_.emplace_back(r.size, std::uint8_t{0xee});
    stream_.emplace(config);
    for (std::size_t i = 0; i < kRegions; ++i) {
      stags_[i] = stream_->register_memory(memory_[i], kLayout[i].base_to, kLayout[i].access,
                                           kLayout[i].remote_invalidate);
      base_to_[i] = kLayout[i].base_to;
    }
  }

  rdmap::Stream& stream() { return *stream_; }
  ddp::Stag stag(std::size_t i) const { return stags_[i % kRegions]; }
  std::uint64_t base_to(std::size_t i) const { return base_to_[i % kRegions]; }
  std::size_t region_size(std::size_t i) const { return memory_[i % kRegions].size(); }

  void post_receive(std::size_t size) {
    receives_.emplace_back(size, std::uint8_t{0xcc});
    largest_receive_ = std::max(largest_receive_, size);
    stream_->post_receive(next_wr_++, receives_.back());
  }
  std::uint64_t next_wr() { return next_wr_++; }

  // Takes the next outgoing segment, checks it, returns its octets: a view
  // of one buffer this side reuses, valid until the next take_outgoing().
  std::optional<Bytes> take_outgoing() {
    auto s = stream_->take_outgoing();
    if (!s) return std::nullopt;
    outgoing_.assign(s->header().begin(), s->header().end());
    s->payload.for_each([&](Bytes p) { outgoing_.insert(outgoing_.end(), p.begin(), p.end()); });
    check_outgoing(outgoing_);
    return Bytes(outgoing_);
  }

  // Every segment we send has a DDP header of the kind its opcode uses,
  // fits the MULPDU, and a Terminate we send is one we decode to what the
  // stream says it sent.
  void check_outgoing(Bytes octets) {
    FUZZ_CHECK(octets.size() <= stream_->config().mulpdu);
    FUZZ_CHECK(octets.size() >= ddp::kControlSize);
    const ddp::Control ctl = ddp::Control::from_octets(octets[0], octets[1]);
    FUZZ_CHECK(octets.size() >= ctl.header_size());
    FUZZ_CHECK(ctl.dv == ddp::kDdpVersion);
    const rdmap::Control rc = rdmap::Control::from_octet(ctl.rsvd_ulp);
    const rdmap::OpcodeInfo* op = rdmap::find_opcode(rc.opcode);
    FUZZ_CHECK(op != nullptr && op->tagged == ctl.tagged && rc.rv == rdmap::kRdmapVersion);
    if (ctl.tagged) {
      header_round_trip<ddp::TaggedSpec>(octets);
    } else {
      auto h = header_round_trip<ddp::UntaggedSpec>(octets);
      FUZZ_CHECK(op->queue && h.get(ddp::UntaggedSpec::Field::QN) == static_cast<std::uint32_t>(*op->queue));
    }
    if (op->opcode == rdmap::Opcode::kTerminate) {
      auto t = rdmap::decode_terminate(octets.subspan(ddp::kUntaggedHeaderSize));
      FUZZ_CHECK(t.ok());
      FUZZ_CHECK(stream_->terminate_sent().has_value() && *t == *stream_->terminate_sent());
    }
  }

  // Completions say no more than what was posted.
  void drain_completions() {
    while (auto c = stream_->poll_completion()) {
      if (c->type == rdmap::CompletionType::kTerminateReceived)
        FUZZ_CHECK(c->terminate.has_value() != c->terminate_error.has_value());
      // With the message-length check off, a too-long Send is clipped to
      // the buffer but reported with its length (nothing is written beyond).
      if (c->type == rdmap::CompletionType::kReceive && c->status == rdmap::CompletionStatus::kSuccess &&
          !stream_->config().faults.has(rdmap::Fault::kSkipMessageLengthCheck))
        FUZZ_CHECK(c->byte_len <= largest_receive_);
      ++completions_;
    }
  }

 private:
  std::vector<std::vector<std::uint8_t>> memory_;
  std::vector<std::vector<std::uint8_t>> receives_;  // each buffer stays put when the list grows
  std::array<ddp::Stag, kRegions> stags_{};
  std::array<std::uint64_t, kRegions> base_to_{};
  std::vector<std::uint8_t> outgoing_;  // the segment take_outgoing() returned last
  std::optional<rdmap::Stream> stream_;  // declared last: destroyed before the memory it refers to
  std::uint64_t next_wr_ = 1;
  std::uint64_t completions_ = 0;
  std::size_t largest_receive_ = 0;
};

// Hands a segment over as MPA's deframer may: split in up to three views.
inline void hand_over(rdmap::Stream& to, wire::Bytes octets, std::uint8_t split) {
  wire::Chunks c;
  const std::size_t a = octets.empty() ? 0 : (split & 0x0f) % octets.size();
  const std::size_t b = octets.empty() ? 0 : a + ((split >> 4) % (octets.size() - a + 1));
  c.append(octets.first(a));
  c.append(octets.subspan(a, b - a));
  c.append(octets.subspan(b));
  to.on_segment(c);
}

}  // namespace rdmaconf::fuzz
