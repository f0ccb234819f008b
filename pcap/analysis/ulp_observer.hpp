// Which upper-layer protocol an RDMAP connection carries, and what it says.
//
// Real iWARP traffic is NFS over RPC-over-RDMA (RFC 8166), iSCSI over iSER
// (RFC 7145) and SMB2 over SMB Direct (MS-SMBD). The connection observer hands this class the ULP's part of the
// MPA private data and the first segment of every Send-type message (queue
// 0, MO 0); it recognises the ULP, from the private data when the ULP put its
// own there (RFC 8797's identifier, which Linux's NFS sends), else from the
// first Send that decodes as one of them (an iSER header whose iSCSI PDU is
// a known opcode, or an RPC-over-RDMA header whose RPC message repeats its
// XID, RFC 8166 §4.2.1, or an initiator's first Send that is exactly an SMB
// Direct Negotiate Request offering version 1.0, MS-SMBD §2.2.1), or as the
// user says (`--ulp`, like Wireshark's
// Decode As). Then it decodes every Send with the reference/ulp decoders and
// counts messages per procedure or iSCSI opcode, the chunks and STags
// advertised, and the Sends that did not decode.
//
// It also ties what the ULP advertised to the RDMA operations that use it
// (ulp_rules.cpp): the calls awaiting replies with their chunks
// (RPC-over-RDMA) and the open SCSI commands with their STags (iSER), the
// RDMA Writes and Read Requests of the responder or target matched against
// them, the replies' chunks against their calls, Send with Invalidate
// against the STags of its call or task, and credits. Each rule is one
// function of reference/check/ulp.hpp; what breaks one is a finding the
// connection observer reports as a violation. What it tracked it publishes
// typed, per message, for the views to show: the call a Send opens and the
// one it answers (UlpMessage), the region a transfer used (UlpTie).
// Matching needs every message since the connection started: after a gap,
// or on a capture that starts mid-connection, it stops (as Read Response
// matching does).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <vector>

#include "check/ulp.hpp"
#include "ulp/iser.hpp"
#include "ulp/rpcrdma.hpp"
#include "ulp/smbd.hpp"
#include "wire/bytes.hpp"

namespace rdmaconf::analysis {

enum class Ulp : std::uint8_t { kUnknown, kRpcRdma, kIser, kSmbDirect };
// "rpc-over-rdma", "iser", "smb-direct", "unknown": the names `--ulp` takes.
std::string_view name(Ulp u);
std::optional<Ulp> ulp_from_name(std::string_view s);

// The user's `--ulp NAME[:PORT]`: the ULP of every connection, or of those
// whose responder listens on PORT (as Wireshark's Decode As).
struct UlpChoice {
  Ulp ulp = Ulp::kUnknown;
  std::optional<std::uint16_t> port;
};
std::optional<UlpChoice> parse_ulp_choice(std::string_view text);

enum class UlpSource : std::uint8_t { kNone, kPrivateData, kFirstSend, kUser };
std::string_view name(UlpSource s);

// What one RDMA Write segment, Read Request or Read Response was tied to: a
// region a ULP message advertised whose call awaits its reply (RPC-over-RDMA)
// or whose SCSI command awaits its response (iSER), found by the rules of
// reference/check/ulp.hpp. Typed, so each view shows it its own way.
struct UlpTie {
  // RFC 8166 §3.4: a read segment of the Read list, a segment of a Write
  // chunk or of the Reply chunk. RFC 7145 §9.2: the task's Write STag (the
  // target reads it) or Read STag (the target writes it).
  enum class Region : std::uint8_t { kReadSegment, kWriteChunk, kReplyChunk, kIserWriteStag, kIserReadStag };
  Region kind = Region::kReadSegment;
  std::uint32_t tag = 0;      // the call's XID; iSER: the command's Initiator Task Tag
  std::uint32_t chunk = 0;    // a Write chunk's place in the Write list, from 1
  std::uint32_t segment = 0;  // place in the Read list or in its chunk, from 1; iSER: 0
  check::Region region;       // STag, tagged offset and length as advertised (iSER: the
                              // Expected Data Transfer Length; unbounded for a bidirectional read buffer)
  std::uint64_t advertised_in = 0;  // frame of the advertising Send's first segment (SendContext::frame)
  // Its name: the call (SCSI command) that advertised it, by the observer's
  // number (UlpCall::number), and its place among the regions that call
  // advertised, in the header's order: the Read list, the Write list chunk
  // by chunk, the Reply chunk; iSER: the Write STag, then the Read STag.
  std::uint64_t call = 0;
  std::uint32_t place = 0;
  std::uint64_t offset = 0;  // the operation's first octet, from the region's start
};
// "Write chunk 1 segment 1 of call xid 0x9e0ad9c7", "Read STag of itt 0x17000000".
std::string describe(const UlpTie& t);

// A call the rules track from the Send that makes it to the Send that
// answers it: an RPC-over-RDMA Call and the Reply (or RDMA_ERROR) with its
// XID (RFC 8166 §4.2.1, §4.5), an iSER task from its SCSI Command to the
// SCSI Response with its Initiator Task Tag (RFC 7145 §7.3.1, §7.3.2).
// Typed, so each view links them its own way.
struct UlpCall {
  std::uint64_t number = 0;  // the observer's, from 1 per connection (UlpTie::call)
  std::uint32_t tag = 0;     // the XID; iSER: the ITT
  std::uint64_t frame = 0;   // its Send's first segment (SendContext::frame)
  // On the Send that makes the call: the regions it advertised, by place
  // (each at offset 0). Empty on the Send that answers it.
  std::vector<UlpTie> regions;
};

// What one Send said, for `decode` (valid during the callback).
struct UlpMessage {
  Ulp ulp = Ulp::kUnknown;
  bool decoded = false;
  std::string summary;  // "RDMA_MSG xid=0x8f0ad9c7 credits=128 reply chunk 3 segments (28932 octets)"
  std::string error;    // when !decoded: the decoder's error
  // A Send with Invalidate answering a call (SCSI command) tracked here: the
  // region of that call (command) whose STag it names (RFC 5040 §5.3).
  std::optional<UlpTie> invalidates;
  // The call (SCSI Command) this Send makes, tracked from here on ...
  std::optional<UlpCall> opens;
  // ... and the one it answers: a Reply or RDMA_ERROR (a SCSI Response)
  // whose call was tracked; the call ends here.
  std::optional<UlpCall> answers;
};

// The RDMA operations a ULP's peer used on the advertised memory, and how
// many of them the observer tied to what was advertised (a chunk of a call
// awaiting its reply; an STag of an open SCSI command). RPC-over-RDMA: the
// Responder's Read Requests and Writes; iSER: the target's.
struct UlpTransfers {
  std::uint64_t reads = 0, read_octets = 0, reads_tied = 0;     // RDMA Read Requests
  std::uint64_t writes = 0, write_octets = 0, writes_tied = 0;  // RDMA Write messages
  std::uint64_t writes_to_write_chunks = 0, writes_to_reply_chunks = 0;  // RPC-over-RDMA: which chunk kind
  std::uint64_t invalidations = 0, invalidations_tied = 0;  // Sends with Invalidate; naming an STag of their call/task
  std::uint64_t replies_matched = 0;  // replies (SCSI Responses) whose call (command) was seen
};

struct UlpStats {
  Ulp ulp = Ulp::kUnknown;
  UlpSource source = UlpSource::kNone;
  std::map<std::string, std::uint64_t> messages;  // "RDMA_MSG", "SCSI Command", ...
  std::uint64_t read_segments = 0;   // RPC-over-RDMA chunks advertised
  std::uint64_t write_chunks = 0;
  std::uint64_t reply_chunks = 0;
  std::uint64_t write_stags = 0;     // iSER STags advertised (WSV, RSV)
  std::uint64_t read_stags = 0;
  std::uint64_t undecoded = 0;       // Sends of the recognised ULP that did not decode
  // RPC procedures called ("NFSv3 READ"; "Long Call" when the call itself
  // went in a Read chunk), SCSI commands by CDB operation code ("READ(10)"),
  // or SMB2 commands that start in an SMB Direct Data Transfer ("SMB2 READ").
  std::map<std::string, std::uint64_t> operations;
  UlpTransfers transfers;
};

// The side of a connection a message came from, as the connection observer
// numbers them (0: initiator, 1: responder).
struct SendContext {
  int side = 0;
  bool with_invalidate = false;  // Send with Invalidate (RFC 5040 §5.3)
  std::uint32_t invalidate_stag = 0;
  bool synced = false;           // every message since the connection started was seen
  bool whole = false;            // the payload is the entire Send (one segment, not cut to kSendHead)
  std::uint64_t frame = 0;       // frame of the first segment's last octet (the advertising frame)
};

// A rule of reference/check/ulp.hpp broken: by which side, and in words.
struct UlpFinding {
  check::Violation violation;
  int side = 0;
  std::string text;
};

class UlpObserver {
 public:
  UlpObserver();
  ~UlpObserver();
  UlpObserver(const UlpObserver&) = delete;
  UlpObserver& operator=(const UlpObserver&) = delete;

  // Fixes the ULP (the user's word wins over recognition).
  void set_user(Ulp u);
  // The ULP's part of a Request's or Reply's private data.
  void on_private_data(wire::Bytes ulp_private_data);
  // The first segment's DDP payload after the RDMAP header of a Send-type
  // message (at most the octets a header needs; see kSendHead). Returns the
  // ULP's view of it, or nullptr while no ULP is recognised.
  const UlpMessage* on_send(wire::Bytes payload, const SendContext& context = {});
  // One segment of an RDMA Write (its Data Sink STag, TO, payload octets;
  // `last`: the L bit) and one RDMA Read Request (its Data Source), from
  // `side`. Only tied and checked while `synced`.
  // Each returns the region the transfer was tied to (valid until the next
  // call), or nullptr when it was not tied or not looked at.
  const UlpTie* on_write(int side, std::uint32_t stag, std::uint64_t to, std::uint32_t length, bool last,
                         bool synced);
  const UlpTie* on_read_request(int side, std::uint32_t source_stag, std::uint64_t source_to, std::uint32_t size,
                                bool synced);
  // The rules broken since the last call; the caller reports and clears them.
  std::vector<UlpFinding>& findings() { return findings_; }

  const UlpStats& stats() const { return stats_; }
  // Whether on_send() would look at a Send (the observer copies nothing
  // otherwise): a ULP is known, or recognition has not given up.
  bool wants_sends() const {
    return stats_.ulp != Ulp::kUnknown ||
           (stats_.source != UlpSource::kUser && unrecognised_sends_ < kRecogniseWithin);
  }

  // Octets of a Send's payload the decoders look at: the RPC-over-RDMA
  // header with a few dozen segments, or an iSER header and BHS.
  static constexpr std::size_t kSendHead = 1024;

 private:
  void recognise(Ulp u, UlpSource how);
  // ulp_rules.cpp: the state the rules need, per ULP.
  struct Tracker;
  bool tracking(bool synced);
  void track_rpc(const ulp::rpcrdma::Message& m, const SendContext& c);
  void track_iser(const ulp::iser::Message& m, const SendContext& c);
  void on_smbd(wire::Bytes p, const SendContext& c);
  void find(const check::Outcome& v, int side, std::string text);
  // A ULP shows itself in its first messages (a login, a NULL call, a
  // mount); after this many Sends that match neither, the connection is
  // left unknown and its Sends cost nothing more.
  static constexpr int kRecogniseWithin = 16;
  int unrecognised_sends_ = 0;
  UlpStats stats_;
  UlpMessage last_;
  std::vector<UlpFinding> findings_;
  UlpTie tie_;
  std::unique_ptr<Tracker> tracker_;  // created with the first message tracked; gone once matching stops
  std::uint64_t calls_ = 0;           // calls (SCSI commands) tracked so far: the last one's number
  bool tracking_stopped_ = false;
  // The side that sends RPC Calls or SCSI Commands (the Requester, the
  // iSCSI initiator), once a message showed it; -1 before.
  int client_side_ = -1;
  // SMB Direct: which sides sent their negotiate message (MS-SMBD §3.1.5:
  // every later Send is a Data Transfer), and which are inside a fragmented
  // upper-layer message (the last Data Transfer's RemainingDataLength > 0).
  std::array<bool, 2> smbd_negotiated_{};
  std::array<bool, 2> smbd_fragmenting_{};
};

}  // namespace rdmaconf::analysis
