// SMB Direct (MS-SMBD), SMB2's transport over RDMA, declared once as data.
//
// Every SMB Direct message is the payload of one RDMAP Send, and nothing in
// it says which kind it is: the connection's state does (MS-SMBD §3.1.5).
// The initiator's first Send is the Negotiate Request (§2.2.1), the peer's
// first Send the Negotiate Response (§2.2.2); every later Send either way is
// a Data Transfer message (§2.2.3), whose fixed 20 octets may be followed by
// padding and the upper layer's bytes (an SMB2 message, or a fragment of
// one: RemainingDataLength counts what is still to come). SMB2 READ and
// WRITE requests on an RDMA channel carry Buffer Descriptor V1 structures
// (§2.2.3.1) naming the registered buffers the server reads from or writes
// into with RDMA Read and Write.
//
// Unlike every IETF header in this project, MS-SMBD's integers are
// little-endian: each field is declared wire::little_endian().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "wire/field.hpp"

namespace rdmaconf::ulp::smbd {

// MS-SMBD §1.7: the only protocol version, 1.0.
constexpr std::uint16_t kVersion1 = 0x0100;
// MS-SMBD §2.2.3: SMB_DIRECT_RESPONSE_REQUESTED, the only flag.
constexpr std::uint16_t kResponseRequested = 0x0001;
// MS-SMBD §2.1: the TCP port an iWARP SMB Direct server listens on.
constexpr std::uint16_t kIwarpPort = 5445;

constexpr std::size_t kNegotiateRequestSize = 20;   // MS-SMBD §2.2.1
constexpr std::size_t kNegotiateResponseSize = 32;  // MS-SMBD §2.2.2
constexpr std::size_t kDataTransferHeaderSize = 20; // MS-SMBD §2.2.3, before Padding
constexpr std::size_t kBufferDescriptorSize = 16;   // MS-SMBD §2.2.3.1

namespace names {
inline constexpr wire::ValueName kVersion[] = {{0x0100, "SMB Direct 1.0"}};
inline constexpr wire::ValueName kFlags[] = {{0, "none"}, {1, "SMB_DIRECT_RESPONSE_REQUESTED"}};
}  // namespace names

// MS-SMBD §2.2.1: the initiator's first message.
struct NegotiateRequestSpec {
  enum class Field : std::uint8_t {
    MinVersion, MaxVersion, Reserved, CreditsRequested, PreferredSendSize, MaxReceiveSize, MaxFragmentedSize
  };
  static constexpr wire::FieldDecl fields[] = {
      wire::little_endian({"MinVersion", "min_version", 0, 16, "lowest protocol version the sender supports: 0x0100",
                           "MS-SMBD §2.2.1", wire::Display::kHex, names::kVersion}),
      wire::little_endian({"MaxVersion", "max_version", 16, 16, "highest protocol version the sender supports: 0x0100",
                           "MS-SMBD §2.2.1", wire::Display::kHex, names::kVersion}),
      wire::little_endian({"Reserved", "reserved", 32, 16, "sent as zero, ignored on receipt", "MS-SMBD §2.2.1",
                           wire::Display::kHex, {}, wire::Rule::kIgnoredOnReceive}),
      wire::little_endian({"CreditsRequested", "credits_requested", 48, 16,
                           "Send Credits the sender asks the peer to grant", "MS-SMBD §2.2.1"}),
      wire::little_endian({"PreferredSendSize", "preferred_send_size", 64, 32,
                           "largest Send, in octets, the sender would like to send", "MS-SMBD §2.2.1"}),
      wire::little_endian({"MaxReceiveSize", "max_receive_size", 96, 32,
                           "largest Send, in octets, the sender can receive", "MS-SMBD §2.2.1"}),
      wire::little_endian({"MaxFragmentedSize", "max_fragmented_size", 128, 32,
                           "largest upper-layer message, in octets, the sender reassembles from fragments",
                           "MS-SMBD §2.2.1"}),
  };
  static constexpr wire::HeaderDecl decl{"SMB Direct Negotiate Request", "smbd.negotiate_request",
                                         kNegotiateRequestSize, fields, "MS-SMBD §2.2.1"};
};
using NegotiateRequestHeader = wire::Header<NegotiateRequestSpec>;

// MS-SMBD §2.2.2: the peer's answer, completing the connection.
struct NegotiateResponseSpec {
  enum class Field : std::uint8_t {
    MinVersion, MaxVersion, NegotiatedVersion, Reserved, CreditsRequested, CreditsGranted, Status,
    MaxReadWriteSize, PreferredSendSize, MaxReceiveSize, MaxFragmentedSize
  };
  static constexpr wire::FieldDecl fields[] = {
      wire::little_endian({"MinVersion", "min_version", 0, 16, "lowest protocol version the sender supports",
                           "MS-SMBD §2.2.2", wire::Display::kHex, names::kVersion}),
      wire::little_endian({"MaxVersion", "max_version", 16, 16, "highest protocol version the sender supports",
                           "MS-SMBD §2.2.2", wire::Display::kHex, names::kVersion}),
      wire::little_endian({"NegotiatedVersion", "negotiated_version", 32, 16,
                           "the version chosen for the connection, from the request's range", "MS-SMBD §2.2.2",
                           wire::Display::kHex, names::kVersion}),
      wire::little_endian({"Reserved", "reserved", 48, 16, "sent as zero, ignored on receipt", "MS-SMBD §2.2.2",
                           wire::Display::kHex, {}, wire::Rule::kIgnoredOnReceive}),
      wire::little_endian({"CreditsRequested", "credits_requested", 64, 16,
                           "Send Credits the sender asks the peer to grant", "MS-SMBD §2.2.2"}),
      wire::little_endian({"CreditsGranted", "credits_granted", 80, 16,
                           "Send Credits granted to the peer: the first batch", "MS-SMBD §2.2.2"}),
      wire::little_endian({"Status", "status", 96, 32, "NTSTATUS of the negotiation: 0 when it succeeded",
                           "MS-SMBD §2.2.2", wire::Display::kHex}),
      wire::little_endian({"MaxReadWriteSize", "max_read_write_size", 128, 32,
                           "largest RDMA Read or Write, in octets, the sender performs for the upper layer",
                           "MS-SMBD §2.2.2"}),
      wire::little_endian({"PreferredSendSize", "preferred_send_size", 160, 32,
                           "largest Send, in octets, the sender would like to send", "MS-SMBD §2.2.2"}),
      wire::little_endian({"MaxReceiveSize", "max_receive_size", 192, 32,
                           "largest Send, in octets, the sender can receive", "MS-SMBD §2.2.2"}),
      wire::little_endian({"MaxFragmentedSize", "max_fragmented_size", 224, 32,
                           "largest upper-layer message, in octets, the sender reassembles from fragments",
                           "MS-SMBD §2.2.2"}),
  };
  static constexpr wire::HeaderDecl decl{"SMB Direct Negotiate Response", "smbd.negotiate_response",
                                         kNegotiateResponseSize, fields, "MS-SMBD §2.2.2"};
};
using NegotiateResponseHeader = wire::Header<NegotiateResponseSpec>;

// MS-SMBD §2.2.3: the fixed part of a Data Transfer message. Padding (up
// to DataOffset, which is 8-octet aligned) and the Buffer follow.
struct DataTransferSpec {
  enum class Field : std::uint8_t {
    CreditsRequested, CreditsGranted, Flags, Reserved, RemainingDataLength, DataOffset, DataLength
  };
  static constexpr wire::FieldDecl fields[] = {
      wire::little_endian({"CreditsRequested", "credits_requested", 0, 16,
                           "Send Credits the sender wants in all, those already granted included", "MS-SMBD §2.2.3"}),
      wire::little_endian({"CreditsGranted", "credits_granted", 16, 16,
                           "Send Credits granted to the peer by this message, in addition to earlier ones",
                           "MS-SMBD §2.2.3"}),
      wire::little_endian({"Flags", "flags", 32, 16,
                           "0x0001 SMB_DIRECT_RESPONSE_REQUESTED: answer promptly (a keep-alive)", "MS-SMBD §2.2.3",
                           wire::Display::kHex, names::kFlags}),
      wire::little_endian({"Reserved", "reserved", 48, 16, "sent as zero, ignored on receipt", "MS-SMBD §2.2.3",
                           wire::Display::kHex, {}, wire::Rule::kIgnoredOnReceive}),
      wire::little_endian({"RemainingDataLength", "remaining_data_length", 64, 32,
                           "octets of the upper-layer message still to come in later fragments; 0 in the last",
                           "MS-SMBD §2.2.3"}),
      wire::little_endian({"DataOffset", "data_offset", 96, 32,
                           "where the data starts, from the message's first octet; 8-octet aligned, 0 without data",
                           "MS-SMBD §2.2.3"}),
      wire::little_endian({"DataLength", "data_length", 128, 32, "octets of upper-layer data in this message",
                           "MS-SMBD §2.2.3"}),
  };
  static constexpr wire::HeaderDecl decl{"SMB Direct Data Transfer", "smbd.data_transfer", kDataTransferHeaderSize,
                                         fields, "MS-SMBD §2.2.3"};
};
using DataTransferHeader = wire::Header<DataTransferSpec>;

// MS-SMBD §2.2.3.1: one registered buffer an SMB2 READ or WRITE request
// advertises (MS-SMB2 §2.2.19, §2.2.21: Channel SMB2_CHANNEL_RDMA_V1 or
// _V1_INVALIDATE), which the server writes into or reads from.
struct BufferDescriptorSpec {
  enum class Field : std::uint8_t { Offset, Token, Length };
  static constexpr wire::FieldDecl fields[] = {
      wire::little_endian({"Offset", "offset", 0, 64, "the registered buffer's first octet to transfer (tagged offset)",
                           "MS-SMBD §2.2.3.1", wire::Display::kHex}),
      wire::little_endian({"Token", "token", 64, 32, "the buffer's Steering Tag (STag)", "MS-SMBD §2.2.3.1",
                           wire::Display::kHex}),
      wire::little_endian({"Length", "length", 96, 32, "octets to transfer to or from the buffer",
                           "MS-SMBD §2.2.3.1"}),
  };
  static constexpr wire::HeaderDecl decl{"SMB Direct Buffer Descriptor V1", "smbd.buffer_descriptor",
                                         kBufferDescriptorSize, fields, "MS-SMBD §2.2.3.1"};
};
using BufferDescriptorHeader = wire::Header<BufferDescriptorSpec>;

// Which message a Send holds: the connection's state decides (§3.1.5).
enum class Kind : std::uint8_t { kNegotiateRequest, kNegotiateResponse, kDataTransfer };
std::string_view kind_name(Kind k);  // "Negotiate Request", ...

struct BufferDescriptor {
  std::uint64_t offset = 0;
  std::uint32_t token = 0;
  std::uint32_t length = 0;
  friend bool operator==(const BufferDescriptor&, const BufferDescriptor&) = default;
};

struct Message {
  Kind kind = Kind::kDataTransfer;
  // Negotiate Request and Response.
  std::uint16_t min_version = 0, max_version = 0, negotiated_version = 0;
  std::uint32_t status = 0;
  std::uint32_t max_read_write_size = 0, preferred_send_size = 0, max_receive_size = 0, max_fragmented_size = 0;
  // Every kind (a Negotiate Request grants none).
  std::uint16_t credits_requested = 0, credits_granted = 0;
  std::uint16_t reserved = 0;  // sent as zero, ignored on receipt
  // Data Transfer.
  std::uint16_t flags = 0;
  std::uint32_t remaining_data_length = 0, data_offset = 0, data_length = 0;
  // The data (an SMB2 message or a fragment of one) as far as the Send at
  // hand holds it: [data_offset, data_offset + data_length) cut to what was
  // received; never read beyond it.
  wire::Bytes data;
  bool data_complete = true;  // all data_length octets are in `data` (so true without data)

  bool response_requested() const { return (flags & kResponseRequested) != 0; }
};

// Decodes the Send's payload as `kind`. `whole` says the payload is the
// entire Send: then the data must lie inside it (MS-SMBD §2.2.3); when only
// the Send's first octets are at hand (a capture observer's copy), data
// reaching past them is cut, not an error. Errors name the field, the rule
// and the section: a Send shorter than the message's fixed size; a
// negotiate whose versions do not include 1.0 (§2.2.1, §2.2.2: MinVersion
// and MaxVersion come from §1.7, MaxVersion ≥ MinVersion); a DataOffset that
// is not 8-octet aligned, that is nonzero without data or zero with it, that
// points into the fixed header, or data that ends past the Send (§2.2.3).
wire::Result<Message> decode(wire::Bytes send_payload, Kind kind, bool whole = true);

// The descriptors of an SMB2 channel-info block (MS-SMB2 §2.2.19 and
// §2.2.21: ReadChannelInfo / WriteChannelInfo), a packed array of §2.2.3.1
// structures. Errors when its length is not a whole number of them.
wire::Result<std::vector<BufferDescriptor>> decode_buffer_descriptors(wire::Bytes channel_info);

// Encodes `m` through the declarations above (decode's inverse) as
// m.kind: the fixed fields, and for a Data Transfer the padding up to
// m.data_offset and then `data` (m.data_length, m.data_offset are written as
// given: a test can build the messages the spec forbids; padding is only
// written when data_offset lies past the fixed header).
void encode(const Message& m, wire::ByteWriter& w);
std::vector<std::uint8_t> encode(const Message& m);
void encode(const BufferDescriptor& d, wire::ByteWriter& w);

}  // namespace rdmaconf::ulp::smbd
