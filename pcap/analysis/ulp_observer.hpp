// Which upper-layer protocol an RDMAP connection carries, and what it says.
//
// Real iWARP traffic is NFS over RPC-over-RDMA (RFC 8166) and iSCSI over iSER
// (RFC 7145). The connection observer hands this class the ULP's part of the
// MPA private data and the first segment of every Send-type message (queue
// 0, MO 0); it recognises the ULP, from the private data when the ULP put its
// own there (RFC 8797's identifier, which Linux's NFS sends), else from the
// first Send that decodes as one of them (an iSER header whose iSCSI PDU is
// a known opcode, or an RPC-over-RDMA header whose RPC message repeats its
// XID, RFC 8166 §4.2.1), or as the user says (`--ulp`, like Wireshark's
// Decode As). Then it decodes every Send with the reference/ulp decoders and
// counts messages per procedure or iSCSI opcode, the chunks and STags
// advertised, and the Sends that did not decode.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "wire/bytes.hpp"

namespace rdmaconf::analysis {

enum class Ulp : std::uint8_t { kUnknown, kRpcRdma, kIser };
// "rpc-over-rdma", "iser", "unknown": the names `--ulp` takes.
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

// What one Send said, for `decode` (valid during the callback).
struct UlpMessage {
  Ulp ulp = Ulp::kUnknown;
  bool decoded = false;
  std::string summary;  // "RDMA_MSG xid=0x8f0ad9c7 credits=128 reply chunk 3 segments (28932 octets)"
  std::string error;    // when !decoded: the decoder's error
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
};

class UlpObserver {
 public:
  // Fixes the ULP (the user's word wins over recognition).
  void set_user(Ulp u);
  // The ULP's part of a Request's or Reply's private data.
  void on_private_data(wire::Bytes ulp_private_data);
  // The first segment's DDP payload after the RDMAP header of a Send-type
  // message (at most the octets a header needs; see kSendHead). Returns the
  // ULP's view of it, or nullptr while no ULP is recognised.
  const UlpMessage* on_send(wire::Bytes payload);

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
  // A ULP shows itself in its first messages (a login, a NULL call, a
  // mount); after this many Sends that match neither, the connection is
  // left unknown and its Sends cost nothing more.
  static constexpr int kRecogniseWithin = 16;
  int unrecognised_sends_ = 0;
  UlpStats stats_;
  UlpMessage last_;
};

}  // namespace rdmaconf::analysis
