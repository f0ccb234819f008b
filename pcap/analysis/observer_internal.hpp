// What the observer's files share (observer_stream.cpp: streams;
// observer.cpp: detection and MPA startup; observer_fpdu.cpp: full operation, DDP and RDMAP; observer_hunt.cpp:
// resynchronisation; observer_clc.cpp: SMC CLC): the per-direction state and
// the helpers. Private to the observer.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "analysis/hex.hpp"
#include "analysis/observer.hpp"
#include "check/mpa_tcp.hpp"
#include "check/segment.hpp"
#include "mpa/headers.hpp"
#include "rdmap/opcodes.hpp"

namespace rdmaconf::analysis {
namespace observer_detail {

using wire::Bytes;

// Every header is read through its declaration (wire/field.hpp): `rest`
// holds at least the header's size from `at` wherever these are called.
inline std::uint32_t ulpdu_length_at(Bytes b, std::size_t at) {
  return static_cast<std::uint32_t>(mpa::FpduHeader::read(b.subspan(at), mpa::FpduHeaderSpec::Field::ULPDU_Length));
}
inline std::uint32_t marker_field(Bytes b, std::size_t at, mpa::MarkerSpec::Field f) {
  return static_cast<std::uint32_t>(mpa::MarkerHeader::read(b.subspan(at), f));
}
template <typename H>
inline std::uint32_t u32(Bytes b, typename H::Field f) { return static_cast<std::uint32_t>(H::read(b, f)); }

inline bool all_zero(Bytes b) { return std::all_of(b.begin(), b.end(), [](std::uint8_t o) { return o == 0; }); }
inline bool unicast_mac(Bytes mac) { return !all_zero(mac) && (mac[0] & 0x01) == 0; }

// The octets a hunt must see of a candidate before judging its header: the
// ULPDU_Length and the larger DDP header.
constexpr std::size_t kCandidateHead = mpa::kUlpduLengthSize + ddp::kUntaggedHeaderSize;
// How far back of a candidate Marker a hunt looks for the FPDU it points
// into. The first Marker inside an FPDU is fewer than 512 octets after the
// FPDU's header (RFC 5044 §4.3: a Marker every 512 octets of the stream), and
// the hunt meets that Marker before any later one of the same FPDU, so a
// longer FPDUPTR never finds an FPDU a shorter one did not.
constexpr std::size_t kHuntLookback = mpa::kMarkerInterval - 1;
// The smallest ULPDU is a tagged DDP header with no payload.
constexpr std::size_t kMinUlpdu = ddp::kTaggedHeaderSize;
// Octets of a DDP header and the largest RDMAP header a check reads.
constexpr std::size_t kHeadCopy = ddp::kUntaggedHeaderSize + rdmap::kMaxTerminateSize;
// Outstanding requests remembered per side; a peer that keeps more than
// this many unanswered turns the matching off (reported) rather than growing.
constexpr std::size_t kMaxOutstanding = 1u << 16;


inline bool key_prefix(Bytes b, const std::array<std::uint8_t, mpa::kKeySize>& key) {
  const std::size_t n = std::min(b.size(), key.size());
  return std::equal(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n), key.begin());
}

inline bool eyecatcher_prefix(Bytes b) {
  static constexpr std::array<std::uint8_t, 4> kSmcr = {0xE2, 0xD4, 0xC3, 0xD9};
  static constexpr std::array<std::uint8_t, 4> kSmcd = {0xE2, 0xD4, 0xC3, 0xC4};
  const std::size_t n = std::min<std::size_t>(b.size(), 4);
  return std::equal(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n), kSmcr.begin()) ||
         std::equal(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n), kSmcd.begin());
}

inline std::string hex_octets(Bytes b) {
  std::string out;
  char buf[4];
  for (std::uint8_t o : b) {
    std::snprintf(buf, sizeof buf, "%s%02x", out.empty() ? "" : ":", o);
    out += buf;
  }
  return out;
}

// The octets a direction keeps (a partial message, a hunt window). A hunt
// gives up its oldest octets one at a time as it advances, so dropping from
// the front moves a start index instead of moving every kept octet; the
// storage is compacted on the next append once the dropped front is at least
// as long as what is kept. Each octet is moved at most once per octet dropped
// after it, and the storage holds at most twice the kept octets plus one append.
class KeptOctets {
 public:
  bool empty() const { return start_ == octets_.size(); }
  std::size_t size() const { return octets_.size() - start_; }
  Bytes view() const { return Bytes(octets_).subspan(start_); }
  void append(Bytes b);  // observer_stream.cpp
  void drop_front(std::size_t n) {
    start_ += n;
    if (empty()) clear();
  }
  void clear() {
    octets_.clear();
    start_ = 0;
  }
  // Hands the kept octets over and keeps none.
  std::vector<std::uint8_t> take();

 private:
  std::vector<std::uint8_t> octets_;
  std::size_t start_ = 0;  // octets_[0, start_) are given up
};

}  // namespace observer_detail

// ------------------------------------------------------------ per direction

struct ConnectionObserver::Consumed {
  std::size_t used = 0;  // octets consumed from the front
  std::size_t need = 0;  // octets (after `used`) needed before more can be said; 0: any more
};

struct ConnectionObserver::Direction {
  enum class Mode : std::uint8_t {
    kDetect,          // first octets of the stream: which protocol?
    kMpaStartup,      // this side's Request or Reply
    kAwaitPeerFrame,  // own frame done; full operation needs the peer's frame
    kFull,            // FPDUs
    kHunt,            // looking for FPDU framing after a gap or mid-connection
    kClc,             // CLC messages
    kRejected,        // the Reply rejected the connection
    kOpaque,          // nothing of ours (any more): octets counted, not decoded
  };
  Side side = Side::kInitiator;
  Mode mode = Mode::kDetect;
  bool mid_stream = false;

  // Octets not consumed yet (a partial message, a hunt window) and the stream
  // offset of their first octet; `need` is what the current unit waits for.
  observer_detail::KeptOctets buf;
  FrameNo buf_first_frame = 0;
  std::size_t need = 0;
  std::uint64_t consumed_to = 0;  // stream offset of the first unconsumed octet

  // MPA startup
  std::vector<std::uint8_t> frame_octets;
  std::optional<mpa::ReqRepFrame> frame;
  FrameNo frame_number = 0;
  bool resync_after_startup = false;  // octets were lost while waiting for the peer's frame
  bool feeding = false;               // feed() is consuming from buf: pump() must leave it alone

  // Full operation. `position_base` maps a stream offset to an MPA stream
  // position (octets since full operation began): position = offset - base,
  // modulo 2^64, which keeps Marker phase right even when inferred.
  std::optional<mpa::Deframer> deframer;
  bool params_known = false;  // markers, crc and position_base are known
  bool markers = false;
  bool crc = false;
  bool crc_known = false;
  std::uint64_t position_base = 0;
  bool first_fpdu_seen = false;

  // Hunting (stream offsets). A hunt looks at candidate FPDU starts in
  // stream order, `hunt_scan` being the next one; a Marker candidate may
  // point back to octets before it, but never before `hunt_from` (where the
  // hunt's octets begin) nor more than kHuntLookback octets. Every decision
  // depends on the octets around its candidate only and waits for them, so a
  // hunt ends the same however TCP cut the stream.
  bool hunt_fresh = false;  // set by start_hunt(): hunt() takes its window from there
  std::uint64_t hunt_began = 0;
  std::uint64_t hunt_from = 0;
  std::uint64_t hunt_scan = 0;
  // With CRC on and no Markers: candidates whose FPDU is not all here yet,
  // as (stream offset of the candidate, stream offset its FPDU ends at).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> hunt_pending;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> hunt_waiting;  // on_crc()'s scratch
  // The least candidate offset and the least end in hunt_pending (UINT64_MAX
  // when it is empty): on_crc() goes through the list only when one of them
  // says an entry is complete or lies in octets given up.
  std::uint64_t pending_first = UINT64_MAX;
  std::uint64_t pending_until = UINT64_MAX;
  void add_pending(std::uint64_t at, std::uint64_t until) {
    hunt_pending.emplace_back(at, until);
    pending_first = std::min(pending_first, at);
    pending_until = std::min(pending_until, until);
  }
  void clear_pending() {
    hunt_pending.clear();
    pending_first = pending_until = UINT64_MAX;
  }

  // DDP/RDMAP per-sender state (RFC 5041 §4.3, §5; RFC 5040 §5)
  std::array<check::QueueSequence, rdmap::kQueueCount> queues{};
  check::TaggedSequence tagged;
  struct OutstandingRead {
    std::uint32_t sink_stag = 0;
    std::uint64_t sink_to = 0;
    std::uint32_t size = 0;
    std::uint64_t received = 0;
    bool sink_reported = false;
    // What a Read Response's ReadMatch publishes of it.
    std::uint64_t number = 0;
    FrameNo frame = 0;
    std::uint32_t source_stag = 0;
    std::uint64_t source_to = 0;
    std::optional<UlpTie> ulp_tie;  // the region its Data Source was tied to
  };
  std::uint64_t reads_sent = 0;           // Read Requests numbered so far
  std::deque<OutstandingRead> reads;      // Read Requests this side sent, unanswered
  std::deque<std::uint32_t> atomics;      // Request Identifiers this side sent
  bool terminated = false;
  std::optional<wire::Hint> length_hint;  // for the FPDU being reported: its ULPDU_Length looks byte-swapped
  bool after_terminate_reported = false;

  DirectionStats stats;
  std::array<std::uint64_t, 16> rdmap_messages{};
  std::array<std::uint64_t, 5> clc_types{};

  // How the sender cut its FPDUs into TCP segments (RFC 5044 §4.5, §5.1;
  // check/mpa_tcp.hpp, observer_tcp.cpp), after the state read per FPDU,
  // which keeps its place (performance.md). `emss.at_most` is the receiver's
  // MSS once full operation without Markers began, 0 while nothing is
  // judged; `judging` while segments are judged (full operation, the MSS
  // known, no Markers). `segment_start`: where the last segment announced
  // whole (on_segment) began; `segment_judged` while it can be judged: it
  // began while judging and every octet fed since its start came in it (so
  // it ends at the next octet). `split`: the FPDU in progress, the segment it
  // began in having ended inside it. `fpdu_limit` is what on_fpdu compares
  // each FPDU's length with, one comparison for both rules: the MSS, 0 while
  // a split waits for its FPDU, SIZE_MAX while nothing is judged.
  struct Split {
    std::uint64_t fpdu_start = 0;
    std::size_t offset = 0, segment_octets = 0;  // check::SplitFpdu's
  };
  check::EmssBounds emss;
  std::size_t fpdu_limit = SIZE_MAX;
  std::size_t largest_segment = 0;  // octets of the longest announced segment
  bool judging = false;
  bool segment_judged = false;
  std::uint64_t segment_start = 0;
  std::optional<Split> split;
  void settle_fpdu_limit() { fpdu_limit = split ? 0 : emss.at_most != 0 ? emss.at_most : SIZE_MAX; }
  void forget_segments() {
    judging = false;
    segment_judged = false;
    split.reset();
    settle_fpdu_limit();
  }

  std::uint64_t position(std::uint64_t offset) const { return offset - position_base; }
  void forget_ddp_state() {
    for (check::QueueSequence& q : queues) q = check::QueueSequence{};
    tagged = check::TaggedSequence{};
  }
};


}  // namespace rdmaconf::analysis
