// The passive observer of one SCTP association carrying DDP (RFC 5043's
// DDP/SCTP adaptation layer), fed every SCTP packet of both sides in capture
// order (the common header on: over IP protocol 132, or after the UDP header
// of RFC 6951's encapsulation).
//
//   SctpObserver obs(sink);
//   obs.on_packet(Side::kInitiator, frame, sctp_packet_octets);
//
// Per packet: the common header and its CRC32c (RFC 9260 §6.8: a mismatch is
// a finding, and the chunks are still read, as captures of checksum
// offload show them), each chunk (several per packet), INIT and INIT ACK
// for the Adaptation Layer Indication (RFC 5061, RFC 5043 §5.1), DATA chunks
// with PPID 16 or 17: a message SCTP fragmented (B and E bits) is put back
// together per side, stream and U flag, bounded (a fragment sequence that
// lies, or never ends, is a finding and its octets are let go, never
// unbounded growth); retransmitted TSNs are counted once. I-DATA chunks
// (RFC 8260) likewise: their fragments are put back together per side,
// stream, U flag and Message Identifier in Fragment Sequence Number order
// (fragments of several messages may interleave), bounded by the same
// limits; the PPID and U flag of an I-DATA message are judged once, on the
// whole message.
//
// Each whole message goes to the reference's DDP Stream Session machine
// (sctp::Session) used as a witness: one per side and stream, in the role
// that receives that side's chunks, so that the session rules are checked by
// the very code the endpoint runs (DDP-SSN order and gaps, the legal
// sequences of §6.2-§6.4, control messages' format). What the witness hands
// on as DDP segments, in DDP-SSN order, goes to a ConnectionObserver through
// its on_ddp_segment() seam: the same DDP and RDMAP rules as over MPA, one
// ConnectionObserver per DDP stream (an SCTP stream pair, §8).
//
// Standard library and rdmaconf_codec only, like the rest of the observer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "analysis/observer.hpp"
#include "sctp/packet.hpp"
#include "sctp/session.hpp"

namespace rdmaconf::analysis {

// What the observer says of the chunk a DDP segment or control message came
// in: published with each message (decode and the plugin show it).
struct SctpInfo {
  std::uint16_t stream = 0;
  std::uint32_t ppid = 0;
  std::uint32_t tsn = 0;  // of its first fragment
  bool unordered = false;
  std::uint32_t fragments = 1;
  std::optional<std::uint16_t> ddp_ssn;  // absent on a segment the witness held back and released later
  std::optional<sctp::FunctionCode> function;  // kSctpControl
  wire::Bytes private_data;                    // kSctpControl
};

struct SctpStats {
  std::uint64_t packets = 0;
  std::uint64_t chunks = 0;
  std::uint64_t data_chunks = 0;        // DATA and I-DATA
  std::uint64_t idata_chunks = 0;       // of them, I-DATA (RFC 8260)
  std::uint64_t bad_checksums = 0;
  std::uint64_t malformed = 0;          // common header, chunk or parameter that did not decode
  std::uint64_t retransmissions = 0;    // DATA chunks of a TSN seen before
  std::uint64_t fragmented_messages = 0;
  std::uint64_t fragment_findings = 0;  // fragments out of sequence, over the limit, never ended
  std::uint64_t other_ppid = 0;         // DATA of another protocol
  std::uint64_t ddp_segments = 0;       // PPID 16 messages
  std::uint64_t session_control = 0;    // PPID 17 messages
  // The Adaptation Indication each side's INIT or INIT ACK carried.
  std::optional<std::uint32_t> indication[2];
  bool init_seen[2] = {false, false};
};

struct SctpLimits {
  // The largest user message reassembled from fragments; a longer one is let go.
  std::size_t max_message = std::size_t{64} << 10;
  // Messages being reassembled at once, per side.
  std::size_t max_partial = 16;
  // DDP streams (SCTP stream pairs) observed per association.
  std::size_t max_streams = 16;
  // TSNs remembered per side to recognise retransmissions.
  std::size_t tsn_window = 4096;
};

class SctpObserver {
 public:
  explicit SctpObserver(ObserverSink& sink, ObserverConfig config = {}, SctpLimits limits = {});
  ~SctpObserver();
  SctpObserver(const SctpObserver&) = delete;
  SctpObserver& operator=(const SctpObserver&) = delete;

  void on_packet(Side side, FrameNo frame, wire::Bytes packet);

  // Whether `packet` begins another association on this one's addresses
  // and ports: an INIT whose Initiate Tag is neither end's tag of the
  // association this observer follows, after that association was set up
  // (an INIT ACK seen). An ABORTed association's port reused by the next
  // one, or an end's restart (RFC 9260 §5.2.2), looks so; a retransmitted
  // INIT repeats its tag (§5.1) and does not. Its owner then retires this
  // observer and gives the packet to a fresh one, as a new SYN on a closed
  // TCP connection's ports starts a new connection: the DDP Stream Sessions
  // of the new association begin at DDP-SSN 0 (RFC 5043 §6).
  bool begins_new_association(wire::Bytes packet) const;

  const SctpStats& stats() const { return stats_; }
  // Complete RDMAP messages per opcode a side sent, over all its DDP streams.
  std::array<std::uint64_t, 16> rdmap_messages(Side side) const;

 private:
  struct Partial;
  struct Fragment;
  struct DdpStream;
  void on_init(Side side, FrameNo frame, const sctp::ChunkView& c);
  void on_data(Side side, FrameNo frame, const sctp::ChunkView& c);
  void on_idata(Side side, FrameNo frame, const sctp::ChunkView& c);
  // A TSN this side sent before (remembered in a bounded window).
  bool retransmitted(int side, std::uint32_t tsn);
  // A fragment of a DATA or an I-DATA message into its reassembly; the
  // whole message once its E fragment came, else null.
  template <typename Key>
  std::unique_ptr<Partial> reassemble(std::map<Key, std::unique_ptr<Partial>>& partials, const Key& key,
                                      const Fragment& f, Side side, FrameNo frame);
  void deliver(Side side, FrameNo first_frame, FrameNo frame, const sctp::DataChunk& d, wire::Bytes user_data,
               std::uint32_t fragments);
  void drain(DdpStream& s, Side side, FrameNo first_frame, FrameNo frame, const SctpInfo* info);
  void finding(EventKind kind, Side side, FrameNo frame, std::uint64_t offset, std::string text);
  void violate(const Rule& rule, Side side, FrameNo frame, std::string text);

  ObserverSink& sink_;
  ObserverConfig config_;
  SctpLimits limits_;
  SctpStats stats_;
  bool indication_judged_[2] = {false, false};
  // The Initiate Tags of the INIT and INIT ACK seen (RFC 9260 §5.1), and
  // whether an INIT ACK came: begins_new_association() reads them.
  std::set<std::uint32_t> initiate_tags_;
  bool init_ack_seen_ = false;
  // Messages being reassembled, per side, by (stream, U flag).
  std::map<std::pair<std::uint16_t, bool>, std::unique_ptr<Partial>> partial_[2];
  // I-DATA messages being reassembled, per side, by (stream, U flag, MID).
  std::map<std::tuple<std::uint16_t, bool, std::uint32_t>, std::unique_ptr<Partial>> ipartial_[2];
  // TSNs seen per side (bounded: the oldest leave first).
  std::set<std::uint32_t> tsns_[2];
  std::deque<std::uint32_t> tsn_order_[2];
  std::map<std::uint16_t, std::unique_ptr<DdpStream>> streams_;
};

}  // namespace rdmaconf::analysis
