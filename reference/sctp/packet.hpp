// SCTP's own packet format (RFC 9260 §3), as far as a capture of DDP over
// SCTP needs it: the common header, the chunk header every chunk starts
// with, the DATA chunk (§3.3.1), RFC 8260's I-DATA chunk, and the fixed part of INIT and INIT ACK
// (§3.3.2, §3.3.3) with their parameters, where RFC 5061's Adaptation Layer
// Indication travels. Declared once as data (wire/field.hpp) like
// headers.hpp's adaptation-layer formats; decoded through bounds-checked
// views with typed errors. The capture analyzer, `rdmaconf decode` and the
// fuzzers read SCTP through this file; the endpoint leaves SCTP to usrsctp.
//
// Views only: nothing here allocates or copies, so any octets are safe input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sctp/headers.hpp"
#include "wire/bytes.hpp"
#include "wire/field.hpp"
#include "wire/result.hpp"

namespace rdmaconf::sctp {

namespace packet_cite {
inline constexpr std::string_view kCommonHeader = "RFC 9260 §3.1";
inline constexpr std::string_view kChunkFields = "RFC 9260 §3.2";
inline constexpr std::string_view kParameters = "RFC 9260 §3.2.1";
inline constexpr std::string_view kData = "RFC 9260 §3.3.1";
inline constexpr std::string_view kIData = "RFC 8260 §2.1";
inline constexpr std::string_view kInit = "RFC 9260 §3.3.2";
inline constexpr std::string_view kChecksum = "RFC 9260 §6.8";
inline constexpr std::string_view kUdpEncapsulation = "RFC 6951 §5.2";
}  // namespace packet_cite

// RFC 6951: the port IANA registered for SCTP over UDP (usrsctp's default).
inline constexpr std::uint16_t kUdpEncapsulationPort = 9899;

// RFC 9260 §3.2: the chunk types a DDP capture shows.
namespace chunk_type {
inline constexpr std::uint8_t kData = 0;
inline constexpr std::uint8_t kInit = 1;
inline constexpr std::uint8_t kInitAck = 2;
inline constexpr std::uint8_t kSack = 3;
inline constexpr std::uint8_t kHeartbeat = 4;
inline constexpr std::uint8_t kHeartbeatAck = 5;
inline constexpr std::uint8_t kAbort = 6;
inline constexpr std::uint8_t kShutdown = 7;
inline constexpr std::uint8_t kShutdownAck = 8;
inline constexpr std::uint8_t kError = 9;
inline constexpr std::uint8_t kCookieEcho = 10;
inline constexpr std::uint8_t kCookieAck = 11;
inline constexpr std::uint8_t kShutdownComplete = 14;
inline constexpr std::uint8_t kIData = 64;  // RFC 8260 §2.1
}  // namespace chunk_type

namespace names {
inline constexpr wire::ValueName kChunkType[] = {
    {chunk_type::kData, "DATA"},           {chunk_type::kInit, "INIT"},
    {chunk_type::kInitAck, "INIT ACK"},     {chunk_type::kSack, "SACK"},
    {chunk_type::kHeartbeat, "HEARTBEAT"}, {chunk_type::kHeartbeatAck, "HEARTBEAT ACK"},
    {chunk_type::kAbort, "ABORT"},         {chunk_type::kShutdown, "SHUTDOWN"},
    {chunk_type::kShutdownAck, "SHUTDOWN ACK"}, {chunk_type::kError, "ERROR"},
    {chunk_type::kCookieEcho, "COOKIE ECHO"},   {chunk_type::kCookieAck, "COOKIE ACK"},
    {chunk_type::kShutdownComplete, "SHUTDOWN COMPLETE"}, {chunk_type::kIData, "I-DATA"},
};
}  // namespace names

// RFC 9260 §3.1: in front of every SCTP packet's chunks.
struct CommonHeaderSpec {
  enum class Field : std::uint8_t { Source_Port, Destination_Port, Verification_Tag, Checksum };
  static constexpr wire::FieldDecl fields[] = {
      {"Source Port Number", "srcport", 0, 16, "the sender's SCTP port", packet_cite::kCommonHeader},
      {"Destination Port Number", "dstport", 16, 16, "the receiver's SCTP port", packet_cite::kCommonHeader},
      {"Verification Tag", "verification_tag", 32, 32, "the receiver's Initiate Tag (0 in an INIT)",
       packet_cite::kCommonHeader, wire::Display::kHex},
      // The CRC32c travels least significant octet first, as MPA's does.
      {"Checksum", "checksum", 64, 32, "CRC32c of the packet with this field zero", packet_cite::kChecksum,
       wire::Display::kHex, {}, wire::Rule::kAny, wire::ByteOrder::kLittle},
  };
  static constexpr wire::HeaderDecl decl{"SCTP common header", "ddp_sctp.sctp", 12, fields,
                                         packet_cite::kCommonHeader};
};
using CommonHeader = wire::Header<CommonHeaderSpec>;

// RFC 9260 §3.2: Type, Flags and Length (the chunk's octets without the
// padding to a multiple of 4 that follows it).
struct ChunkHeaderSpec {
  enum class Field : std::uint8_t { Type, Flags, Length };
  static constexpr wire::FieldDecl fields[] = {
      {"Chunk Type", "chunk_type", 0, 8, "what the chunk is", packet_cite::kChunkFields, wire::Display::kDecimal,
       names::kChunkType},
      {"Chunk Flags", "chunk_flags", 8, 8, "the type's flags", packet_cite::kChunkFields, wire::Display::kHex},
      {"Chunk Length", "chunk_length", 16, 16, "octets of the chunk from its Type on, padding not counted",
       packet_cite::kChunkFields},
  };
  static constexpr wire::HeaderDecl decl{"SCTP chunk header", "ddp_sctp.chunk", 4, fields, packet_cite::kChunkFields};
};
using ChunkHeader = wire::Header<ChunkHeaderSpec>;

// RFC 9260 §3.3.1: a DATA chunk up to its user data (I: RFC 7053 §3).
struct DataChunkSpec {
  enum class Field : std::uint8_t { Type, Reserved, I, U, B, E, Length, TSN, Stream_Identifier, SSN, PPID };
  static constexpr wire::FieldDecl fields[] = {
      {"Chunk Type", "chunk_type", 0, 8, "0: DATA", packet_cite::kData, wire::Display::kDecimal, names::kChunkType},
      {"Reserved", "data_reserved", 8, 4, "zero", packet_cite::kData, wire::Display::kHex, {},
       wire::Rule::kIgnoredOnReceive},
      {"I", "data_i", 12, 1, "the receiver is asked to answer with a SACK at once (RFC 7053)", "RFC 7053 §3",
       wire::Display::kFlag},
      {"U", "data_u", 13, 1, "unordered: no Stream Sequence Number order (RFC 5043 §10 asks for it)",
       packet_cite::kData, wire::Display::kFlag},
      {"B", "data_b", 14, 1, "the first fragment of a user message", packet_cite::kData, wire::Display::kFlag},
      {"E", "data_e", 15, 1, "the last fragment of a user message", packet_cite::kData, wire::Display::kFlag},
      {"Chunk Length", "chunk_length", 16, 16, "16 plus the user data's octets", packet_cite::kData},
      {"TSN", "tsn", 32, 32, "Transmission Sequence Number", packet_cite::kData},
      {"Stream Identifier", "stream_id", 64, 16, "the stream the message belongs to (a DDP stream, RFC 5043 §8)",
       packet_cite::kData},
      {"Stream Sequence Number", "stream_seq", 80, 16, "the message's number on its stream (unused when U)",
       packet_cite::kData},
      {"Payload Protocol Identifier", "ppid", 96, 32, "16: DDP segment, 17: DDP Stream Session Control",
       packet_cite::kData, wire::Display::kDecimal, names::kPpid},
  };
  static constexpr wire::HeaderDecl decl{"SCTP DATA chunk", "ddp_sctp.data", 16, fields, packet_cite::kData};
};
using DataChunkHeader = wire::Header<DataChunkSpec>;

// RFC 8260 §2.1: an I-DATA chunk up to its user data. The fragments of one
// message share its Message Identifier (MID, per stream and U flag); the
// first (B) carries the PPID where the others carry their Fragment Sequence
// Number (FSN; the first's is 0), so fragments of several messages may
// interleave on one stream.
struct IDataChunkSpec {
  enum class Field : std::uint8_t {
    Type, Reserved, I, U, B, E, Length, TSN, Stream_Identifier, Reserved2, MID, PPID_FSN
  };
  static constexpr wire::FieldDecl fields[] = {
      {"Chunk Type", "chunk_type", 0, 8, "64: I-DATA", packet_cite::kIData, wire::Display::kDecimal,
       names::kChunkType},
      {"Reserved", "idata_reserved", 8, 4, "zero", packet_cite::kIData, wire::Display::kHex, {},
       wire::Rule::kIgnoredOnReceive},
      {"I", "idata_i", 12, 1, "the receiver is asked to answer with a SACK at once (RFC 7053)", "RFC 7053 §3",
       wire::Display::kFlag},
      {"U", "idata_u", 13, 1, "unordered: MIDs counted apart from the ordered ones (RFC 5043 §10 asks for it)",
       packet_cite::kIData, wire::Display::kFlag},
      {"B", "idata_b", 14, 1, "the first fragment of a user message", packet_cite::kIData, wire::Display::kFlag},
      {"E", "idata_e", 15, 1, "the last fragment of a user message", packet_cite::kIData, wire::Display::kFlag},
      {"Chunk Length", "chunk_length", 16, 16, "20 plus the user data's octets", packet_cite::kIData},
      {"TSN", "tsn", 32, 32, "Transmission Sequence Number", packet_cite::kIData},
      {"Stream Identifier", "stream_id", 64, 16, "the stream the message belongs to (a DDP stream, RFC 5043 §8)",
       packet_cite::kIData},
      {"Reserved", "idata_reserved2", 80, 16, "zero", packet_cite::kIData, wire::Display::kHex, {},
       wire::Rule::kIgnoredOnReceive},
      {"Message Identifier", "mid", 96, 32, "the message's number on its stream; shared by its fragments",
       packet_cite::kIData},
      {"PPID / FSN", "ppid_fsn", 128, 32,
       "with B: the Payload Protocol Identifier; without: the fragment's number in its message", packet_cite::kIData},
  };
  static constexpr wire::HeaderDecl decl{"SCTP I-DATA chunk", "ddp_sctp.idata", 20, fields, packet_cite::kIData};
};
using IDataChunkHeader = wire::Header<IDataChunkSpec>;

// RFC 9260 §3.3.2/§3.3.3: the fixed part of INIT and INIT ACK, before
// their parameters.
struct InitChunkSpec {
  enum class Field : std::uint8_t {
    Type, Flags, Length, Initiate_Tag, A_Rwnd, Outbound_Streams, Inbound_Streams, Initial_TSN
  };
  static constexpr wire::FieldDecl fields[] = {
      {"Chunk Type", "chunk_type", 0, 8, "1: INIT, 2: INIT ACK", packet_cite::kInit, wire::Display::kDecimal,
       names::kChunkType},
      {"Chunk Flags", "chunk_flags", 8, 8, "zero", packet_cite::kInit, wire::Display::kHex, {},
       wire::Rule::kIgnoredOnReceive},
      {"Chunk Length", "chunk_length", 16, 16, "20 plus the parameters' octets", packet_cite::kInit},
      {"Initiate Tag", "initiate_tag", 32, 32, "the Verification Tag the peer puts on its packets", packet_cite::kInit,
       wire::Display::kHex},
      {"Advertised Receiver Window Credit", "a_rwnd", 64, 32, "the sender's receive buffer", packet_cite::kInit},
      {"Number of Outbound Streams", "os", 96, 16, "streams the sender wants to send on (RFC 5043 §8: equal to MIS)",
       packet_cite::kInit},
      {"Number of Inbound Streams", "mis", 112, 16, "streams the sender accepts", packet_cite::kInit},
      {"Initial TSN", "initial_tsn", 128, 32, "the sender's first TSN", packet_cite::kInit},
  };
  static constexpr wire::HeaderDecl decl{"SCTP INIT", "ddp_sctp.init", 20, fields, packet_cite::kInit};
};
using InitChunkHeader = wire::Header<InitChunkSpec>;

// RFC 9260 §3.2.1: Type and Length of each parameter (Length without the
// padding to a multiple of 4).
struct ParameterHeaderSpec {
  enum class Field : std::uint8_t { Type, Length };
  static constexpr wire::FieldDecl fields[] = {
      {"Parameter Type", "param_type", 0, 16, "what the parameter is", packet_cite::kParameters, wire::Display::kHex,
       names::kParameterType},
      {"Parameter Length", "param_length", 16, 16, "octets of the parameter, padding not counted",
       packet_cite::kParameters},
  };
  static constexpr wire::HeaderDecl decl{"SCTP parameter", "ddp_sctp.param", 4, fields, packet_cite::kParameters};
};
using ParameterHeader = wire::Header<ParameterHeaderSpec>;

// The common header of one packet and the CRC32c its octets give.
struct PacketHeader {
  std::uint16_t source_port = 0;
  std::uint16_t destination_port = 0;
  std::uint32_t verification_tag = 0;
  std::uint32_t checksum = 0;           // as received
  std::uint32_t computed_checksum = 0;  // over the packet with the field zero
  bool checksum_ok() const { return checksum == computed_checksum; }
  wire::Bytes chunks;  // the octets after the common header
};
// Errors: fewer than 12 octets.
wire::Result<PacketHeader> decode_packet_header(wire::Bytes packet);

// One chunk: its header's values and its value (after the 4-octet header,
// Length - 4 octets, padding excluded). `offset`: its first octet in the
// packet.
struct ChunkView {
  std::uint8_t type = 0;
  std::uint8_t flags = 0;
  std::uint16_t length = 0;
  std::size_t offset = 0;
  wire::Bytes octets;  // the whole chunk, header included, padding excluded
};

// Walks the chunks after the common header, one per next(). nullopt at the
// end; an error (a Length below 4 or past the packet) ends the walk.
class ChunkWalker {
 public:
  explicit ChunkWalker(wire::Bytes chunks) : r_(chunks, CommonHeader::kSize) {}
  wire::Result<std::optional<ChunkView>> next();

 private:
  wire::ByteReader r_;
  bool failed_ = false;
};

struct DataChunk {
  std::uint32_t tsn = 0;
  std::uint16_t stream = 0;
  std::uint16_t ssn = 0;
  std::uint32_t ppid = 0;
  bool unordered = false, beginning = false, ending = false;
  wire::Bytes user_data;
};
// Errors: not DATA, fewer than 16 octets, no user data (§3.3.1: a DATA
// chunk carries at least one octet).
wire::Result<DataChunk> decode_data_chunk(const ChunkView& c);

struct IDataChunk {
  std::uint32_t tsn = 0;
  std::uint16_t stream = 0;
  std::uint32_t mid = 0;
  std::optional<std::uint32_t> ppid;  // the first fragment's (B)
  std::uint32_t fsn = 0;              // 0 on the first fragment
  bool unordered = false, beginning = false, ending = false;
  wire::Bytes user_data;
};
// Errors: not I-DATA, fewer than 20 octets, no user data (RFC 8260 §2.1:
// as a DATA chunk, it carries at least one octet).
wire::Result<IDataChunk> decode_idata_chunk(const ChunkView& c);

struct InitChunk {
  bool ack = false;  // INIT ACK
  std::uint32_t initiate_tag = 0;
  std::uint16_t outbound_streams = 0, inbound_streams = 0;
  std::uint32_t initial_tsn = 0;
  // RFC 5061 §4.2.5 / RFC 5043 §5.1: the Adaptation Indication, when the
  // chunk carried an Adaptation Layer Indication parameter.
  std::optional<std::uint32_t> adaptation_indication;
};
// Errors: not INIT or INIT ACK, shorter than 20 octets, a parameter whose
// Length is below 4 or runs past the chunk, a malformed Adaptation Layer
// Indication. At most kMaxParameters parameters are walked.
inline constexpr std::size_t kMaxParameters = 64;
wire::Result<InitChunk> decode_init_chunk(const ChunkView& c);

// ---- building packets (the tests' crafted captures, fuzz seeds) ----
// Scapy-style: lengths, padding and the checksum are computed unless forced.

// One DATA chunk (padding included) appended to `out`; `length` forces the
// Chunk Length field.
struct DataChunkFields {
  std::uint32_t tsn = 0;
  std::uint16_t stream = 0;
  std::uint16_t ssn = 0;
  std::uint32_t ppid = kPpidDdpSegment;
  bool unordered = true, beginning = true, ending = true;
  wire::Bytes user_data;
  std::optional<std::uint16_t> length;
};
void encode_data_chunk(const DataChunkFields& f, std::vector<std::uint8_t>& out);

// One I-DATA chunk (padding included): `ppid` goes in the PPID/FSN field of
// a first fragment, `fsn` in that of any other.
struct IDataChunkFields {
  std::uint32_t tsn = 0;
  std::uint16_t stream = 0;
  std::uint32_t mid = 0;
  std::uint32_t ppid = kPpidDdpSegment;
  std::uint32_t fsn = 0;
  bool unordered = true, beginning = true, ending = true;
  wire::Bytes user_data;
  std::optional<std::uint16_t> length;
};
void encode_idata_chunk(const IDataChunkFields& f, std::vector<std::uint8_t>& out);

// An INIT or INIT ACK with an Adaptation Layer Indication parameter when
// `indication` is set (an INIT ACK without its State Cookie: enough for a
// capture's reader, not for an SCTP stack).
struct InitChunkFields {
  bool ack = false;
  std::uint32_t initiate_tag = 1;
  std::uint32_t a_rwnd = 131072;
  std::uint16_t outbound_streams = 1, inbound_streams = 1;
  std::uint32_t initial_tsn = 0;
  std::optional<std::uint32_t> indication = kAdaptationIndicationDdp;
};
void encode_init_chunk(const InitChunkFields& f, std::vector<std::uint8_t>& out);

// A packet: the common header, then `chunks` (already encoded and padded);
// the CRC32c computed (RFC 9260 §6.8) unless `checksum` forces one.
struct PacketFields {
  std::uint16_t source_port = 0;
  std::uint16_t destination_port = 0;
  std::uint32_t verification_tag = 0;
  wire::Bytes chunks;
  std::optional<std::uint32_t> checksum;
};
std::vector<std::uint8_t> encode_packet(const PacketFields& f);

}  // namespace rdmaconf::sctp
