// RPC-over-RDMA version 1 (RFC 8166), the transport NFS uses over RDMAP,
// declared once as data, and the private data its peers put in the MPA
// exchange (RFC 8797).
//
// Every RPC-over-RDMA message is the payload of one RDMAP Send: four fixed
// 32-bit words (§4.2), then for RDMA_MSG and RDMA_NOMSG three XDR
// optional-data chunk lists (§4.3): the Read list (segments the responder
// pulls with RDMA Read Requests), the Write list (write chunks it fills with
// RDMA Writes) and the Reply chunk. RDMA_MSG's RPC message (the Payload
// stream) follows the lists in the same Send. RDMA_ERROR carries an error
// code instead (§4.5). The declarations below give each fixed-size piece its
// fields; decode() walks the XDR lists around them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ulp/onc_rpc.hpp"
#include "wire/field.hpp"

namespace rdmaconf::ulp::rpcrdma {

// RFC 4506 §3: XDR items take whole 4-octet units; a list's discriminator,
// a count, an enum or an opaque's length is one unit.
constexpr std::size_t kXdrUnit = 4;

// RFC 8166 §4.2.2: the only version this decoder reads past the fixed words.
constexpr std::uint32_t kVersion1 = 1;

// RFC 8166 §4.2.4.
enum class Proc : std::uint32_t { kMsg = 0, kNoMsg = 1, kMsgp = 2, kDone = 3, kError = 4 };
// RFC 8166 §4.1.2 (rpc_rdma_errcode).
enum class ErrCode : std::uint32_t { kVers = 1, kChunk = 2 };

namespace names {
inline constexpr wire::ValueName kProc[] = {{0, "RDMA_MSG"},
                                            {1, "RDMA_NOMSG"},
                                            {2, "RDMA_MSGP (reserved)"},
                                            {3, "RDMA_DONE (reserved)"},
                                            {4, "RDMA_ERROR"}};
inline constexpr wire::ValueName kErr[] = {{1, "ERR_VERS"}, {2, "ERR_CHUNK"}};
inline constexpr wire::ValueName kVers[] = {{1, "RPC-over-RDMA version 1"}};
}  // namespace names

// RFC 8166 §4.2: the four fixed fields, the same in every version.
struct FixedSpec {
  enum class Field : std::uint8_t { XID, Vers, Credits, Proc };
  static constexpr wire::FieldDecl fields[] = {
      {"XID", "xid", 0, 32, "transaction id of the RPC message this header carries or reduces",
       "RFC 8166 §4.2.1", wire::Display::kHex},
      {"Version", "vers", 32, 32, "RPC-over-RDMA version: 1", "RFC 8166 §4.2.2", wire::Display::kDecimal,
       names::kVers},
      {"Credits", "credits", 64, 32, "credits requested (in a Call) or granted (in a Reply)",
       "RFC 8166 §4.2.3", wire::Display::kDecimal},
      {"Procedure", "proc", 96, 32, "what follows: chunk lists and an RPC message, lists only, or an error",
       "RFC 8166 §4.2.4", wire::Display::kDecimal, names::kProc},
  };
  static constexpr wire::HeaderDecl decl{"RPC-over-RDMA fixed header", "rpcrdma", 16, fields,
                                         "RFC 8166 §4.2"};
};
using FixedHeader = wire::Header<FixedSpec>;

// RFC 8166 §3.4.3 and §4.1.2 (xdr_rdma_segment): one registered region.
struct SegmentSpec {
  enum class Field : std::uint8_t { Handle, Length, Offset };
  static constexpr wire::FieldDecl fields[] = {
      {"Handle", "handle", 0, 32, "the STag of the region", "RFC 8166 §3.4.3", wire::Display::kHex},
      {"Length", "length", 32, 32, "octets in the region", "RFC 8166 §3.4.3", wire::Display::kDecimal},
      {"Offset", "offset", 64, 64, "the region's starting offset (tagged offset)", "RFC 8166 §3.4.3",
       wire::Display::kHex},
  };
  static constexpr wire::HeaderDecl decl{"RDMA segment", "rpcrdma.segment", 16, fields, "RFC 8166 §3.4.3"};
};
using SegmentHeader = wire::Header<SegmentSpec>;

// RFC 8166 §3.4.5 and §4.1.2 (xdr_read_chunk): a segment and the XDR
// position of the data it holds.
struct ReadSegmentSpec {
  enum class Field : std::uint8_t { Position, Handle, Length, Offset };
  static constexpr wire::FieldDecl fields[] = {
      {"Position", "position", 0, 32, "XDR position in the Payload stream where the chunk's data belongs",
       "RFC 8166 §3.4.5", wire::Display::kDecimal},
      {"Handle", "handle", 32, 32, "the STag the responder reads from", "RFC 8166 §3.4.3", wire::Display::kHex},
      {"Length", "length", 64, 32, "octets in the region", "RFC 8166 §3.4.3", wire::Display::kDecimal},
      {"Offset", "offset", 96, 64, "the region's starting offset (tagged offset)", "RFC 8166 §3.4.3",
       wire::Display::kHex},
  };
  static constexpr wire::HeaderDecl decl{"Read segment", "rpcrdma.read_segment", 20, fields,
                                         "RFC 8166 §3.4.5"};
};
using ReadSegmentHeader = wire::Header<ReadSegmentSpec>;

// RFC 8166 §4.1.2 (rpc_rdma_errvers): the version range an ERR_VERS names.
struct ErrVersSpec {
  enum class Field : std::uint8_t { Low, High };
  static constexpr wire::FieldDecl fields[] = {
      {"rdma_vers_low", "vers_low", 0, 32, "lowest version the sender supports", "RFC 8166 §4.5.1",
       wire::Display::kDecimal},
      {"rdma_vers_high", "vers_high", 32, 32, "highest version the sender supports", "RFC 8166 §4.5.1",
       wire::Display::kDecimal},
  };
  static constexpr wire::HeaderDecl decl{"ERR_VERS range", "rpcrdma.errvers", 8, fields, "RFC 8166 §4.5.1"};
};
using ErrVersHeader = wire::Header<ErrVersSpec>;

// "NFSv3 READ", "NFSACLv3 GETACL", "program 100005 v3 procedure 1": the
// name of a called procedure (onc_rpc.hpp), for counts and decode output.
std::string rpc_procedure_name(const onc_rpc::Call& c);

struct Segment {
  std::uint32_t handle = 0;
  std::uint32_t length = 0;
  std::uint64_t offset = 0;
  std::size_t at = 0;  // octet offset of the segment in the Send payload
  friend bool operator==(const Segment&, const Segment&) = default;
};
struct ReadSegment {
  std::uint32_t position = 0;
  Segment target;
  friend bool operator==(const ReadSegment&, const ReadSegment&) = default;
};
// RFC 8166 §3.4.4: a write chunk is a counted array of segments.
struct WriteChunk {
  std::vector<Segment> segments;
  std::uint64_t length() const;  // octets the chunk can take
  friend bool operator==(const WriteChunk&, const WriteChunk&) = default;
};

struct Message {
  std::uint32_t xid = 0;
  std::uint32_t vers = 0;
  std::uint32_t credits = 0;
  std::uint32_t proc = 0;
  // RDMA_MSG and RDMA_NOMSG (RFC 8166 §4.3).
  std::vector<ReadSegment> read_list;
  std::vector<WriteChunk> write_list;
  std::optional<WriteChunk> reply_chunk;
  // RDMA_ERROR (RFC 8166 §4.5).
  std::uint32_t err = 0;
  std::uint32_t vers_low = 0, vers_high = 0;
  // Octets of the transport header: for RDMA_MSG the RPC message starts here.
  std::size_t header_length = 0;
  // RDMA_MSG: the RPC message's own XID, its first word (RFC 5531 §9), when
  // the Send holds it. RFC 8166 §4.2.1 makes it equal to `xid`.
  std::optional<std::uint32_t> rpc_xid;
  // RDMA_MSG: the RPC message's msg_type (RFC 5531 §9), and for a CALL
  // whose six words the Send holds, what it calls (onc_rpc.hpp).
  std::optional<std::uint32_t> rpc_msg_type;
  std::optional<onc_rpc::Call> rpc_call;

  bool is(Proc p) const { return proc == static_cast<std::uint32_t>(p); }
};

// Bounds the lists a header may carry, so a hostile count never drives work
// beyond what arrived: every entry consumes its octets first, and these caps
// only stop a header that is nothing but list entries from growing vectors
// without end. Linux sends at most a few dozen segments (RPCRDMA_MAX_SEGS).
struct Limits {
  std::size_t max_segments = 4096;
};

// Decodes the transport header at the start of a Send's payload. The fixed
// words are read for any version; the rest only for version 1 (another
// version's layout after them is unknown, RFC 8166 §7). Reserved procedures
// (RDMA_MSGP, RDMA_DONE, §4.6) and unknown ones are errors naming the
// Procedure field.
wire::Result<Message> decode(wire::Bytes send_payload, const Limits& limits = {});

// Encodes `m`'s transport header through the declarations above (the
// inverse of decode()): the fixed words, then for RDMA_ERROR the error code
// and an ERR_VERS range, for every other procedure the Read list, Write list
// and Reply chunk as XDR optional-data (RFC 8166 §4.3). The scapy habit: any
// value is written as given (another version, a reserved procedure), so a
// test can build the headers the RFC forbids. Segment::at is ignored; the
// RPC message of an RDMA_MSG is the caller's to append (onc_rpc.hpp).
void encode(const Message& m, wire::ByteWriter& w);
std::vector<std::uint8_t> encode(const Message& m);

// The name of a procedure value ("RDMA_MSG"), or empty.
std::string_view proc_name(std::uint32_t proc);

// ---- RFC 8797: RDMA-CM private data of RPC-over-RDMA version 1 peers.
// Linux's NFS client and server put these 8 octets in the MPA Request and
// Reply private data (after RFC 6581's 4 octets of enhanced IRD/ORD). The RFC's text is
// not among the texts this project traces (docs/requirements.md), so fields
// cite the RFC without a section; the layout agrees with the real captures.
constexpr std::uint32_t kPrivateDataMagic = 0xf6ab0e18;
constexpr std::uint8_t kPrivateDataVersion = 1;

namespace names {
inline constexpr wire::ValueName kMagic[] = {{0xf6ab0e18, "RPC-over-RDMA version 1 private data"}};
}  // namespace names

struct PrivateDataSpec {
  enum class Field : std::uint8_t { Magic, Version, Reserved, RemoteInvalidation, MaxSend, MaxReceive };
  static constexpr wire::FieldDecl fields[] = {
      {"Format Identifier", "magic", 0, 32, "0xf6ab0e18: this is RPC-over-RDMA private data", "RFC 8797",
       wire::Display::kHex, names::kMagic},
      {"Version", "cp_version", 32, 8, "private data format version: 1", "RFC 8797", wire::Display::kDecimal},
      {"Reserved flags", "cp_flags_rsvd", 40, 7, "flags not yet defined", "RFC 8797", wire::Display::kHex},
      {"Remote Invalidation", "cp_remote_inv", 47, 1, "the sender can take Send with Invalidate", "RFC 8797",
       wire::Display::kFlag},
      {"Maximum Send Size", "cp_send_size", 48, 8, "largest inline message it sends: (value+1) x 1024 octets",
       "RFC 8797", wire::Display::kDecimal},
      {"Maximum Receive Size", "cp_recv_size", 56, 8,
       "largest inline message it receives: (value+1) x 1024 octets", "RFC 8797", wire::Display::kDecimal},
  };
  static constexpr wire::HeaderDecl decl{"RPC-over-RDMA private data", "rpcrdma.cm", 8, fields, "RFC 8797"};
};
using PrivateDataHeader = wire::Header<PrivateDataSpec>;

struct PrivateData {
  bool remote_invalidation = false;
  std::uint32_t max_send = 0;     // octets
  std::uint32_t max_receive = 0;  // octets
};
// Reads the ULP's part of an MPA private data field (what follows RFC
// 6581's 4 octets of enhanced IRD/ORD when the Request or Reply carries
// them). nullopt when it does not start with the format identifier and
// version 1, or is shorter than 8 octets; octets after the 8 are the ULP's
// and ignored, as the format allows later fields to be appended.
std::optional<PrivateData> read_private_data(wire::Bytes ulp_private_data);

}  // namespace rdmaconf::ulp::rpcrdma
