// Replaying against a live peer: the Data Sinks the live peer chose.
//
// A recorded RDMA Read Request names the requester's Data Sink (Sink STag and
// Sink Tagged Offset), and the Read Response answering it must carry exactly
// those values in its tagged DDP header (RFC 5040 §4.4, §4.5; RFC 5041 §4.1
// for the tagged header's STag and TO). A live peer registers its buffers
// anew, so its Read Request names other values than the recorded one did; the
// replayer learns the pair here and rewrites the recorded Response's STag and
// TO before sending it (keeping its offset into the Sink), recomputing the
// CRC when the recorded one was valid (RFC 5044 §4.4). FPDUs with Markers
// inside are left alone: moving the header under a Marker is not done.
#pragma once

#include <cstdint>
#include <map>
#include <span>

namespace rdmaconf::replay {

struct ReadSink {
  std::uint32_t stag = 0;
  std::uint64_t to = 0;
};

// What rewriting one recorded tagged FPDU needs to know about it.
struct TaggedFpdu {
  std::uint32_t stag = 0;
  std::uint64_t to = 0;
  std::uint16_t ulpdu_length = 0;
  bool has_markers = false;
  bool crc_valid = false;  // the recorded CRC matched its octets: recompute it after rewriting
};

enum class RewriteResult : std::uint8_t { kUnchanged, kRewritten, kNotRewritable };

class SinkMap {
 public:
  // The live peer's Read Request `live` stands where the recording had `recorded`.
  void learn(const ReadSink& recorded, const ReadSink& live);
  // Rewrites `fpdu` (the recorded FPDU's octets: ULPDU_Length, ULPDU, PAD, CRC) when its STag is a
  // recorded Data Sink the live peer replaced.
  RewriteResult rewrite(const TaggedFpdu& info, std::span<std::uint8_t> fpdu) const;

 private:
  struct Live {
    std::uint32_t stag;
    std::uint64_t to_shift;  // live TO minus recorded TO (modulo 2^64)
  };
  std::map<std::uint32_t, Live> by_recorded_stag_;
};

}  // namespace rdmaconf::replay
