// CLC messages: which blocks each message holds, the decoder that checks a
// received message block by block, and the encoder.
//
// A decoded message keeps every block as a wire::Header, so any field can be
// read or forced (the scapy habit). finalize() computes what a sender
// derives (Length, offsets, counts, trailer) from the blocks present;
// encode() writes the blocks verbatim, so a test or a conformance script can
// finalize, then break one field on purpose.
//
// Decoding trusts nothing: the Length field is checked against the octets
// received and against kMaxMessageLength before any block is read, every
// count is checked against the octets left before its entries are touched,
// and the counted lists live in fixed-capacity storage, so a message never
// causes an allocation larger than its own received octets.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "clc/headers.hpp"
#include "wire/bytes.hpp"
#include "wire/field.hpp"
#include "wire/result.hpp"

namespace rdmaconf::clc {

using wire::Bytes;
using wire::DecodeError;
using wire::Result;

using ClcHeader = wire::Header<ClcHeaderSpec>;
using Trailer = wire::Header<TrailerSpec>;
using ProposalBody = wire::Header<ProposalBodySpec>;
using ProposalSmcd = wire::Header<ProposalSmcdSpec>;
using IpPrefix = wire::Header<IpPrefixSpec>;
using Ipv6Prefix = wire::Header<Ipv6PrefixSpec>;
using V2Extension = wire::Header<V2ExtensionSpec>;
using EidEntry = wire::Header<EidSpec>;
using SmcdV2Extension = wire::Header<SmcdV2ExtensionSpec>;
using IsmGidChid = wire::Header<IsmGidChidSpec>;
using SmcrBody = wire::Header<SmcrAcceptConfirmSpec>;
using SmcrV2Part = wire::Header<SmcrV2AcceptConfirmSpec>;
using SmcdBody = wire::Header<SmcdAcceptConfirmSpec>;
using SmcdV1Reserved = wire::Header<SmcdV1ReservedSpec>;
using SmcdV2Part = wire::Header<SmcdV2AcceptConfirmSpec>;
using FirstContactExt = wire::Header<FirstContactExtSpec>;
using FirstContactExtV2x = wire::Header<FirstContactExtV2xSpec>;
using GidList = wire::Header<GidListSpec>;
using GidEntry = wire::Header<GidSpec>;
using DeclineBody = wire::Header<DeclineSpec>;
using DeclineV2Diagnosis = wire::Header<DeclineV2DiagnosisSpec>;

// A counted list with a fixed capacity: entries a peer announces are stored
// without allocating, and the capacity is the protocol's limit.
template <typename T, std::size_t N>
class BoundedList {
 public:
  static constexpr std::size_t kCapacity = N;
  bool push_back(const T& v) {
    if (size_ == N) return false;
    items_[size_++] = v;
    return true;
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T& operator[](std::size_t i) const { return items_[i]; }
  T& operator[](std::size_t i) { return items_[i]; }
  const T* begin() const { return items_.data(); }
  const T* end() const { return items_.data() + size_; }
  void clear() { size_ = 0; }
  friend bool operator==(const BoundedList& a, const BoundedList& b) {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (!(a.items_[i] == b.items_[i])) return false;
    return true;
  }

 private:
  std::array<T, N> items_{};
  std::size_t size_ = 0;
};

// ------------------------------------------------ header bit overlays

// Reads/writes one field of a per-type overlay (kProposalTypeBits, ...).
std::uint64_t type_bits_field(const ClcHeader& h, const wire::FieldDecl& f);
void set_type_bits_field(ClcHeader& h, const wire::FieldDecl& f, std::uint64_t v);

// The overlay that applies to a message type.
std::span<const wire::FieldDecl> type_bits_decl(MessageType t);

// --------------------------------------------------------- messages

struct Proposal {
  ClcHeader header;
  ProposalBody body;
  // v1 only: octets between the body and the IP prefix area that are not the
  // SMC-D area (RFC 7609 keeps room there for growth).
  std::vector<std::uint8_t> v1_growth_area;
  std::optional<ProposalSmcd> smcd;  // v2 always; v1 when SMC-D is offered
  std::optional<IpPrefix> ip_prefix;  // when an SMCv1 path is offered
  BoundedList<Ipv6Prefix, kMaxIpv6Prefixes> ipv6_prefixes;
  std::optional<V2Extension> v2_ext;  // v2, when an SMCv2 path is offered
  BoundedList<EidEntry, kMaxUserEids> user_eids;
  std::optional<SmcdV2Extension> smcd_v2_ext;  // v2, when SMC-Dv2 is offered
  BoundedList<IsmGidChid, kMaxIsmGids> ism_gids;
  Trailer trailer;

  std::uint8_t version() const { return static_cast<std::uint8_t>(header.get(ClcHeaderSpec::Field::Version)); }
  SmcType smcv1_type() const;
  SmcType smcv2_type() const;
  // Whether the body's SMC-R fields (Peer ID, GID, MAC) carry the client's
  // identity: only when the version 1 path offers SMC-R (RFC 7609 App.
  // A.2.2). A Proposal that offers SMC-R only in version 2 leaves them zero
  // (Linux smc_clc_send_proposal fills them only for a v1 SMC-R offer) and
  // names its RoCE GID in the v2 extension instead, so no rule may read them.
  bool v1_smcr_identity() const;
  friend bool operator==(const Proposal&, const Proposal&) = default;
};

// Accept and Confirm share one layout; the header's Type tells them apart.
struct AcceptConfirm {
  ClcHeader header;
  std::optional<SmcrBody> smcr;
  std::optional<SmcrV2Part> smcr_v2;
  std::optional<SmcdBody> smcd;
  std::optional<SmcdV1Reserved> smcd_v1;
  std::optional<SmcdV2Part> smcd_v2;
  std::optional<FirstContactExt> fce;        // v2 with First Contact set
  std::optional<FirstContactExtV2x> fce_v2x;  // SMC-R always with fce; SMC-D from release 1
  std::optional<GidList> gid_list;           // SMC-Rv2 first-contact Confirm
  BoundedList<GidEntry, kMaxListGids> gids;
  Trailer trailer;

  MessageType type() const { return static_cast<MessageType>(header.get(ClcHeaderSpec::Field::Type)); }
  std::uint8_t version() const { return static_cast<std::uint8_t>(header.get(ClcHeaderSpec::Field::Version)); }
  bool first_contact() const;
  SmcType smc_type() const;
  friend bool operator==(const AcceptConfirm&, const AcceptConfirm&) = default;
};

struct Decline {
  ClcHeader header;
  DeclineBody body;
  std::optional<DeclineV2Diagnosis> v2_diagnosis;
  Trailer trailer;

  std::uint8_t version() const { return static_cast<std::uint8_t>(header.get(ClcHeaderSpec::Field::Version)); }
  bool out_of_sync() const;
  std::uint32_t diagnosis() const {
    return static_cast<std::uint32_t>(body.get(DeclineSpec::Field::PeerDiagnosis));
  }
  friend bool operator==(const Decline&, const Decline&) = default;
};

using Message = std::variant<Proposal, AcceptConfirm, Decline>;

MessageType message_type(const Message& m);

// ------------------------------------------------------------ codec

// Validates the first 8 octets enough to frame a stream: eyecatcher, type,
// version and a Length between the smallest and the largest CLC message.
// Needs at least kHeaderSize octets.
Result<std::size_t> message_length(Bytes first_octets);

// Decodes the message at the start of `octets` (which may hold more octets
// than the message: the header's Length says where it ends). Every rule the
// layout implies is checked; the error names the field, the rule and where
// the rule is written.
// Whose rules a decode applies. A Decline's reserved bits must be sent as
// zero but are not checked by its receiver (SMC v2: Linux stopped checking
// them to follow RFC 7609, so that a Decline always means fallback), and a
// v2 Accept or Confirm must end where its blocks end but a receiver takes a
// longer one, ignoring the surplus (Linux smc_clc_msg_acc_conf_valid checks
// a minimum Length only): an analyzer judging the sender decodes with
// kSender, a handshake machine receiving the message with kReceiver.
enum class DecodeRules : std::uint8_t { kSender, kReceiver };
Result<Message> decode(Bytes octets, DecodeRules rules = DecodeRules::kSender);

// Computes Length, offsets, counts and the trailer from the blocks present.
void finalize(Proposal& m);
void finalize(AcceptConfirm& m);
void finalize(Decline& m);

// Writes the blocks as they are (call finalize first for a valid message).
std::vector<std::uint8_t> encode(const Message& m);

// Multi-line description of every block and field, for logs and the CLI.
std::string describe(const Message& m);

// --------------------------------------------------- stream framing

// Incremental framer over a TCP byte stream (the Beast parser habit): put()
// consumes only what completes the current message, so the octets after a
// CLC exchange (plain TCP data after a fallback) are never swallowed. The
// buffer is fixed at kMaxMessageLength; a Length beyond it is an error.
class MessageReader {
 public:
  // Returns the octets consumed from `in`.
  std::size_t put(Bytes in);
  bool has_message() const { return state_ == State::kComplete; }
  const std::optional<DecodeError>& error() const { return error_; }
  Bytes message() const { return Bytes(buf_).first(have_); }
  // After has_message(): get ready for the next message.
  void next();

 private:
  enum class State : std::uint8_t { kHeader, kBody, kComplete, kError };
  std::array<std::uint8_t, kMaxMessageLength> buf_{};
  std::size_t have_ = 0;
  std::size_t need_ = kHeaderSize;
  State state_ = State::kHeader;
  std::optional<DecodeError> error_;
};

// ------------------------------------------------- value encodings

// RMBE/DMBE size, 4-bit compressed notation (RFC 7609 App. A.2.3): code n
// means 16 KiB << n. compress rounds up, as Linux smc_compress_bufsize does.
constexpr std::uint64_t uncompress_buffer_size(std::uint8_t code) { return std::uint64_t{16384} << (code & 0xf); }
constexpr std::uint8_t compress_buffer_size(std::uint64_t octets) {
  std::uint8_t n = 0;
  while (n < 15 && uncompress_buffer_size(n) < octets) ++n;
  return n;
}

// RFC 7609 App. A.2.3/A.2.4: the RMB an Accept or Confirm names (virtual
// address, size from the compressed RMBE size) runs past 2^64.
bool rmb_wraps(const SmcrBody& b);
// ... and the whole RMB rule: the RMBE index counts from 1 and the RMB does
// not wrap. One definition for the handshake, the analyzer and the tester.
bool rmb_valid(const SmcrBody& b);

// QP MTU, InfiniBand enumeration: 1 = 256 ... 5 = 4096; 0 for other codes.
constexpr std::uint32_t qp_mtu_octets(std::uint8_t code) {
  return code >= 1 && code <= 5 ? 256u << (code - 1) : 0u;
}

// 24-bit big-endian helpers for QP numbers and PSNs are the Header's job;
// these name the field limits.
inline constexpr std::uint32_t kMaxQpNumber = 0xFFFFFF;
inline constexpr std::uint32_t kMaxPsn = 0xFFFFFF;

}  // namespace rdmaconf::clc
