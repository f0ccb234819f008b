// What the plugin keeps of a connection's upper-layer protocol (RPC-over-RDMA,
// iSER) on the first pass, to show it and hand it to Wireshark's own
// dissectors on every pass.
//
// The observer recognises the ULP and names it on the first segment of each
// Send (SegmentInfo::ulp). This tracker, fed every FPDU the observer framed,
// in order:
// - puts each Send message back together from its DDP segments (queue 0,
//   same MSN, MO order, RFC 5041 §5.3) and decodes it with reference/ulp's
//   decoders;
// - remembers the regions the ULP advertised (RPC-over-RDMA read, write and
//   reply chunks, RFC 8166 §3.4; iSER Write and Read STags, RFC 7145 §9.2),
//   each under the frame and place the observer names it by, and links each
//   RDMA Write, Read Request and Read Response the observer tied to one
//   (SegmentInfo::ulp_tie) with it, both ways, for random access: which
//   frames used a region is shown on the Send that advertised it, and the
//   Send with Invalidate the observer tied to it (UlpMessage::invalidates);
// - rebuilds the RPC message where part of it travelled by RDMA: a Reply
//   written into the Reply chunk (RDMA_NOMSG), a Call whose Read chunks the
//   Responder pulled (at the Read Response that completes them), a Reply
//   whose write chunk holds the result data item, when the program's binding
//   says where that item goes (RFC 8267 §4: NFS versions 2 and 3).
// Bounded: a Send or RPC message above kMaxMessage, and chunk data beyond
// kMaxHeld per connection, are not kept (the display says so).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/observer.hpp"
#include "ulp/iser.hpp"
#include "ulp/rpcrdma.hpp"

namespace rdmaconf::dissector {

// One region a ULP message advertised, and the RDMA operations that used it.
struct Advert {
  enum class Kind : std::uint8_t { kReadChunk, kWriteChunk, kReplyChunk, kIserWrite, kIserRead };
  // iSER advertises a buffer's start, not its length (RFC 7145 §9.2; the
  // length is the SCSI Command's Expected Data Transfer Length).
  static constexpr std::uint32_t kLengthNotStated = 0xffffffff;
  Kind kind = Kind::kReadChunk;
  std::uint32_t stag = 0;
  std::uint64_t offset = 0;  // tagged offset of the region's first octet
  std::uint32_t length = 0;
  std::uint32_t chunk = 0;     // write chunk: its index in the Write list
  std::uint32_t segment = 0;   // its index in the chunk (read segment: in the Read list)
  std::uint32_t position = 0;  // read segment: XDR position (RFC 8166 §3.4.5)
  std::uint32_t tag = 0;       // the Call's XID; iSER: the SCSI Command's Initiator Task Tag
  std::uint32_t advertised_in = 0;  // frame of the Send (its last segment, where it is shown)
  // The observer's name for it (analysis::UlpTie): the frame of the Send's
  // first segment and its place among the regions that Send advertised.
  std::uint64_t head_frame = 0;
  std::uint32_t place = 0;
  // The RDMA operations that moved data to or from it (first pass).
  std::uint32_t first_frame = 0, last_frame = 0;
  std::uint64_t octets = 0;
  std::uint32_t invalidated_in = 0;  // Send with Invalidate naming the STag
  // Data placed in it, by offset from the region's start (RPC-over-RDMA
  // only: what the RPC message is rebuilt from); freed once used.
  std::map<std::uint64_t, std::vector<std::uint8_t>> pieces;
};
std::string_view name(Advert::Kind k);

// A tagged message (or Read Request) that used an advertised region.
struct Tie {
  const Advert* advert = nullptr;
  std::uint64_t offset = 0;  // of its first octet from the region's start
  std::uint32_t length = 0;
};

// One Send of the ULP, whole (on the record of its last segment).
struct UlpSend {
  analysis::Ulp ulp = analysis::Ulp::kUnknown;
  std::vector<std::uint8_t> payload;  // the Send's payload, all segments
  bool complete = true;               // false: too large or a segment missing
  std::uint32_t first_frame = 0;      // of its first segment
  std::uint64_t head_frame = 0;       // of its first segment's last octet (SendContext::frame)
  std::uint32_t places = 0;           // regions its header advertised so far
  bool several_segments = false;
  std::vector<const Advert*> adverts;
  // RPC-over-RDMA: the RPC message, when it is known here ...
  std::vector<std::uint8_t> rpc;
  bool rpc_here = false;
  bool rpc_rebuilt = false;  // ... put together from chunk data
  std::uint32_t rpc_completed_in = 0;  // ... or the frame that completes it
  std::uint32_t call_frame = 0;        // a Reply: its Call's Send
  std::uint32_t reply_frame = 0;       // a Call: its Reply's Send
  std::string note;                    // why the RPC message is not shown
};

// A Read Response whose data completes a Call's Read chunks.
struct UlpCompletion {
  const UlpSend* call = nullptr;
  std::uint32_t call_frame = 0;
  std::vector<std::uint8_t> rpc;
};

// What the tracker says about one FPDU.
struct UlpFindings {
  const UlpSend* send = nullptr;
  const Tie* tie = nullptr;
  const Advert* invalidates = nullptr;  // Send with Invalidate: the region its STag named
  const UlpCompletion* completes = nullptr;
};

class UlpTracker {
 public:
  static constexpr std::size_t kMaxMessage = std::size_t{4} << 20;
  static constexpr std::size_t kMaxHeld = std::size_t{64} << 20;
  static constexpr std::size_t kMaxOpen = 4096;  // Calls and adverts awaiting use, per side

  // One FPDU with its DDP/RDMAP header and what the observer said of it.
  // Returns what to show with it.
  UlpFindings on_segment(const analysis::Message& m, const analysis::SegmentInfo& s);

 private:
  using Side = analysis::Side;
  struct Assembly {
    analysis::Ulp ulp = analysis::Ulp::kUnknown;
    std::uint32_t first_frame = 0;
    std::uint64_t head_frame = 0;
    Advert* invalidates = nullptr;  // the region a Send with Invalidate names (SegmentInfo::ulp)
    std::uint32_t segments = 0;
    std::vector<std::uint8_t> octets;
    bool complete = true;
  };
  struct Call {
    UlpSend* send = nullptr;
    std::uint32_t frame = 0;
    std::vector<Advert*> reads;   // read segments, list order
    std::vector<Advert*> writes;  // write chunk segments and reply chunk segments
    bool legacy_nfs = false;      // NFS version 2 or 3 (RFC 8267 §4)
    bool waiting_for_reads = false;
    std::vector<std::uint8_t> inline_part;  // the Payload stream without its Read chunks
  };
  struct Direction {
    std::map<std::uint32_t, Assembly> sends;              // by MSN
    std::unordered_map<std::uint32_t, Advert*> adverts;   // STags this side advertised, by STag
    std::unordered_map<std::uint32_t, Call> calls;        // Calls this side sent, by XID
    std::unordered_map<std::uint32_t, std::vector<Advert*>> tasks;  // iSER: ITT -> its STags
  };

  void on_send(Side side, std::uint32_t frame, Assembly&& a, UlpFindings& out);
  void on_rpcrdma(Side side, std::uint32_t frame, UlpSend& send);
  void on_iser(Side side, std::uint32_t frame, UlpSend& send);
  Advert* advertise(Side side, Advert a, UlpSend& send);
  void forget(Side side, Advert* a);
  const Tie* use(const analysis::UlpTie& t, std::uint32_t length, std::uint32_t frame, const wire::Chunks* data);
  bool gather(const Advert& a, std::uint32_t length, std::vector<std::uint8_t>& out) const;
  void try_complete(Side requester, Call& c, std::uint32_t frame, UlpFindings& out);
  void release(Call& c, Side requester);

  Direction dir_[2];
  // Open regions by the observer's name for them (UlpTie::advertised_in, place).
  std::map<std::pair<std::uint64_t, std::uint32_t>, Advert*> placed_;
  std::deque<UlpSend> sends_;
  std::deque<Advert> adverts_;
  std::deque<Tie> ties_;
  std::deque<UlpCompletion> completions_;
  std::size_t held_ = 0;
};

}  // namespace rdmaconf::dissector
