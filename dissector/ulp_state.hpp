// What the plugin keeps of a connection's upper-layer protocol (RPC-over-RDMA,
// iSER) on the first pass, to show it and hand it to Wireshark's own
// dissectors on every pass.
//
// The observer recognises the ULP, tracks its calls and SCSI commands and
// ties the RDMA traffic to them (analysis/ulp_observer.hpp), and publishes
// what it found per message: on the first segment of a Send, the call it
// makes with the regions it advertised (UlpMessage::opens), the call it
// answers (UlpMessage::answers) and, for a Send with Invalidate, the region
// whose STag it names (UlpMessage::invalidates); on an RDMA Write, Read
// Request or Read Response, the region it used (SegmentInfo::ulp_tie). This
// tracker, fed every FPDU the observer framed, in order, keeps what
// Wireshark's random access and the hand-off to its dissectors need:
// - each Send put back together from its DDP segments (queue 0, same MSN,
//   MO order, RFC 5041 §5.3), decoded with reference/ulp's decoders;
// - the regions of each call the observer opened, under the observer's
//   names for them (the call's number and the place), with the frames that
//   used them: shown on the Send that advertised them, and the region on
//   each frame that used it or invalidated its STag;
// - the link between a call's Send and the Send that answered it, both
//   ways, as the observer made it;
// - the RPC message rebuilt where part of it travelled by RDMA: a Reply
//   written into the Reply chunk (RDMA_NOMSG), a Call whose Read chunks the
//   Responder pulled (at the Read Response that completes them), a Reply
//   whose write chunk holds the result data item, when the program's binding
//   says where that item goes (RFC 8267 §4: NFS versions 2 and 3).
// It matches nothing itself: no XID, ITT or STag is looked up here.
// Bounded: a Send or RPC message above kMaxMessage, and chunk data beyond
// kMaxHeld per connection, are not kept (the display says so).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/observer.hpp"

namespace rdmaconf::dissector {

// One region a call advertised, and the RDMA operations that used it.
struct Advert {
  // The observer's (UlpCall::regions): its kind, the call's XID or ITT, its
  // chunk and segment (from 1), STag, tagged offset and length, the call's
  // number and its place among the call's regions.
  analysis::UlpTie named;
  std::uint32_t position = 0;       // a read segment's XDR position (RFC 8166 §3.4.5), from the Call's header
  std::uint32_t advertised_in = 0;  // frame of the Send (its last segment, where it is shown)
  // The RDMA operations that moved data to or from it (first pass).
  std::uint32_t first_frame = 0, last_frame = 0;
  std::uint64_t octets = 0;
  std::uint32_t invalidated_in = 0;  // Send with Invalidate naming the STag
  // Data placed in it, by offset from the region's start (RPC-over-RDMA
  // only: what the RPC message is rebuilt from); freed once used.
  std::map<std::uint64_t, std::vector<std::uint8_t>> pieces;
};
// "Read chunk", "Write chunk", "Reply chunk", "iSER Write STag", "iSER Read STag".
std::string_view name(analysis::UlpTie::Region k);
bool is_iser(const Advert& a);

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
  bool several_segments = false;
  std::vector<const Advert*> adverts;  // the regions of the call it makes, by place
  // RPC-over-RDMA: the RPC message, when it is known here ...
  std::vector<std::uint8_t> rpc;
  bool rpc_here = false;
  bool rpc_rebuilt = false;  // ... put together from chunk data
  std::uint32_t rpc_completed_in = 0;  // ... or the frame that completes it
  // The observer's link, both ways: on the Send that answers a call (a
  // Reply or RDMA_ERROR; a SCSI Response), the call's Send, and on the
  // call's Send the answer's. Shown for RPC-over-RDMA; Wireshark's iscsi
  // dissector links a SCSI Command and its Response itself.
  std::uint32_t call_frame = 0;
  std::uint32_t reply_frame = 0;
  std::string note;  // why the RPC message is not shown
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
  static constexpr std::size_t kMaxOpen = 4096;  // Sends in reassembly per side; calls kept awaiting their answers

  // One FPDU with its DDP/RDMAP header and what the observer said of it.
  // Returns what to show with it.
  UlpFindings on_segment(const analysis::Message& m, const analysis::SegmentInfo& s);

 private:
  using Side = analysis::Side;
  struct Assembly {
    analysis::Ulp ulp = analysis::Ulp::kUnknown;
    std::uint32_t first_frame = 0;
    Advert* invalidates = nullptr;  // the region a Send with Invalidate names (UlpMessage::invalidates)
    std::optional<analysis::UlpCall> opens, answers;  // the observer's, from the first segment
    std::uint32_t segments = 0;
    std::vector<std::uint8_t> octets;
    bool complete = true;
  };
  // A call (SCSI command) the observer opened, until it is answered: its
  // Send, its regions and what rebuilding its RPC message needs.
  struct Call {
    UlpSend* send = nullptr;
    std::uint32_t frame = 0;       // its Send's last segment
    std::vector<Advert*> regions;  // by place
    bool legacy_nfs = false;       // NFS version 2 or 3 (RFC 8267 §4)
    bool waiting_for_reads = false;
    std::vector<std::uint8_t> inline_part;  // the Payload stream without its Read chunks
  };

  void on_send(std::uint32_t frame, Assembly&& a, UlpFindings& out);
  void on_rpcrdma(std::uint32_t frame, UlpSend& send, const Assembly& a);
  void on_iser(std::uint32_t frame, UlpSend& send, const Assembly& a);
  Call& open(const analysis::UlpCall& c, UlpSend& send, std::uint32_t frame);
  Call* answered(const analysis::UlpCall& c, UlpSend& send, std::uint32_t frame);
  void close(std::uint64_t number);
  Advert* region(std::uint64_t call, std::uint32_t place);
  const Tie* use(const analysis::UlpTie& t, std::uint32_t length, std::uint32_t frame, const wire::Chunks* data);
  bool gather(const Advert& a, std::uint32_t length, std::vector<std::uint8_t>& out) const;
  void try_complete(Call& c, std::uint32_t frame, UlpFindings& out);

  std::map<std::uint32_t, Assembly> assembling_[2];  // per side, by MSN
  std::map<std::uint64_t, Call> calls_;              // by the observer's number (UlpCall::number)
  std::deque<UlpSend> sends_;
  std::deque<Advert> adverts_;
  std::deque<Tie> ties_;
  std::deque<UlpCompletion> completions_;
  std::size_t held_ = 0;
};

}  // namespace rdmaconf::dissector
