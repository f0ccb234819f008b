// A StreamConsumer that checks what TCP reassembly (pcap/capture) promises
// its users, for the capture fuzz targets:
//  - each direction's data and gaps arrive in stream order, back to back:
//    every callback starts where the previous one ended, from offset 0;
//  - every started stream ends exactly once, and nothing arrives after it;
//  - every report prints;
//  - SCTP over IP (protocol 132) is taken, and its packet decoder
//    (sctp/packet.hpp) keeps every chunk, DATA user data and INIT parameter
//    inside the packet's octets.
#pragma once

#include <cstdint>
#include <map>

#include "capture/reassembly.hpp"
#include "common/input.hpp"
#include "sctp/packet.hpp"

namespace rdmaconf::fuzz {

class CheckingConsumer : public capture::StreamConsumer {
 public:
  void on_stream_start(capture::Stream& s) override {
    FUZZ_CHECK(next_.find(&s) == next_.end());
    next_[&s] = 0;
    ++started_;
  }
  void on_data(capture::Stream& s, const capture::StreamData& d) override {
    auto it = next_.find(&s);
    FUZZ_CHECK(it != next_.end());
    FUZZ_CHECK(d.offset == it->second);
    FUZZ_CHECK(!d.bytes.empty());
    it->second += d.bytes.size();
    // Touch every octet: ASan sees a view that outlived its frame.
    for (std::uint8_t b : d.bytes) checksum_ += b;
  }
  void on_gap(capture::Stream& s, const capture::StreamGap& g) override {
    auto it = next_.find(&s);
    FUZZ_CHECK(it != next_.end());
    FUZZ_CHECK(g.offset == it->second);
    FUZZ_CHECK(g.length > 0);
    it->second += g.length;
  }
  void on_stream_end(capture::Stream& s, capture::StreamEnd) override {
    auto it = next_.find(&s);
    FUZZ_CHECK(it != next_.end());
    FUZZ_CHECK(s.next_offset() == it->second);
    next_.erase(it);
    ++ended_;
  }
  void on_report(const capture::Report& r) override { FUZZ_CHECK(!r.to_string().empty()); }
  bool wants_sctp() const override { return true; }
  bool on_sctp(const capture::SctpPacket& p) override {
    const wire::Bytes packet = p.packet;
    auto h = sctp::decode_packet_header(packet);
    if (!h) return true;
    FUZZ_CHECK(h->chunks.size() + sctp::CommonHeader::kSize == packet.size());
    sctp::ChunkWalker walker(h->chunks);
    for (;;) {
      auto c = walker.next();
      if (!c || !*c) break;
      const sctp::ChunkView& v = **c;
      FUZZ_CHECK(v.offset + v.octets.size() <= packet.size());
      FUZZ_CHECK(v.octets.data() == packet.data() + v.offset);
      if (v.type == sctp::chunk_type::kData) {
        if (auto d = sctp::decode_data_chunk(v)) {
          FUZZ_CHECK(!d->user_data.empty());
          FUZZ_CHECK(d->user_data.data() + d->user_data.size() <= v.octets.data() + v.octets.size());
          for (std::uint8_t b : d->user_data) checksum_ += b;
        }
      } else if (v.type == sctp::chunk_type::kInit || v.type == sctp::chunk_type::kInitAck) {
        if (auto i = sctp::decode_init_chunk(v); i && i->adaptation_indication) checksum_ += *i->adaptation_indication;
      }
    }
    return true;
  }

  // After Reassembler::finish(): every stream ended.
  void check_all_ended() const {
    FUZZ_CHECK(next_.empty());
    FUZZ_CHECK(started_ == ended_);
  }

 private:
  std::map<const capture::Stream*, std::uint64_t> next_;
  std::uint64_t started_ = 0, ended_ = 0;
  std::uint64_t checksum_ = 0;
};

// Small limits so that short inputs reach every bound (per-stream, total,
// history, connections).
inline capture::ReassemblyLimits tight_limits(std::uint8_t selector) {
  capture::ReassemblyLimits l;
  if (selector & 1) {
    l.max_held_per_stream = 256;
    l.max_held_total = 1024;
    l.history_per_stream = 64;
    l.max_history_total = 256;
    l.max_connections = 3;
  }
  l.gaps_from_acks = (selector & 2) == 0;
  return l;
}

}  // namespace rdmaconf::fuzz
